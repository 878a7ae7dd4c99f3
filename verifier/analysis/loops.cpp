// loops.cpp: natural-loop discovery (back edges from the dominator tree, bodies by reverse
// reachability from the latches) and loop nesting (the innermost loop already holding a header).
#include "ptxkit/verifier/analysis/loops.h"

#include <algorithm>

namespace ptxkit::verifier::analysis {

LoopInfo::LoopInfo(const Cfg& cfg, const DominatorTree& dom) : innermost_(cfg.size(), kNoId) {
  const std::uint32_t n = cfg.size();
  // Loop bodies are collected with one stamp per block (the current loop's id + 1), so each
  // loop costs its own size, not the function's: straight-line code with many small loops
  // stays linear.
  std::vector<std::uint32_t> stamp(n, 0);
  std::vector<BlockId> work;
  // Headers in RPO order, so outer loops come before the loops they contain.
  for (BlockId h : cfg.rpo()) {
    Loop loop;
    loop.header = h;
    for (BlockId p : cfg.block(h).preds)
      if (cfg.reachable(p) && dom.dominates(h, p)) loop.latches.push_back(p);
    if (loop.latches.empty()) continue;
    const LoopId id = static_cast<LoopId>(loops_.size());
    const std::uint32_t mark = id + 1;
    stamp[h] = mark;
    work.clear();
    for (BlockId t : loop.latches)
      if (stamp[t] != mark) {
        stamp[t] = mark;
        work.push_back(t);
      }
    std::vector<BlockId> body;
    while (!work.empty()) {
      BlockId b = work.back();
      work.pop_back();
      body.push_back(b);
      for (BlockId p : cfg.block(b).preds)
        if (stamp[p] != mark && cfg.reachable(p)) {
          stamp[p] = mark;
          work.push_back(p);
        }
    }
    std::sort(body.begin(), body.end());
    loop.blocks.push_back(h);
    loop.blocks.insert(loop.blocks.end(), body.begin(), body.end());
    for (BlockId b : loop.blocks)
      for (BlockId s : cfg.block(b).succs)
        if (stamp[s] != mark) loop.exits.push_back({b, s});
    // Natural loops with different headers are nested or disjoint, and an enclosing loop's
    // header dominates this one's, so it came earlier in RPO: the innermost loop recorded for
    // the header so far is the parent.
    loop.parent = innermost_[h];
    if (loop.parent != kNoId) loop.depth = loops_[loop.parent].depth + 1;
    for (BlockId b : loop.blocks)
      innermost_[b] = id; // later (inner) loops overwrite
    loops_.push_back(std::move(loop));
  }
}

LoopId LoopInfo::loop_with_header(BlockId b) const {
  LoopId l = innermost_[b];
  while (l != kNoId && loops_[l].header != b)
    l = loops_[l].parent;
  return l;
}

bool LoopInfo::contains(LoopId l, BlockId b) const {
  // b is in l when l encloses (or is) b's innermost loop.
  for (LoopId x = innermost_[b]; x != kNoId && loops_[x].depth >= loops_[l].depth;
       x = loops_[x].parent)
    if (x == l) return true;
  return false;
}

bool LoopInfo::is_back_edge(BlockId from, BlockId to) const {
  LoopId l = loop_with_header(to);
  if (l == kNoId) return false;
  const auto& lat = loops_[l].latches;
  return std::find(lat.begin(), lat.end(), from) != lat.end();
}

} // namespace ptxkit::verifier::analysis
