// cfg.h: the control-flow graph of one function: basic blocks over FunctionIR's instructions.
//
// Why: every dataflow fact in the verifier is a fact about paths, and paths are CFG paths.
// Construction:
//   - A block starts at the first instruction, at every label target, and after every branch,
//     ret, exit or trap (guarded or not).
//   - `bra L`: an edge to L; `@p bra L` adds the fall-through edge. `brx.idx i, tbl`: an edge to
//     every label of tbl's `.branchtargets` list (plus fall-through when guarded).
//   - `ret`, `exit`, `trap`: no successor (an edge to the virtual exit); when guarded they also
//     fall through. `call` falls through (a callee that does not return is not modelled).
//   - A label at the very end of the body, and falling off the end, lead to the virtual exit.
//   - Blocks unreachable from the entry are kept (rules may ignore them: `reachable(b)`).
// Blocks are numbered in source order; block 0 is the entry (an empty body has one empty block).
#pragma once

#include "ptxkit/verifier/analysis/function_ir.h"

#include <cstdint>
#include <ostream>
#include <vector>

namespace ptxkit::verifier::analysis {

struct BasicBlock {
  InstId begin = 0; // first instruction
  InstId end = 0;   // one past the last
  std::vector<BlockId> succs;
  std::vector<BlockId> preds;
  bool exits = false; // has an edge to the virtual exit (ret/exit/trap/end of body)
};

class Cfg {
public:
  explicit Cfg(const FunctionIR& ir);

  const FunctionIR& ir() const { return *ir_; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(blocks_.size()); }
  const BasicBlock& block(BlockId b) const { return blocks_[b]; }
  BlockId entry() const { return 0; }
  BlockId block_of(InstId i) const { return block_of_[i]; }
  bool reachable(BlockId b) const { return rpo_index_[b] != kNoId; }
  // Reachable blocks in reverse post-order (entry first).
  const std::vector<BlockId>& rpo() const { return rpo_; }
  std::uint32_t rpo_index(BlockId b) const { return rpo_index_[b]; }
  // The last instruction of b, or kNoId for an empty block.
  InstId terminator(BlockId b) const {
    return blocks_[b].end > blocks_[b].begin ? blocks_[b].end - 1 : kNoId;
  }

  // Graphviz-ish text dump for tests and debugging: "B0 [0,3) -> B1 B2".
  void print(std::ostream& os) const;

private:
  const FunctionIR* ir_;
  std::vector<BasicBlock> blocks_;
  std::vector<BlockId> block_of_;
  std::vector<BlockId> rpo_;
  std::vector<std::uint32_t> rpo_index_;
};

} // namespace ptxkit::verifier::analysis
