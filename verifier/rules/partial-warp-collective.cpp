// partial-warp-collective.cpp: the `partial-warp-collective` rule (see
// partial-warp-collective.h): full-mask warp collectives checked against the uniformity
// analysis' partial-warp and after-divergent-exit facts.
#include "partial-warp-collective.h"

#include "ptxkit/verifier/analysis/divergence_cause.h"

#include <algorithm>

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
  // nvcc -G keeps every variable on the per-thread stack, and .local loads are lane-varying:
  // debug builds get warnings (the same code optimized is the one that must be clean).
  const auto& targets = ctx.module().targets;
  const Severity severity = std::find(targets.begin(), targets.end(), "debug") != targets.end()
                                ? Severity::kWarning
                                : Severity::kError;
  std::unique_ptr<WarpDivergence> div; // built at the first full-mask collective
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
    if (guarded && !after_exit && !partial) {
      Finding& f = ctx.report(i,
                              inst.full_opcode() +
                                  " with full mask 0xffffffff under a lane-varying guard "
                                  "predicate: the lanes whose predicate fails never take part",
                              severity);
      InstId g = a.values.defining_instruction(a.values.guard_value(i));
      if (g != kNoId) ctx.relate(f, g, "the guard predicate is computed here (lane-varying)");
      continue;
    }
    InstId cause = div->cause(b);
    const Instruction* ci = cause == kNoId ? nullptr : &a.ir.inst(cause);
    bool cause_is_exit = ci && (ci->opcode == "ret" || ci->opcode == "exit");
    std::string what = inst.full_opcode();
    std::string msg = cause_is_exit || (after_exit && !partial)
                          ? what + " with full mask 0xffffffff after a lane-varying exit: the "
                                   "exited lanes never take part"
                          : what + " with full mask 0xffffffff under lane-varying control flow: "
                                   "only part of the warp reaches it";
    Finding& f = ctx.report(i, msg, severity);
    if (cause != kNoId)
      ctx.relate(f, cause,
                 cause_is_exit ? "some lanes exit here"
                               : "the warp splits here (lane-varying "
                                 "condition)");
  }
}

} // namespace

std::unique_ptr<Rule> make_partial_warp_collective_rule() {
  return std::make_unique<PartialWarpCollectiveRule>();
}

} // namespace ptxkit::verifier
