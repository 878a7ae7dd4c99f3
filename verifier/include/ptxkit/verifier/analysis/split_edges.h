// split_edges.h: the edges the lanes of one divergent branch may arrive over at a merge, and
// whether a phi there merges different numbers over them.
//
// Why: a phi in a divergent region, or where one reconverges, is lane-varying only when lanes
// that split at the same branch can bring it different numbers. Edges that all carry the same
// value (a flag set before an elect-one block, a parameter reloaded on one side: see
// ValueNumbering::same_number) merge nothing. Both the lane uniformity and the warp divergence
// analysis ask this of their own regions.
#pragma once

#include "ptxkit/verifier/analysis/value_numbering.h"

#include <vector>

namespace ptxkit::verifier::analysis {

// Lanes that split at block `split` may enter block `to` from block `from`.
struct SplitEdge {
  BlockId to = kNoId, split = kNoId, from = kNoId;
};

// Orders edges by (to, split, from), as merges_split_lanes expects.
void sort_split_edges(std::vector<SplitEdge>& edges);
// The same order when edges[0, sorted) already has it: sorts only the edges after it and merges
// (a fixpoint that adds a few edges per round then costs their sort, not all edges' again).
void sort_split_edges(std::vector<SplitEdge>& edges, std::size_t sorted);

// Phi `phi` receives numbers that may differ over two edges lanes of one split may take
// (`edges` sorted by sort_split_edges).
bool merges_split_lanes(const ValueNumbering& vn, const std::vector<SplitEdge>& edges, ValueId phi);

} // namespace ptxkit::verifier::analysis
