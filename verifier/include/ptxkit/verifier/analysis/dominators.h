// dominators.h: dominator and post-dominator trees (Cooper-Harvey-Kennedy) and dominance
// frontiers.
//
// Why: SSA construction places phis on iterated dominance frontiers, natural loops are found from
// back edges (a -> h with h dominating a), and lane uniformity needs immediate post-dominators to
// know where a divergent branch reconverges.
//
// The post-dominator tree is computed on the reversed CFG with one virtual exit node (id ==
// cfg.size()) that every ret/exit/trap block and the end of the body lead to. A block from which
// no exit is reachable (an infinite loop) is treated as if it exited, so every reachable block
// has an immediate post-dominator; for such a block ipdom is the virtual exit, which is the
// conservative answer (its divergence never reconverges).
//
// Assumptions: only blocks reachable from the entry (for post-dominators: also from the exit,
// after the fix-up above) have tree nodes; idom() of anything else is kNoId.
#pragma once

#include "ptxkit/verifier/analysis/cfg.h"
#include "ptxkit/verifier/analysis/flat_lists.h"

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ptxkit::verifier::analysis {

class DominatorTree {
public:
  // Nodes 0..n-1, `preds[v]` are v's predecessors in the direction the tree is computed for,
  // `rpo` the nodes reachable from `root` in reverse post-order (root first).
  DominatorTree(std::uint32_t n, std::uint32_t root,
                const std::vector<std::vector<std::uint32_t>>& preds,
                const std::vector<std::uint32_t>& rpo);

  std::uint32_t size() const { return static_cast<std::uint32_t>(idom_.size()); }
  std::uint32_t root() const { return root_; }
  // Immediate dominator; kNoId for the root and for nodes not in the tree.
  std::uint32_t idom(std::uint32_t v) const { return v == root_ ? kNoId : idom_[v]; }
  bool in_tree(std::uint32_t v) const { return idom_[v] != kNoId; }
  // a dominates b (reflexive). False when either is not in the tree.
  bool dominates(std::uint32_t a, std::uint32_t b) const {
    if (!in_tree(a) || !in_tree(b)) return false;
    return pre_[a] <= pre_[b] && post_[b] <= post_[a];
  }
  std::span<const std::uint32_t> children(std::uint32_t v) const { return children_[v]; }
  // Dominance frontier of v (computed on construction).
  std::span<const std::uint32_t> frontier(std::uint32_t v) const { return frontier_[v]; }
  // Tree nodes in pre-order of the tree (root first): a topological order of dominance.
  const std::vector<std::uint32_t>& preorder() const { return preorder_; }

private:
  std::uint32_t root_;
  std::vector<std::uint32_t> idom_;   // idom_[root] == root; kNoId = not in tree
  FlatLists<std::uint32_t> children_; // one flat array: functions can have 100,000s of blocks
  FlatLists<std::uint32_t> frontier_;
  std::vector<std::uint32_t> pre_, post_, preorder_;
};

// Dominators of the CFG (node ids are block ids).
DominatorTree dominators(const Cfg& cfg);
// Post-dominators: node ids are block ids plus the virtual exit, id cfg.size().
DominatorTree post_dominators(const Cfg& cfg);

} // namespace ptxkit::verifier::analysis
