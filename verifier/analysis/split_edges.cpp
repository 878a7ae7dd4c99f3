// split_edges.cpp: sorting split edges and the phi test of split_edges.h.
#include "ptxkit/verifier/analysis/split_edges.h"

#include <algorithm>

namespace ptxkit::verifier::analysis {

namespace {

bool edge_less(const SplitEdge& a, const SplitEdge& b) {
  return a.to != b.to ? a.to < b.to : a.split != b.split ? a.split < b.split : a.from < b.from;
}

} // namespace

void sort_split_edges(std::vector<SplitEdge>& edges) {
  std::sort(edges.begin(), edges.end(), edge_less);
}

void sort_split_edges(std::vector<SplitEdge>& edges, std::size_t sorted) {
  const auto middle = edges.begin() + static_cast<std::ptrdiff_t>(std::min(sorted, edges.size()));
  std::sort(middle, edges.end(), edge_less);
  std::inplace_merge(edges.begin(), middle, edges.end(), edge_less);
}

bool merges_split_lanes(const ValueNumbering& vn, const std::vector<SplitEdge>& edges,
                        ValueId phi) {
  const BlockId b = vn.info(phi).block;
  auto first = std::lower_bound(edges.begin(), edges.end(), b,
                                [](const SplitEdge& e, BlockId x) { return e.to < x; });
  auto incoming = [&](BlockId pred) {
    for (const PhiIncoming& in : vn.phi_incoming(phi))
      if (in.pred == pred) return in.value;
    return kNoId;
  };
  for (auto it = first; it != edges.end() && it->to == b;) {
    const BlockId split = it->split;
    const ValueId value = incoming(it->from);
    for (; it != edges.end() && it->to == b && it->split == split; ++it)
      if (!vn.same_number(incoming(it->from), value)) return true;
  }
  return false;
}

} // namespace ptxkit::verifier::analysis
