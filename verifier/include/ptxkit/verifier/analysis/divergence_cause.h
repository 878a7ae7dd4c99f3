// divergence_cause.h: which lane-varying branch or exit puts a block in a partial-warp region,
// and which instructions are warp/CTA collectives with a member mask.
//
// Why: rules about collectives (barrier-divergence, partial-warp-collective) report a
// collective reached by part of a warp; the finding must show both sides of the problem — the
// collective and the divergent terminator that split the warp — so the reader sees why.
//
// Cause: block d "causes" b when d ends in a divergent terminator (Uniformity) and b is
// reachable from a successor of d without passing d's immediate post-dominator (for a
// lane-varying exit or sides that never reconverge, the post-dominator is the virtual exit, so
// every later block counts). Of several causes the one latest in reverse post-order (closest to
// b) is returned.
#pragma once

#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/flat_lists.h"
#include "ptxkit/verifier/analysis/function_analysis.h"
#include "ptxkit/verifier/analysis/split_edges.h"
#include "ptxkit/verifier/analysis/warp_bits.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxkit::verifier::analysis {

// Warp divergence: Uniformity's lane-level facts, refined for conditions that vary across lanes
// of a block but not within a warp. A divergent terminator whose predicate is warp-uniform is not
// divergent: the predicate is computed (setp/and/or/not/add/shl/.../cvt/mov, through `kDef`
// values only) from lane-uniform values, from the warp index `%tid.x >> k` (k >= 5),
// `%tid.x / (32*m)`, `%tid.x & ~31` — when `.reqntid` makes ntid.x a multiple of 32, or the
// block is 1-D (its .reqntid has y = z = 1; .maxntid bounds only the thread count; assumed without
// a launch bound, as CUB and every `threadIdx.x / 32` warp id do) — and from %tid.y/%tid.z when
// ntid.x is a multiple of 32 (warps are runs of 32 consecutive linear thread ids). A phi is
// warp-uniform when its inputs are and its block lies in no divergent region and is no divergent
// block's reconvergence point (a greatest fixpoint over the def-use graph of the whole function:
// every value starts uniform and becomes varying when its operands' current facts say so, its users
// are then re-evaluated, so loop counters started from the warp index stay uniform and no answer
// rests on an assumption made while walking a cycle; rounds repeat with the regions the last one
// found until no terminator becomes divergent, at most one round per block). A value defined in a
// loop that has a divergent block is varying where it is read outside that loop (temporal
// divergence). A loop test `setp.lt x, C` on a header phi x = phi(start, x + s) (s > 0) is uniform
// when every start in the range of `start` gives the same trip count ceil((C - start) / s): the
// lanes leave together even though x differs between them (the generated q4k_gemv's one-iteration
// block loop). At warp level (not `thread_level`), a comparison or guard that WarpBits
// (warp_bits.h) proves uniform is too: x < y where x's bits from k up are the same in every lane
// and y is uniform with its low k bits zero (`(warp & 1) * 4 + (lane >> 3) < 4m`, any m). At both
// levels, a load of memory the threads share (.shared, .global, or a generic address that cannot
// be the thread's own stack; not volatile/relaxed/acquire) from an address the same in every
// thread (a symbol, or a uniform register) is uniform: in a race-free kernel nobody writes that
// word in the barrier phase in which the threads read it (CUTLASS's `beta = *params.beta_ptr`).
// Regions are then recomputed from the remaining divergent terminators: partial(b) when b is
// reachable from one before its immediate post-dominator, after_exit(b) when that post-dominator is
// the function's exit (a lane-varying ret/exit, or sides that never reconverge).
class WarpDivergence {
public:
  // `thread_level`: for CTA-wide barriers, where a branch that is uniform per warp but differs
  // between warps is divergent too: the base facts are the CTA-scope uniformity
  // (a.block_uniformity: votes, shuffles, %warpid, merges after `tid < 32` are varying), there is
  // no warp-index or warp-bits refinement, and any value data-dependent on %tid/%laneid is
  // divergent whatever the uniformity says.
  //
  // `assume_whole_warps_in_x` (warp level, functions without .reqntid only): take
  // ntid.x to be a multiple of 32, so every warp lies in one (y, z) row and
  // `(ctaid.x * ntid.x + tid.x) >> 5` is a warp index. Rules use it to tell a real lane-varying
  // branch (an error) from one that is uniform under the launch shape nearly every kernel uses
  // but the PTX does not declare (a warning that asks for .reqntid).
  //
  // `lanes`: the lane uniformity to refine instead of a.uniformity / a.block_uniformity (one built
  // with different assumptions, such as a .func's arguments uniform).
  WarpDivergence(const Module& m, const FunctionAnalysis& a, bool thread_level,
                 bool assume_whole_warps_in_x = false, const Uniformity* lanes = nullptr);
  // The same facts for a warpgroup, the 4 consecutive warps (128 threads) that execute a wgmma
  // together: uniform means the same in all 128 threads. The base facts are the CTA scope's
  // (a.block_uniformity); the group index %tid.x >> k (k >= 7), %tid.x / 128m, %tid.x & ~127,
  // comparisons on 128-thread boundaries and the WarpBits refinement at that granularity are
  // uniform; a one-lane shuffle broadcast is not (each warp broadcasts its own lane).
  struct WarpgroupScope {};
  WarpDivergence(const Module& m, const FunctionAnalysis& a, WarpgroupScope);
  bool warpgroup() const { return group_log2_ == 7; }
  // Whether this function declares no block shape (.reqntid; .maxntid bounds only the count), so
  // that the assumption above can change the answer.
  static bool launch_shape_unknown(const FunctionAnalysis& a);
  bool divergent(BlockId d) const { return divergent_[d] != 0; }
  bool partial(BlockId b) const { return partial_[b] != 0; }
  bool after_exit(BlockId b) const { return after_exit_[b] != 0; }
  // The terminator of the divergent block that causes b (the latest in reverse post-order), or
  // kNoId.
  InstId cause(BlockId b) const { return cause_except(b, kNoId); }
  // The same, leaving out the divergent block `except`, or considering only the block `only`
  // (kNoId: every divergent block).
  InstId cause_except(BlockId b, BlockId except, BlockId only = kNoId) const;
  // v is the same in every lane (thread, at thread level), by the last round's fixpoint.
  bool warp_uniform(ValueId v) const;
  // v read in use_block is the same in every lane: warp_uniform(v), and v is not defined in a
  // loop with a divergent terminator that use_block lies outside of (lanes left it at
  // different iterations).
  bool warp_uniform_at(ValueId v, BlockId use_block) const;
  // inst is unguarded, or its guard predicate is the same in every lane (thread): every lane
  // that reaches inst executes it.
  bool guard_uniform(InstId inst) const;

