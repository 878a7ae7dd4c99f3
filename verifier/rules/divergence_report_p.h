// divergence_report_p.h: what barrier-divergence and partial-warp-collective report alike: the
// severity (warnings in nvcc -G builds) and the related locations of a finding (the lane-varying
// guard predicate, or the divergent terminator or exit that splits the warp).
#pragma once

#include "ptxkit/verifier/analysis/divergence_cause.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>
#include <memory>
#include <string>

namespace ptxkit::verifier {

// nvcc -G keeps every variable on the per-thread stack, and .local loads are lane-varying: in a
// debug build a divergence finding rests on values the analysis cannot follow (the same code
// optimized is the one that must be clean).
inline bool is_debug_build(const Module& m) {
  return std::find(m.targets.begin(), m.targets.end(), "debug") != m.targets.end();
}

// The assumptions divergence findings rest on, worded once (RuleContext::Reported::assuming turns
// each into a warning that says how to decide it).
inline constexpr std::string_view kDecideBlockShape =
    "declare the block shape with .reqntid (__launch_bounds__ gives only .maxntid, a thread "
    "count), or pass --block-dim or a --contract block";

// Marks `f` as resting on the debug build's .local round trips when the module is one.
inline RuleContext::Reported unless_debug_build(const Module& m, RuleContext::Reported f) {
  if (is_debug_build(m))
    f.assuming("the lanes really differ in the values this debug build (-G) keeps in .local "
               "memory, which the analysis does not follow",
               "verify the optimised build of the same code");
  return f;
}

// Relates `f` to the instruction that computes the guard predicate of `i`.
inline void relate_varying_guard(RuleContext& ctx, RuleContext::Reported& f, analysis::InstId i) {
  const analysis::FunctionAnalysis& a = ctx.analysis();
  analysis::InstId g = a.values.defining_instruction(a.values.guard_value(i));
  if (g != analysis::kNoId) f.relate(g, "the guard predicate is computed here (lane-varying)");
}

// Without .reqntid/.maxntid, the analysis assumes only a 1-D block. A warp-level finding that
// disappears when ntid.x is also taken to be a multiple of 32 (the launch shape of nearly every
// kernel written with warp indices like (ctaid.x * ntid.x + tid.x) >> 5, or with threadIdx.y as
// the warp index) is a warning that asks for the launch bound, not an error: the code is right
// under that shape and wrong under others.
class WholeWarpsShape {
public:
  // The collective `i` in block `b` is reached by whole warps once ntid.x is a multiple of 32,
  // and the function declares no launch bound that would settle it.
  bool fine_with_whole_warps(RuleContext& ctx, analysis::InstId i, analysis::BlockId b) {
    const analysis::FunctionAnalysis& a = ctx.analysis();
    if (!analysis::WarpDivergence::launch_shape_unknown(a)) return false;
    if (!div_) div_ = std::make_unique<analysis::WarpDivergence>(ctx.module(), a, false, true);
    bool ok = !div_->after_exit(b) && !div_->partial(b) && div_->guard_uniform(i);
    return ok;
  }
  // Reports the collective `what` at `i`, resting on the launch shape; `by_guard`: a guard
  // decides, not a branch.
  static RuleContext::Reported report(RuleContext& ctx, analysis::InstId i, const std::string& what,
                                      bool by_guard) {
    auto f = ctx.report(i, what + " behind a " + (by_guard ? "guard" : "branch") +
                               " that is warp-uniform only if the block's x dimension is a "
                               "multiple of 32: with another shape part of the warp skips it");
    f.assuming("blockDim.x is not a multiple of 32 (the kernel declares no .reqntid)",
               std::string(kDecideBlockShape));
    return f;
  }

private:
  std::unique_ptr<analysis::WarpDivergence> div_;
};

// A .func is checked on its own, its parameters as different in every lane (any caller may pass
// per-lane values). A finding that disappears when every caller is taken to pass each argument
// the same in all lanes (a loop bound or a thread_group passed down, as cooperative groups'
// sync() helpers do) depends on the callers: a warning that says so, not an error.
class UniformArguments {
public:
  bool fine_with_uniform_arguments(RuleContext& ctx, analysis::InstId i, analysis::BlockId b,
                                   bool thread_level) {
    const analysis::FunctionAnalysis& a = ctx.analysis();
    if (a.ir.function().kind != FunctionKind::kFunc) return false;
    Slot& s = thread_level ? thread_ : warp_;
    if (!s.div) {
      s.lanes = std::make_unique<analysis::Uniformity>(
          a.values, a.pdom, a.loops,
          thread_level ? analysis::UniformityScope::kBlock : analysis::UniformityScope::kWarp,
          /*func_params_uniform=*/true);
      s.div = std::make_unique<analysis::WarpDivergence>(ctx.module(), a, thread_level, false,
                                                         s.lanes.get());
    }
    return !s.div->after_exit(b) && !s.div->partial(b) && s.div->guard_uniform(i);
  }
  static RuleContext::Reported report(RuleContext& ctx, analysis::InstId i, const std::string& what,
                                      bool by_guard) {
    auto f = ctx.report(i, what + " behind a " + (by_guard ? "guard" : "branch") +
                               " that depends on this .func's arguments");
    f.assuming("a caller passes these arguments different in different lanes (a .func is "
               "checked on its own)",
               "verify the kernels that call it, or pass the arguments the same in all lanes");
    return f;
  }

private:
  struct Slot {
    std::unique_ptr<analysis::Uniformity> lanes;
    std::unique_ptr<analysis::WarpDivergence> div;
  };
  Slot warp_, thread_;
};

// The divergent terminator that causes block b, and whether it is a lane-varying exit.
struct DivergenceCause {
  analysis::InstId inst = analysis::kNoId;
  bool is_exit = false;
};

inline DivergenceCause divergence_cause(const analysis::FunctionAnalysis& a,
                                        const analysis::WarpDivergence& div, analysis::BlockId b) {
  DivergenceCause c{div.cause(b), false};
  if (c.inst != analysis::kNoId) {
    const Instruction& ci = a.ir.inst(c.inst);
    c.is_exit = ci.op == Opcode::kRet || ci.op == Opcode::kExit;
  }
  return c;
}

// Relates `f` to the cause: "some lanes exit here" or "the warp splits here", then to where the
// condition's difference between lanes comes from (a thread-index read, a per-lane load, a merge
// after another branch), so that a reader can judge the finding without re-deriving it.
inline void relate_cause(RuleContext& ctx, RuleContext::Reported& f, const DivergenceCause& c,
                         const analysis::WarpDivergence& div) {
  if (c.inst == analysis::kNoId) return;
  f.relate(c.inst,
           c.is_exit ? "some lanes exit here" : "the warp splits here (lane-varying condition)");
  const analysis::FunctionAnalysis& a = ctx.analysis();
  for (const auto& step :
       div.explain(a.values.guard_value(c.inst), a.cfg.block_of(c.inst), /*max_steps=*/4))
    if (step.inst != c.inst) f.relate(step.inst, "lane-varying because: " + step.why);
}

} // namespace ptxkit::verifier
