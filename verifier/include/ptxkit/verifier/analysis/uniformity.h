// uniformity.h: lane uniformity: which SSA values (and branch conditions) are the same in every
// active lane of a warp, and which blocks only part of a warp reaches.
//
// Why: a reduction result read in every lane, a barrier or full-mask shuffle under lane-varying
// control, a broadcast from a lane-varying source: the rules about warps all start from "is this
// the same in every lane?".
//
// Lattice (per SSA value): uniform ⊑ varying; join = "varying if either is". Values start
// uniform and only ever become varying, so the sparse propagation terminates. Transfer, per
// value kind:
//   - undef: uniform (an arbitrary but unobserved value). `.reg` parameter: uniform in an .entry
//     (there are none), varying in a .func (callers pass per-lane arguments).
//   - phi: varying if an incoming value is varying, or if it is a real merge (not a folded
//     copy) at a block that lanes separated by a divergent branch can reach by different
//     successors (control dependence: the value depends on which way each lane went). The set
//     used is every block reachable from two different successors of a divergent branch, a
//     superset of its join points, so this is sound and may over-approximate.
//   - guarded write: varying if the predicate, the new or the prior value is varying where the
//     write is (a prior value or predicate from a loop that lanes left at different iterations
//     is varying after it).
//   - instruction result: varying if an operand is varying or the instruction reads a varying
//     special register, except for results that are uniform by construction:
//       * uniform special registers: %ctaid, %nctaid, %ntid, %nsmid, %smid, %warpid, %nwarpid,
//         %gridid, cluster ids and ranks, shared-memory sizes, %envregN, %current_graph_exec;
//         varying: %tid, %laneid, %lanemask_*, %clock*, %globaltimer*, %pmN.
//       * `vote.sync`, `redux.sync`, `activemask`, `match.all`, `bar.red`/`barrier.red`: the same
//         result in every participating lane. `elect.sync r|p`: r uniform, p varying.
//       * `shfl.sync.idx` with a uniform source lane b, when c (an immediate, or a register set
//         by `mov` of one) has no segment mask (bits 8..12; with one, each segment reads its own
//         lane) and b & 31 is within the clamp c & 31 (always when the clamp is 31; beyond it
//         a lane reads its own value): uniform whatever it reads.
//       * a complete butterfly reduction: `op x, a, b` (add, mul, min, max, and, or, xor) where
//         b is `shfl.sync.bfly` of a with a full member mask and clamp 31, and the bfly offsets of
//         the chain leading to a, together with this one, cover lanes 1|2|4|8|16.
//       * warp-level functions of %tid.x: `shr tid.x, k>=5`, `div tid.x, 32m`, `and tid.x,
//         mask` with the mask's low 5 bits clear, `setp.lt/ge tid.x, 32m` and `setp.le/gt
//         tid.x, 32m-1` are uniform (warp id, "only warp 0"). Assumption: warps are formed
//         from consecutive %tid.x, i.e. 1-D blocks or ntid.x a multiple of 32; it is dropped
//         when .reqntid proves a 2-D/3-D block with another x extent (.maxntid, which nvcc
//         writes as `N, 1, 1` for any shape, bounds only the thread count).
//       * atom results, `mbarrier` results (test_wait/try_wait report what this thread observed
//         when it polled), `.local` loads, texture/surface reads: varying.
//       * the carry flag is an implicit register: addc/subc/madc are varying when the carry they
//         read is, i.e. when the nearest earlier carry writer of their block (add.cc, sub.cc,
//         mad.cc, or a chained addc.cc...) read a varying operand or carry, or a guarded writer's
//         predicate varies; a carry from another block is not tracked (varying).
//       * `bar.red` results: uniform; at kBlock scope only without a thread count (with one,
//         groups of warps may use the barrier one after the other).
//       * loads through a uniform address: uniform from .const, from .param in an .entry, with
//         `ldu`, and from .global with `.nc` (read-only for the kernel's lifetime). From .shared
//         without `.nc`, uniform if the function writes no shared memory, or if the load follows a
//         bar.sync/barrier.sync in its block with no shared write in between (the broadcast of
//         a value one thread stored before the barrier; sound for race-free kernels: in that
//         barrier phase nobody writes the word every thread reads). From .global (or
//         a generic pointer traced to a kernel parameter or global variable), uniform only if
//         no write of the function may reach the same object: every global/generic write's
//         address is traced to its root (kernel pointer parameter or global variable) through
//         ld.param/cvta/mov/add/sub, and none has the load's root; one untraceable write makes
//         every such load varying. Explicit assumption: the kernel does not write, through
//         one pointer parameter, memory that it reads through another (as with __restrict__). A
//         .param load is uniform only when it reads one of the .entry's own parameters, by name
//         or through a register that holds its address (`mov.b64 %rd, p; add.s64 %rd2, %rd, 8`:
//         a struct passed by value):
//         .param variables declared in the body carry per-thread call arguments and return values,
//         and in a .func every parameter comes from a caller's lane.
//   - a value defined inside a loop that has a divergent branch, read outside that loop, is
//     varying at that read (temporal divergence: lanes left the loop in different iterations).
// A branch (bra/brx.idx guarded by, or indexed with, a varying value) is divergent, and so is a
// guarded ret/exit with a varying predicate (a lane-varying exit).
//
// Assumptions: .func bodies are analysed on their own (as if entered by a full warp); calls are
// opaque and their results (`ld.param` of the return value) are varying.
#pragma once

