// use_walk.h: a bounded forward walk over the def-use graph, from an instruction's results to
// the instructions that read them, and on through those a rule chooses to follow.
//
// Why: rules ask "does this result reach an ex2 through a few arithmetic steps", "which
// accumulators does this exponent feed": the same walk with a different stopping point. Written
// once, each rule states only what it follows and what it looks for.
#pragma once

#include "ptxkit/verifier/analysis/function_analysis.h"

#include <set>
#include <utility>
#include <vector>

namespace ptxkit::verifier::analysis {

enum class WalkStep : std::uint8_t {
  kSkip,   // do not go on through this use
  kFollow, // go on to the values the using instruction defines
  kStop,   // end the walk
};

// Calls step(use, depth) for every use of the values `start` defines, then of the values each
// followed instruction defines (depth: how many instructions were followed to reach the use, 0
// for start's own results). Each instruction is followed at most once; phi users (use.inst ==
// kNoId) are reported but never followed.
template <class Step>
void walk_uses(const FunctionAnalysis& a, InstId start, Step&& step) {
  const ValueNumbering& vn = a.values;
  std::vector<std::pair<InstId, int>> work{{start, 0}};
  std::set<InstId> seen{start};
  while (!work.empty()) {
    auto [j, depth] = work.back();
    work.pop_back();
    const InstInfo& info = a.ir.info(j);
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
      if (!a.ir.mention(m).is_def || vn.ssa_def(m) == kNoId) continue;
      for (const ValueUse& u : vn.uses(vn.ssa_def(m))) {
        WalkStep s = step(u, depth);
        if (s == WalkStep::kStop) return;
        if (s == WalkStep::kFollow && u.inst != kNoId && seen.insert(u.inst).second)
          work.push_back({u.inst, depth + 1});
      }
    }
  }
}

} // namespace ptxkit::verifier::analysis