  // Why v, read in use_block, differs between lanes: a short trail from v back to where the
  // difference starts (a thread-index read, a load or atomic whose result is per-lane, a merge
  // after a lane-varying branch, a value that lanes leave a loop with at different iterations),
  // at most `max_steps` instructions, nearest first. Empty when v is uniform.
  struct VaryingStep {
    InstId inst = kNoId;
    std::string why;
  };
  std::vector<VaryingStep> explain(ValueId v, BlockId use_block, std::size_t max_steps = 4) const;

  // The graph for_each_user walks (FunctionAnalysis::divergence_users keeps it): per leader,
  // what reads it: a phi or guarded write's value id, or kInstructionUser | an instruction
  // whose defined leaders read it.
  static FlatLists<std::uint32_t> build_users(const FunctionAnalysis& a);

private:
  void compute_tid_dependent();
  void solve_uniform(bool first_round, const std::vector<char>& loops_before);
  void compute_divergent();
  void compute_regions();
  void compute_loop_divergent();
  // b holds nothing but the kernel's ret/exit: lanes that reach it leave.
  bool kernel_exit_block(BlockId b) const;
  bool compute_warp_uniform(ValueId v) const;
  bool operand_uniform(InstId i, std::uint32_t k) const;
  bool uniform_trip_count(InstId setp) const;
  // The load reads memory shared by the threads (global or shared, or a generic address that
  // cannot be the thread's own stack) without synchronizing semantics (volatile, relaxed,
  // acquire): from a uniform address, every lane reads the same value in a race-free kernel.
  bool plain_load_of_shared_memory(InstId load) const;
  // Uniform high bits of the current round's facts (warp level only), built on first use.
  const WarpBits& bits() const;
  const FunctionAnalysis* a_;
  // Lane uniformity at the level asked: the warp's (a.uniformity) or, at thread level, the
  // CTA's (a.block_uniformity: warp-level results such as votes, shuffles, %warpid, and merges
  // and loop exits after branches that keep warps whole but split the block, are varying).
  const Uniformity* lanes_;
  const AddressProvenance& ranges_; // a.provenance(m): shared with the rules
  bool thread_level_ = false;
  unsigned group_log2_ = 5; // the threads "uniform" is about: 2^5 (a warp) or 2^7 (a warpgroup)
  void run(bool assume_whole_warps_in_x);
  static constexpr std::uint32_t kInstructionUser = 0x80000000u;
  const FlatLists<std::uint32_t>* users_ = nullptr; // a.divergence_users()
  // Calls f(leader) for every leader whose facts read `leader`.
  template <class F>
  void for_each_user(ValueId leader, F&& f) const;
  template <class F>
  static void for_each_defined_leader(const FunctionAnalysis& a, InstId i, F&& f);
  std::vector<char> tid_dep_; // per leader: data-dependent on the thread index
  std::vector<char> uniform_; // per leader: this round's fixpoint
  bool x_multiple_of_32_ = false;
  bool warp_index_ok_ = false;
  std::vector<char> divergent_, partial_, after_exit_;
  std::vector<std::uint32_t> divergent_round_; // per block: the round it became divergent in
  // Edges lanes split at a divergent block may take into a block of its region or its
  // reconvergence point (split_edges.h).
  std::vector<SplitEdge> split_edges_;
  std::vector<char> reconverge_; // the immediate post-dominator of a divergent block
  // per loop: lanes may leave it at different iterations (previous round's divergent blocks)
  std::vector<char> loop_divergent_;
  mutable std::vector<char> merge_varying_;
  mutable std::unique_ptr<WarpBits> bits_;
  mutable bool bits_stale_ = false; // the round changed the inputs since bits_ was solved
};

// The member-mask operand of a `.sync` warp collective (shfl.sync, vote.sync, match.sync,
// redux.sync, bar.warp.sync), or kNoId when `inst` is none of these.
std::uint32_t member_mask_operand(const Instruction& inst);

// The constant value of operand `operand` of instruction `i`: an integer immediate, or a
// register whose value (through copies) was set by `mov` of an immediate. nullopt otherwise.
std::optional<std::int64_t> constant_operand(const FunctionAnalysis& a, InstId i,
                                             std::uint32_t operand);

} // namespace ptxkit::verifier::analysis
