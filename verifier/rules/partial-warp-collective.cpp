// partial-warp-collective.cpp: rule `partial-warp-collective`: a warp collective with a full member
// mask that only part of the warp can reach.
//
// What it proves: every `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync` and `bar.warp.sync`
// in reachable code whose member mask is the constant 0xffffffff (an immediate, or a register set
// by `mov` of one, through copies) lies in a block that the whole warp reaches together: not in
// a partial-warp region of a lane-varying branch, and not after a lane-varying `ret`/`exit`. A
// full mask names lanes that are not there: the behaviour is undefined (hangs on Volta+).
// A mask that is computed (from `activemask`, a ballot, a shift) is not a site: the program
// states which lanes take part.
//
// Assumptions and limits: divergence is lane uniformity (uniformity.h); a lane-varying branch
// whose every side executes the same collective is still reported (each side's instance sees a
// partial warp). `.func` bodies are analysed as if entered by a full warp. Severity: error; warning
// in debug builds (`.target sm_XX, debug`), whose .local round trips make every value lane-varying.
// An error carries two lanes of one warp the interpreter replayed, one executing the collective
// and one leaving without it (divergence_replay_p.h); where the replay cannot show them, the
// finding is a warning naming what it could not decide.
//
// How: full-mask warp collectives checked against the uniformity analysis' partial-warp and
// after-divergent-exit facts.
#include "divergence_replay_p.h"
#include "divergence_report_p.h"
#include "ptxkit/verifier/analysis/divergence_cause.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>
#include <memory>
#include <string>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

class PartialWarpCollectiveRule final : public Rule {
public:
  std::string_view summary() const override {
    return "a full-mask shfl/vote/match/redux .sync is reachable by only part of a warp";
  }
  void check(RuleContext& ctx) const override;
};

// The module's target is sm_70 or later (`.target sm_90a`, `sm_80, debug`): independent thread
// scheduling, where `.sync` collectives wait for the non-exited lanes of their mask.
bool targets_sm70_or_later(const Module& m) {
  for (std::string_view t : m.targets) {
    if (!t.starts_with("sm_")) continue;
    int v = 0;
    for (char c : t.substr(3)) {
      if (c < '0' || c > '9') break;
      v = v * 10 + (c - '0');
    }
    return v >= 70;
  }
  return false;
}

void PartialWarpCollectiveRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const WarpDivergence* div = nullptr; // at the first full-mask collective
  WholeWarpsShape shape;
  UniformArguments args; // in a .func: divergence that depends on the callers' arguments
  for (InstId i = 0; i < a.ir.size(); ++i) {
    BlockId b = a.cfg.block_of(i);
    if (!a.cfg.reachable(b)) continue;
    const Instruction& inst = a.ir.inst(i);
    std::uint32_t mask_op = member_mask_operand(inst);
    if (mask_op == kNoId) continue;
    std::optional<std::int64_t> mask = constant_operand(a, i, mask_op);
    if (!mask || (static_cast<std::uint64_t>(*mask) & 0xffffffffu) != 0xffffffffu) continue;
    ctx.add_sites();
    if (!div) div = &a.divergence(ctx.module(), false);
    bool after_exit = div->after_exit(b);
    bool partial = div->partial(b);
    // `@%p shfl.sync ...` with a lane-varying %p: the lanes whose guard fails do not take part.
    bool guarded = !div->guard_uniform(i);
    if (!after_exit && !partial && !guarded) continue;
    const DivergenceCause cause = divergence_cause(a, *div, b);
    const std::string what = inst.full_opcode() + " with full mask 0xffffffff";
    if (shape.fine_with_whole_warps(ctx, i, b)) {
      auto f = WholeWarpsShape::report(ctx, i, what, guarded && !after_exit && !partial);
      if (cause.inst != kNoId) f.relate(cause.inst, "the branch that depends on the launch shape");
      continue;
    }
    // vote/match/redux/bar.warp.sync after some lanes returned (nvcc's branch to the kernel's
    // return block: a grid-stride loop whose lanes return as they finish): from sm_70 on these
    // wait only for the lanes of the mask that have not exited, and their result covers the
    // lanes still running: a warning, however the exit is written (a branch to a shared return
    // block, or a guarded `ret`). A shuffle there may read an exited lane's register: an error.
    const Opcode op = inst.op;
    if (after_exit && !partial && !guarded && targets_sm70_or_later(ctx.module()) &&
        (op == Opcode::kVote || op == Opcode::kMatch || op == Opcode::kRedux ||
         op == Opcode::kBar)) {
      auto f = ctx.report(i, what + " after a lane-varying exit: from sm_70 on it waits only for "
                                    "the lanes that have not exited (their result leaves the "
                                    "exited lanes out)");
      f.assuming("the result must cover the lanes that exited",
                 "leave the exited lanes out of the member mask (__activemask()) to say so");
      relate_cause(ctx, f, cause, *div);
      continue;
    }
    if (args.fine_with_uniform_arguments(ctx, i, b, false)) {
      auto f = UniformArguments::report(ctx, i, what, guarded && !after_exit && !partial);
      if (cause.inst != kNoId) f.relate(cause.inst, "the branch on the arguments");
      continue;
    }
    if (guarded && !after_exit && !partial) {
      auto f = unless_debug_build(ctx.module(),
                                  ctx.report(i, what + " under a lane-varying guard predicate: "
                                                       "the lanes whose predicate fails never "
                                                       "take part"));
      relate_varying_guard(ctx, f, i);
      replay_divergence(ctx, f, i, false);
      continue;
    }
    std::string msg = cause.is_exit || (after_exit && !partial)
                          ? what + " after a lane-varying exit: the exited lanes never take part"
                          : what + " under lane-varying control flow: only part of the warp "
                                   "reaches it";
    auto f = unless_debug_build(ctx.module(), ctx.report(i, msg));
    relate_cause(ctx, f, cause, *div);
    replay_divergence(ctx, f, i, false);
  }
}

} // namespace

std::unique_ptr<Rule> make_partial_warp_collective_rule() {
  return std::make_unique<PartialWarpCollectiveRule>();
}

} // namespace ptxkit::verifier
