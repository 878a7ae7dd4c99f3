// barrier-divergence.cpp: rule `barrier-divergence`: a barrier or other `.aligned` collective that
// only part of a warp can reach.
//
// What it proves: every aligned collective in reachable code — `bar.sync`/`bar.arrive`/`bar.red`
// (always aligned), `barrier.*.aligned` (cta and cluster), and any `.aligned` warp-wide operation
// (`mma.sync.aligned`, `wgmma.*.sync.aligned`, `wmma.*.sync.aligned`, `ldmatrix`/`stmatrix`/
// `movmatrix .sync.aligned`, `tcgen05.*.sync.aligned`, ...) — lies in a block that every lane of a
// warp which entered the function reaches together: not in a partial-warp region of a lane-varying
// branch (before the branch reconverges at its immediate post-dominator), and not after a
// lane-varying `ret`/`exit` (lanes that left never arrive). `.aligned` requires every thread of
// the warp to execute the same instruction; a barrier some threads skip hangs or is undefined.
// Non-`.aligned` `barrier.sync`/`barrier.arrive`/`barrier.red` (which allow divergent arrival) are
// reported only after a lane-varying exit: there a lane never arrives at all.
//
// Assumptions and limits: divergence is lane uniformity (uniformity.h): branches on %ctaid,
// parameters, constants, uniform loads and loops with uniform trip counts are uniform, so
// nvcc/CUB early exits (`if (blockIdx.x * tile >= n) return;`) are not findings. It is a
// warp-level analysis: a branch that is uniform within each warp but differs across warps
// (%warpid, `tid / 32` is varying anyway) is not reported for CTA barriers. `.func` bodies are
// analysed as if entered by a full warp. Severity: error; warning in debug builds (`.target
// sm_XX, debug`), whose .local round trips make every value lane-varying.
//
// How: classifies aligned collectives and checks their blocks against the uniformity analysis'
// partial-warp and after-divergent-exit facts, naming the divergent terminator responsible.
#include "divergence_report_p.h"
#include "ptxkit/verifier/analysis/divergence_cause.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

enum class Collective { kNone, kAligned, kUnaligned };

Collective classify(const Instruction& inst) {
  if (inst.op == Opcode::kBar) {
    if (inst.has_modifier("warp")) return Collective::kNone; // bar.warp.sync: a member mask
    return Collective::kAligned;                             // bar.sync/arrive/red: aligned
  }
  if (inst.has_modifier("aligned")) return Collective::kAligned;
  if (inst.op == Opcode::kBarrier) {
    for (std::string_view m : {"sync", "arrive", "red", "wait"})
      if (inst.has_modifier(m)) return Collective::kUnaligned;
  }
  return Collective::kNone;
}

class BarrierDivergenceRule final : public Rule {
public:
  std::string_view summary() const override {
    return "a barrier or .aligned collective is reachable by only part of a warp";
  }
  void check(RuleContext& ctx) const override;
};

void BarrierDivergenceRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const Severity severity = divergence_severity(ctx.module());
  // at the first collective of each scope
  const WarpDivergence *threads = nullptr, *warps = nullptr, *groups = nullptr;
  WholeWarpsShape shape; // warp-level collectives under an undeclared launch shape
  UniformArguments args; // in a .func: divergence that depends on the callers' arguments
  for (InstId i = 0; i < a.ir.size(); ++i) {
    BlockId b = a.cfg.block_of(i);
    if (!a.cfg.reachable(b)) continue;
    const Instruction& inst = a.ir.inst(i);
    Collective c = classify(inst);
    if (c == Collective::kNone) continue;
    ctx.add_sites();
    // CTA-wide barriers need every thread: any lane-varying branch counts. A named barrier with
    // a thread count, and warp-wide .aligned operations, need whole warps only.
    // The count is operand 1 of bar.sync/bar.arrive (`bar.sync a{, b}`) and operand 2 of bar.red
    // (`bar.red.op d, a{, b}, c`).
    bool cta_wide = (inst.op == Opcode::kBar || inst.op == Opcode::kBarrier) &&
                    inst.operands.size() < (inst.has_modifier("red") ? 4u : 2u);
    auto& div = cta_wide ? threads : warps;
    if (!div) div = &a.divergence(ctx.module(), cta_wide);
    bool after_exit = div->after_exit(b);
    bool partial = div->partial(b);
    std::string what = inst.full_opcode();
    // `@%p bar.sync 0` with a thread-varying %p: the threads whose guard fails never arrive at
    // this aligned barrier (a non-aligned one may be reached by them at another instruction).
    bool guarded = c == Collective::kAligned && !div->guard_uniform(i);
    // Whether a finding is due: a guard, an exit, or (aligned ones) a divergent region.
    bool due = guarded || after_exit || (partial && c == Collective::kAligned);
    // wgmma.* and setmaxnreg are executed by a warpgroup (4 warps) together. Control flow the
    // same in every lane of each warp may still differ between the four (a role read per warp
    // from shared memory, a warp index compared on a boundary that is no multiple of 4): a
    // warning, since the warps' roles usually agree by construction the PTX does not show.
    if (!due && (inst.op == Opcode::kWgmma || inst.op == Opcode::kSetmaxnreg)) {
      // Control flow the same in every thread of the block is the same in every warpgroup:
      // the block-level facts (needed for the CTA barriers such kernels have anyway) settle the
      // common case without a warpgroup-level analysis.
      if (!threads) threads = &a.divergence(ctx.module(), true);
      if (!threads->after_exit(b) && !threads->partial(b) && threads->guard_uniform(i)) continue;
      if (!groups) groups = &a.warpgroup_divergence(ctx.module());
      const bool group_guarded = !groups->guard_uniform(i);
      if (groups->after_exit(b) || groups->partial(b) || group_guarded) {
        auto f = ctx.report(
            i,
            what +
                (group_guarded && !groups->partial(b) && !groups->after_exit(b)
                     ? " under a guard"
                     : " under control flow") +
                " that is the same in each warp but not provably in all four warps of its "
                "warpgroup: a warpgroup that splits here never completes it",
            Severity::kWarning);
        const DivergenceCause cause = divergence_cause(a, *groups, b);
        if (cause.inst != kNoId) relate_cause(ctx, f, cause, *groups);
      }
      continue;
    }
    if (!due) continue;
    if (!cta_wide && shape.fine_with_whole_warps(ctx, i, b)) {
      auto f = ctx.report(i, WholeWarpsShape::message(what, guarded && !after_exit && !partial),
                          Severity::kWarning);
      const DivergenceCause cause = divergence_cause(a, *div, b);
      if (cause.inst != kNoId) f.relate(cause.inst, "the branch that depends on the launch shape");
      continue;
    }
    if (args.fine_with_uniform_arguments(ctx, i, b, cta_wide)) {
      auto f = ctx.report(i, UniformArguments::message(what, guarded && !after_exit && !partial),
                          Severity::kWarning);
      const DivergenceCause cause = divergence_cause(a, *div, b);
      if (cause.inst != kNoId) f.relate(cause.inst, "the branch on the arguments");
      continue;
    }
    if (!after_exit && !partial && guarded) {
      auto f = ctx.report(i,
                          what + " under a lane-varying guard predicate: the threads whose "
                                 "predicate fails never arrive",
                          severity);
      relate_varying_guard(ctx, f, i);
      continue;
    }
    if (!after_exit && !(partial && c == Collective::kAligned)) continue;
    const DivergenceCause cause = divergence_cause(a, *div, b);
    // A non-aligned barrier may be reached from different places: only exited threads matter.
    const bool exit_case = after_exit && (cause.is_exit || !partial || c == Collective::kUnaligned);
    std::string msg = exit_case ? what + " after a lane-varying exit: lanes that left never arrive"
                                : what + " under lane-varying control flow: only part of the warp "
                                         "reaches it";
    // `if (i >= n) return; ... __syncthreads();` (nvcc: a branch to the kernel's return block):
    // GPUs do not wait at a CTA barrier for threads that have exited, and the cuda-samples and
    // many kernels rely on it, but the CUDA programming model asks every thread of the block to
    // reach it: a warning. A guarded `ret`/`exit` written in the PTX itself stays an error.
    const bool exited_only =
        cta_wide && exit_case && !cause.is_exit && a.ir.function().kind == FunctionKind::kEntry;
    if (exited_only)
      msg = what + " after a lane-varying exit: GPUs do not wait for exited threads, but CUDA "
                   "requires every thread of the block to reach the barrier (exit after it)";
    auto f = ctx.report(i, msg, exited_only ? Severity::kWarning : severity);
    relate_cause(ctx, f, cause, *div);
  }
}

} // namespace

std::unique_ptr<Rule> make_barrier_divergence_rule() {
  return std::make_unique<BarrierDivergenceRule>();
}

} // namespace ptxkit::verifier
