// divergence_report_p.h: what barrier-divergence and partial-warp-collective report alike: the
// severity (warnings in nvcc -G builds) and the related locations of a finding (the lane-varying
// guard predicate, or the divergent terminator or exit that splits the warp).
#pragma once

#include "ptxkit/verifier/analysis/divergence_cause.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>

namespace ptxkit::verifier {

// nvcc -G keeps every variable on the per-thread stack, and .local loads are lane-varying: debug
// builds get warnings (the same code optimized is the one that must be clean).
inline Severity divergence_severity(const Module& m) {
  return std::find(m.targets.begin(), m.targets.end(), "debug") != m.targets.end()
             ? Severity::kWarning
             : Severity::kError;
}

// Relates `f` to the instruction that computes the guard predicate of `i`.
inline void relate_varying_guard(RuleContext& ctx, Finding& f, analysis::InstId i) {
  const analysis::FunctionAnalysis& a = ctx.analysis();
  analysis::InstId g = a.values.defining_instruction(a.values.guard_value(i));
  if (g != analysis::kNoId) ctx.relate(f, g, "the guard predicate is computed here (lane-varying)");
}

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
    c.is_exit = ci.opcode == "ret" || ci.opcode == "exit";
  }
  return c;
}

// Relates `f` to the cause: "some lanes exit here" or "the warp splits here", then to where the
// condition's difference between lanes comes from (a thread-index read, a per-lane load, a merge
// after another branch), so that a reader can judge the finding without re-deriving it.
inline void relate_cause(RuleContext& ctx, Finding& f, const DivergenceCause& c,
                         const analysis::WarpDivergence& div) {
  if (c.inst == analysis::kNoId) return;
  ctx.relate(f, c.inst,
             c.is_exit ? "some lanes exit here" : "the warp splits here (lane-varying condition)");
  const analysis::FunctionAnalysis& a = ctx.analysis();
  for (const auto& step :
       div.explain(a.values.guard_value(c.inst), a.cfg.block_of(c.inst), /*max_steps=*/3))
    if (step.inst != c.inst) ctx.relate(f, step.inst, "lane-varying because: " + step.why);
}

} // namespace ptxkit::verifier