#include "ptxkit/verifier/analysis/cfg.h"
#include "ptxkit/verifier/analysis/dominators.h"
#include "ptxkit/verifier/analysis/loops.h"
#include "ptxkit/verifier/analysis/value_numbering.h"

#include <cstdint>
#include <vector>

namespace ptxkit::verifier::analysis {

// Which threads "the same" is about. kWarp: the lanes of one warp (shuffles, votes,
// full-mask collectives). kBlock: every thread of the CTA (bar.sync and other CTA barriers): at
// this scope warp-level results (vote, redux, shfl, activemask, match, elect, butterflies,
// %warpid, warp-level functions of %tid.x) are varying unless computed from block-uniform
// values; bar.red results and broadcasts through shared memory after a barrier stay uniform.
enum class UniformityScope : std::uint8_t { kWarp, kBlock };

class Uniformity {
public:
  // `func_params_uniform`: analyse a .func as if every caller passed each argument the same in
  // all lanes (rules use it to tell a divergence of the body from one that depends on callers).
  Uniformity(const ValueNumbering& vn, const DominatorTree& pdom, const LoopInfo& loops,
             UniformityScope scope = UniformityScope::kWarp, bool func_params_uniform = false);
  UniformityScope scope() const { return scope_; }

  // Raw SSA value (any id, leaders included) is the same in every active lane.
  bool is_uniform(ValueId v) const { return v == kNoId || !varying_[v]; }
  // The value operand `operand` (element) of `inst` reads is uniform at that instruction
  // (accounts for temporal divergence). Immediates, symbols and uniform special registers are
  // uniform; varying special registers are not.
  bool operand_uniform(InstId inst, std::uint32_t operand, std::uint32_t element = 0) const;
  // The block ends in a branch whose direction varies across lanes, or in a guarded ret/exit
  // whose predicate varies (some lanes leave).
  bool divergent_terminator(BlockId b) const { return divergent_branch_[b] != 0; }
  // (At UniformityScope::kBlock read "warp" as "CTA" in these four.)
  // Only part of the warp that entered some divergent terminator reaches b before that
  // terminator's reconvergence point (its immediate post-dominator).
  bool partial_warp(BlockId b) const { return partial_[b] != 0; }
  // b is reached by part of a warp that never reconverges with the rest before the function
  // exits: after a lane-varying ret/exit, or down one side of a divergent branch whose sides
  // end separately (no immediate post-dominator but the exit).
  bool after_divergent_exit(BlockId b) const { return after_exit_[b] != 0; }
  // The loop contains a divergent terminator (its lanes may leave at different iterations).
  bool loop_divergent(LoopId l) const { return loop_divergent_[l] != 0; }

  // Whether a special register (e.g. "%tid.x") is uniform across a warp.
  static bool special_register_uniform(std::string_view name,
                                       UniformityScope scope = UniformityScope::kWarp);

private:
  friend struct UniformityBuilder;
  bool varying_at(ValueId v, BlockId use_block) const;
  const ValueNumbering* vn_;
  const LoopInfo* loops_;
  UniformityScope scope_;
  std::vector<char> varying_;
  std::vector<char> divergent_branch_, partial_, after_exit_, join_, loop_divergent_;
};

} // namespace ptxkit::verifier::analysis
