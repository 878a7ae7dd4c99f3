// function_analysis.h: every analysis of one function, built once and shared by all rules.
//
// Why: rules must not rebuild the CFG or SSA each; and the order of construction (IR -> CFG ->
// dominators -> liveness -> loops -> values -> uniformity) is a dependency chain best kept in
// one place.
#pragma once

#include "ptxkit/verifier/analysis/cfg.h"
#include "ptxkit/verifier/analysis/dominators.h"
#include "ptxkit/verifier/analysis/function_ir.h"
#include "ptxkit/verifier/analysis/liveness.h"
#include "ptxkit/verifier/analysis/loops.h"
#include "ptxkit/verifier/analysis/uniformity.h"
#include "ptxkit/verifier/analysis/value_numbering.h"

namespace ptxkit::verifier::analysis {

struct FunctionAnalysis {
  explicit FunctionAnalysis(const Function& fn)
      : ir(fn), cfg(ir), dom(dominators(cfg)), pdom(post_dominators(cfg)), live(cfg),
        loops(cfg, dom), values(cfg, dom, live), uniformity(values, pdom, loops),
        block_uniformity(values, pdom, loops, UniformityScope::kBlock) {}
  FunctionAnalysis(const FunctionAnalysis&) = delete;
  FunctionAnalysis& operator=(const FunctionAnalysis&) = delete;

  FunctionIR ir;
  Cfg cfg;
  DominatorTree dom;
  DominatorTree pdom; // node cfg.size() is the virtual exit
  Liveness live;
  LoopInfo loops;
  ValueNumbering values;
  Uniformity uniformity;        // across the lanes of a warp (shuffles, votes, warp collectives)
  Uniformity block_uniformity;  // across the threads of a CTA (bar.sync and CTA barriers)
};

} // namespace ptxkit::verifier::analysis
