// loops.cpp: natural-loop discovery (back edges from the dominator tree, bodies by reverse
// reachability from the latches) and loop nesting by body inclusion.
#include "ptxkit/verifier/analysis/loops.h"

#include <algorithm>

namespace ptxkit::verifier::analysis {

LoopInfo::LoopInfo(const Cfg& cfg, const DominatorTree& dom) : innermost_(cfg.size(), kNoId) {
  const std::uint32_t n = cfg.size();
  // Headers in RPO order, so outer loops come before the loops they contain.
  for (BlockId h : cfg.rpo()) {
    Loop loop;
    loop.header = h;
    for (BlockId p : cfg.block(h).preds)
      if (cfg.reachable(p) && dom.dominates(h, p)) loop.latches.push_back(p);
    if (loop.latches.empty()) continue;
    DenseBitset in(n);
    in.set(h);
    std::vector<BlockId> work;
    for (BlockId t : loop.latches)
      if (!in.test(t)) {
        in.set(t);
        work.push_back(t);
      }
    while (!work.empty()) {
      BlockId b = work.back();
      work.pop_back();
      for (BlockId p : cfg.block(b).preds)
        if (!in.test(p) && cfg.reachable(p)) {
          in.set(p);
          work.push_back(p);
        }
    }
    loop.blocks.push_back(h);
    for (BlockId b = 0; b < n; ++b)
      if (in.test(b) && b != h) loop.blocks.push_back(b);
    for (BlockId b : loop.blocks)
      for (BlockId s : cfg.block(b).succs)
        if (!in.test(s)) loop.exits.push_back({b, s});
    loops_.push_back(std::move(loop));
    member_.push_back(std::move(in));
  }
  // Nesting: loops_ is in RPO of headers, so an enclosing loop precedes the loops it contains;
  // the innermost container of loop l is the last earlier loop whose body holds l's header.
  for (LoopId l = 0; l < loops_.size(); ++l) {
    for (LoopId o = l; o-- > 0;) {
      if (member_[o].test(loops_[l].header)) {
        loops_[l].parent = o;
        loops_[l].depth = loops_[o].depth + 1;
        break;
      }
    }
    for (BlockId b : loops_[l].blocks)
      innermost_[b] = l; // later (inner) loops overwrite
  }
}

LoopId LoopInfo::loop_with_header(BlockId b) const {
  LoopId l = innermost_[b];
  while (l != kNoId && loops_[l].header != b)
    l = loops_[l].parent;
  return l;
}

bool LoopInfo::contains(LoopId l, BlockId b) const {
  return member_[l].test(b);
}

bool LoopInfo::is_back_edge(BlockId from, BlockId to) const {
  LoopId l = loop_with_header(to);
  if (l == kNoId) return false;
  const auto& lat = loops_[l].latches;
  return std::find(lat.begin(), lat.end(), from) != lat.end();
}

} // namespace ptxkit::verifier::analysis
