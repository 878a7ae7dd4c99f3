// dominators.cpp: Cooper, Harvey & Kennedy, "A Simple, Fast Dominance Algorithm" (2001), plus
// their dominance-frontier walk. Iterates over the reverse post-order until no idom changes;
// O(n * d) in practice on reducible graphs.
#include "ptxkit/verifier/analysis/dominators.h"

#include <cassert>

namespace ptxkit::verifier::analysis {

namespace {
// (node, item) pairs, grouped by node in the order given.
FlatLists<std::uint32_t>
lists_of(std::uint32_t n, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges) {
  return FlatLists<std::uint32_t>::build(n, [&](auto&& emit) {
    for (const auto& [node, item] : edges)
      emit(node, item);
  });
}
} // namespace

DominatorTree::DominatorTree(std::uint32_t n, std::uint32_t root,
                             const std::vector<std::vector<std::uint32_t>>& preds,
                             const std::vector<std::uint32_t>& rpo)
    : root_(root), idom_(n, kNoId), pre_(n, 0), post_(n, 0) {
  std::vector<std::uint32_t> order(n, kNoId); // position in rpo
  for (std::uint32_t k = 0; k < rpo.size(); ++k)
    order[rpo[k]] = k;
  idom_[root] = root;
  auto intersect = [&](std::uint32_t a, std::uint32_t b) {
    while (a != b) {
      while (order[a] > order[b])
        a = idom_[a];
      while (order[b] > order[a])
        b = idom_[b];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::uint32_t k = 1; k < rpo.size(); ++k) {
      std::uint32_t v = rpo[k];
      std::uint32_t new_idom = kNoId;
      for (std::uint32_t p : preds[v]) {
        if (order[p] == kNoId || idom_[p] == kNoId) continue;
        new_idom = new_idom == kNoId ? p : intersect(p, new_idom);
      }
      if (new_idom != kNoId && idom_[v] != new_idom) {
        idom_[v] = new_idom;
        changed = true;
      }
    }
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges; // (idom, child), child ascending
  for (std::uint32_t v = 0; v < n; ++v)
    if (v != root && idom_[v] != kNoId) edges.push_back({idom_[v], v});
  children_ = lists_of(n, edges);

  // Pre/post numbering of the tree, iteratively.
  std::uint32_t clock = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{root, 0}};
  pre_[root] = clock++;
  preorder_.push_back(root);
  while (!stack.empty()) {
    auto& [v, k] = stack.back();
    if (k < children_[v].size()) {
      std::uint32_t c = children_[v][k++];
      pre_[c] = clock++;
      preorder_.push_back(c);
      stack.push_back({c, 0});
    } else {
      post_[v] = clock++;
      stack.pop_back();
    }
  }

  edges.clear();                             // (runner, frontier block), in discovery order
  std::vector<std::uint32_t> last(n, kNoId); // the block last added to runner's frontier
  for (std::uint32_t v : rpo) {
    std::uint32_t live_preds = 0;
    for (std::uint32_t p : preds[v])
      live_preds += idom_[p] != kNoId;
    if (live_preds < 2) continue;
    for (std::uint32_t p : preds[v]) {
      if (idom_[p] == kNoId) continue;
      for (std::uint32_t runner = p; runner != idom_[v]; runner = idom_[runner]) {
        if (last[runner] != v) {
          last[runner] = v;
          edges.push_back({runner, v});
        }
        if (runner == root_) break;
      }
    }
  }
  frontier_ = lists_of(n, edges);
}

DominatorTree dominators(const Cfg& cfg) {
  std::vector<std::vector<std::uint32_t>> preds(cfg.size());
  for (BlockId b = 0; b < cfg.size(); ++b)
    preds[b] = cfg.block(b).preds;
  return DominatorTree(cfg.size(), cfg.entry(), preds, cfg.rpo());
}

DominatorTree post_dominators(const Cfg& cfg) {
  const std::uint32_t n = cfg.size();
  const std::uint32_t exit = n;
  // Reverse graph: the "predecessors" of v are v's CFG successors (and the exit).
  std::vector<std::vector<std::uint32_t>> rpreds(n + 1);
  std::vector<std::vector<std::uint32_t>> rsuccs(n + 1);
  auto add = [&](std::uint32_t from_rev, std::uint32_t to_rev) {
    rsuccs[from_rev].push_back(to_rev);
    rpreds[to_rev].push_back(from_rev);
  };
  for (BlockId b = 0; b < n; ++b) {
    if (!cfg.reachable(b)) continue;
    for (BlockId s : cfg.block(b).succs)
      add(s, b);
    if (cfg.block(b).exits) add(exit, b);
  }
  auto reverse_rpo = [&]() {
    std::vector<char> seen(n + 1, 0);
    std::vector<std::uint32_t> post;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{exit, 0}};
    seen[exit] = 1;
    while (!stack.empty()) {
      auto& [v, k] = stack.back();
      if (k < rsuccs[v].size()) {
        std::uint32_t s = rsuccs[v][k++];
        if (!seen[s]) {
          seen[s] = 1;
          stack.push_back({s, 0});
        }
      } else {
        post.push_back(v);
        stack.pop_back();
      }
    }
    return std::make_pair(std::vector<std::uint32_t>(post.rbegin(), post.rend()), seen);
  };
  auto [rpo, seen] = reverse_rpo();
  // Blocks that reach no exit (infinite loops): connect them to the exit, latest first, until
  // every reachable block is in the reverse graph.
  for (auto it = cfg.rpo().rbegin(); it != cfg.rpo().rend(); ++it) {
    if (!seen[*it]) {
      add(exit, *it);
      std::tie(rpo, seen) = reverse_rpo();
    }
  }
  return DominatorTree(n + 1, exit, rpreds, rpo);
}

} // namespace ptxkit::verifier::analysis
