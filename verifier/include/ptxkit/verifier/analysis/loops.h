// loops.h: natural loops of a CFG: back edges, headers, bodies, nesting.
//
// Why: "the value from before this iteration's update" only means something relative to a loop
// header, and lane uniformity must know which values leave a loop whose lanes exit at different
// iterations (temporal divergence).
//
// A back edge is t -> h where h dominates t; the loop of h is h plus every block that reaches a
// back-edge source without passing through h (all back edges to one header form one loop).
// Irreducible cycles (no dominating header) have no natural loop and are not reported; analyses
// that need soundness on them (uniformity) do not rely on loops for it.
#pragma once

#include "ptxkit/verifier/analysis/cfg.h"
#include "ptxkit/verifier/analysis/dominators.h"

#include <cstdint>
#include <vector>

namespace ptxkit::verifier::analysis {

using LoopId = std::uint32_t;

struct Loop {
  BlockId header = kNoId;
  std::vector<BlockId> latches; // sources of back edges to header
  std::vector<BlockId> blocks;  // header first, then the rest in increasing id order
  std::vector<std::pair<BlockId, BlockId>> exits; // edges from a loop block to outside
  LoopId parent = kNoId;                          // innermost enclosing loop
  std::uint32_t depth = 1;
};

class LoopInfo {
public:
  LoopInfo(const Cfg& cfg, const DominatorTree& dom);

  std::uint32_t size() const { return static_cast<std::uint32_t>(loops_.size()); }
  const Loop& loop(LoopId l) const { return loops_[l]; }
  // Innermost loop containing b, or kNoId.
  LoopId loop_of(BlockId b) const { return innermost_[b]; }
  // Loop whose header is b, or kNoId.
  LoopId loop_with_header(BlockId b) const;
  bool contains(LoopId l, BlockId b) const;
  bool is_back_edge(BlockId from, BlockId to) const;

private:
  std::vector<Loop> loops_;
  std::vector<LoopId> innermost_;
};

} // namespace ptxkit::verifier::analysis
