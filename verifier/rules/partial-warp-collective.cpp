// partial-warp-collective.cpp: the `partial-warp-collective` rule (see
// partial-warp-collective.h): full-mask warp collectives checked against the uniformity
// analysis' partial-warp and after-divergent-exit facts.
#include "partial-warp-collective.h"

#include "divergence_report_p.h"
#include "ptxkit/verifier/analysis/divergence_cause.h"

#include <algorithm>
#include <memory>
#include <string>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

class PartialWarpCollectiveRule final : public Rule {
public:
  std::string_view id() const override { return "partial-warp-collective"; }
  std::string_view summary() const override {
    return "a full-mask shfl/vote/match/redux .sync is reachable by only part of a warp";
  }
  Severity default_severity() const override { return Severity::kError; }
  void check(RuleContext& ctx) const override;
};

void PartialWarpCollectiveRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const Severity severity = divergence_severity(ctx.module());
  std::unique_ptr<WarpDivergence> div; // built at the first full-mask collective
  // Without .reqntid/.maxntid, the analysis assumes only a 1-D block. A finding that disappears
  // when ntid.x is also taken to be a multiple of 32 (the launch shape of nearly every kernel
  // written with warp indices like (ctaid.x * ntid.x + tid.x) >> 5) is a warning that asks for
  // the launch bound, not an error: the code is right under that shape and wrong under others.
  std::unique_ptr<WarpDivergence> whole_warps;
  auto fine_with_whole_warps = [&](InstId i, BlockId b) {
    if (!WarpDivergence::launch_shape_unknown(a)) return false;
    if (!whole_warps) whole_warps = std::make_unique<WarpDivergence>(ctx.module(), a, false, true);
    return !whole_warps->after_exit(b) && !whole_warps->partial(b) && whole_warps->guard_uniform(i);
  };
  for (InstId i = 0; i < a.ir.size(); ++i) {
    BlockId b = a.cfg.block_of(i);
    if (!a.cfg.reachable(b)) continue;
    const Instruction& inst = a.ir.inst(i);
    std::uint32_t mask_op = member_mask_operand(inst);
    if (mask_op == kNoId) continue;
    std::optional<std::int64_t> mask = constant_operand(a, i, mask_op);
    if (!mask || (static_cast<std::uint64_t>(*mask) & 0xffffffffu) != 0xffffffffu) continue;
    ctx.add_sites();
    if (!div) div = std::make_unique<WarpDivergence>(ctx.module(), a, false);
    bool after_exit = div->after_exit(b);
    bool partial = div->partial(b);
    // `@%p shfl.sync ...` with a lane-varying %p: the lanes whose guard fails do not take part.
    bool guarded = !div->guard_uniform(i);
    if (!after_exit && !partial && !guarded) continue;
    const DivergenceCause cause = divergence_cause(a, *div, b);
    const std::string what = inst.full_opcode() + " with full mask 0xffffffff";
    if (fine_with_whole_warps(i, b)) {
      Finding& f = ctx.report(
          i,
          what + " behind a " + (guarded && !after_exit && !partial ? "guard" : "branch") +
              " that is warp-uniform only if the block's x dimension is a multiple of 32: no "
              ".reqntid/.maxntid declares it (declare one to prove the collective safe; with "
              "another launch shape part of the warp skips it)",
          Severity::kWarning);
      if (cause.inst != kNoId)
        ctx.relate(f, cause.inst, "the branch that depends on the launch shape");
      continue;
    }
    if (guarded && !after_exit && !partial) {
      Finding& f = ctx.report(i,
                              what + " under a lane-varying guard predicate: the lanes whose "
                                     "predicate fails never take part",
                              severity);
      relate_varying_guard(ctx, f, i);
      continue;
    }
    std::string msg = cause.is_exit || (after_exit && !partial)
                          ? what + " after a lane-varying exit: the exited lanes never take part"
                          : what + " under lane-varying control flow: only part of the warp "
                                   "reaches it";
    Finding& f = ctx.report(i, msg, severity);
    relate_cause(ctx, f, cause, *div);
  }
}

} // namespace

std::unique_ptr<Rule> make_partial_warp_collective_rule() {
  return std::make_unique<PartialWarpCollectiveRule>();
}

} // namespace ptxkit::verifier
