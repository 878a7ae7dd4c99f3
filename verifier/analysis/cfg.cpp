// cfg.cpp: builds the CFG of cfg.h from FunctionIR's control kinds and resolved targets.
//
// Leaders are found in one pass, edges in a second, and the reverse post-order with an explicit
// stack (a deep CFG must not exhaust the call stack).
#include "ptxkit/verifier/analysis/cfg.h"

#include <algorithm>

namespace ptxkit::verifier::analysis {

Cfg::Cfg(const FunctionIR& ir) : ir_(&ir) {
  const std::uint32_t n = ir.size();
  std::vector<char> leader(n + 1, 0);
  leader[0] = 1;
  for (InstId i = 0; i < n; ++i) {
    const InstInfo& info = ir.info(i);
    if (info.control != ControlKind::kNone) leader[i + 1] = 1;
    for (const InstId* t = ir.targets_begin(i); t != ir.targets_end(i); ++t)
      leader[*t] = 1;
  }
  block_of_.assign(n, kNoId);
  for (InstId i = 0; i < n; ++i) {
    if (leader[i] || blocks_.empty()) blocks_.push_back({i, i, {}, {}, false});
    blocks_.back().end = i + 1;
    block_of_[i] = static_cast<BlockId>(blocks_.size() - 1);
  }
  if (blocks_.empty()) blocks_.push_back({0, 0, {}, {}, true});

  auto block_at = [&](InstId target) -> BlockId { return target >= n ? kNoId : block_of_[target]; };
  auto add_edge = [&](BlockId from, BlockId to) {
    if (to == kNoId) {
      blocks_[from].exits = true;
      return;
    }
    auto& s = blocks_[from].succs;
    if (std::find(s.begin(), s.end(), to) == s.end()) {
      s.push_back(to);
      blocks_[to].preds.push_back(from);
    }
  };
  for (BlockId b = 0; b < blocks_.size(); ++b) {
    const BasicBlock& bb = blocks_[b];
    if (bb.end == bb.begin) {
      blocks_[b].exits = true;
      continue;
    }
    InstId last = bb.end - 1;
    const InstInfo& info = ir.info(last);
    bool guarded = info.guard != kNoId || !info.inst->guard.empty();
    bool falls_through = info.control == ControlKind::kNone || guarded;
    switch (info.control) {
    case ControlKind::kBranch:
    case ControlKind::kIndirect:
      for (const InstId* t = ir.targets_begin(last); t != ir.targets_end(last); ++t)
        add_edge(b, block_at(*t));
      break;
    case ControlKind::kReturn:
    case ControlKind::kExit:
    case ControlKind::kTrap:
      blocks_[b].exits = true;
      break;
    case ControlKind::kNone:
      break;
    }
    if (falls_through) add_edge(b, block_at(bb.end));
  }

  // Reverse post-order over reachable blocks.
  rpo_index_.assign(blocks_.size(), kNoId);
  std::vector<char> seen(blocks_.size(), 0);
  std::vector<std::pair<BlockId, std::uint32_t>> stack;
  std::vector<BlockId> post;
  stack.push_back({0, 0});
  seen[0] = 1;
  while (!stack.empty()) {
    auto& [b, k] = stack.back();
    if (k < blocks_[b].succs.size()) {
      BlockId s = blocks_[b].succs[k++];
      if (!seen[s]) {
        seen[s] = 1;
        stack.push_back({s, 0});
      }
    } else {
      post.push_back(b);
      stack.pop_back();
    }
  }
  rpo_.assign(post.rbegin(), post.rend());
  for (std::uint32_t k = 0; k < rpo_.size(); ++k)
    rpo_index_[rpo_[k]] = k;
}

void Cfg::print(std::ostream& os) const {
  for (BlockId b = 0; b < blocks_.size(); ++b) {
    os << 'B' << b << " [" << blocks_[b].begin << ',' << blocks_[b].end << ") ->";
    for (BlockId s : blocks_[b].succs)
      os << " B" << s;
    if (blocks_[b].exits) os << " exit";
    os << '\n';
  }
}

} // namespace ptxkit::verifier::analysis
