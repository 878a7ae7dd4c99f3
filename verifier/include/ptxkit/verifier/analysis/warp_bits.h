// warp_bits.h: per SSA integer value, which high bits are the same in every lane of a warp, which
// low bits are zero, and an unsigned upper bound: known bits combined with divergence analysis.
//
// Why: "uniform or varying" cannot see that `s = uniform*4 + (lane >> 3)` compared with a bound
// that is a multiple of 4 gives the same answer in every lane (lane >> 3 < 4 never carries into
// bit 2, so s >> 2 is uniform and s < 4k is (s >> 2) < k). Loops written that way (each lane owns
// one of the four super-blocks of a warp-wide step) exit together; their full-mask shuffles are
// correct. This analysis proves such comparisons warp-uniform.
//
// Lattice (per value of width w, at warp scope; facts about the value as a w-bit unsigned number):
//   uniform_from u in [0, w]: bits >= u are equal in every lane that computes the value (u = 0:
//     uniform; u = w: nothing known across lanes).
//   low_zero z in [0, w]: bits < z are zero in every lane (a per-lane fact).
//   max: every lane's value is <= max (a per-lane fact; max < 2^k implies u <= k).
// Solved optimistically (every value starts at "not yet seen") by sparse propagation over def-use
// edges; facts only get weaker, and a bound that changes more than a few times is dropped
// (widening), so it terminates. Transfer functions (w-bit modular arithmetic):
//   - immediates: exact. Uniform special registers and values the lane-uniformity analysis calls
//     uniform: u = 0. %laneid: max 31. %tid.x: u = 5 only when warps are runs of 32 consecutive
//     %tid.x (the caller says so: ntid.x a multiple of 32 or a 1-D block); never a range.
//     %ntid.x: low 5 bits zero when the caller says ntid.x is a multiple of 32.
//   - and/or/xor, shl/shr by an immediate, mul/mad by a constant (a power of two 2^s acts as
//     shl s; other constants keep only the low zero bits), div/rem.u by a power of two, cvt
//     between integer types (zero extension, truncation; sign extension of a value known
//     non-negative), min/max (unsigned; signed when the sign bit is in the uniform part).
//   - add a + b: bits >= m = max(u_a, u_b) are uniform when the carry into bit m is the same in
//     every lane: m = 0, or a (or b) has its low m bits zero, or max(a mod 2^m) + max(b mod 2^m)
//     < 2^m (no lane carries). sub a - b: when b's low m bits are zero (no lane borrows).
//   - anything else: u = 0 if every operand is uniform (a pure operation), else nothing.
//   - phi: the join of its inputs (u = max, z = min, max = max), unless the caller marks its block
//     as a divergent merge (lanes may arrive over different edges): then u = w, the per-lane facts
//     still join. A guarded write joins the new and the prior value the same way, depending on
//     whether its guard predicate is uniform.
//   - a use outside a loop of a value defined in it, when the loop has a divergent terminator
//     (lanes left at different iterations): u = w at that use.
//   - predicates (width 1): uniform when the lane-uniformity analysis says so, and comparisons
//     by compare_uniform().
// compare_uniform(setp/set `cmp` a, b): one side x has u_x <= k and the other y is uniform with
// its low k bits zero (k < w): then x = X*2^k + r with r < 2^k and y = Y*2^k, so x < y iff X < Y
// (and x >= y iff X >= Y), the same in every lane. Unsigned lt/lo, ge/hs; le/ls and gt/hi when y
// is an immediate c with c + 1 a multiple of 2^k (x <= c iff x < c + 1); the signed orderings the
// same way (flipping the sign bit, which lies in the uniform part because k < w, turns a signed
// comparison into an unsigned one). eq/ne only when both sides are uniform: x == Y*2^k depends on
// r. Floating-point comparisons are never refined.
#pragma once

#include "ptxkit/verifier/analysis/flat_lists.h"
#include "ptxkit/verifier/analysis/function_analysis.h"

#include <cstdint>
#include <vector>

namespace ptxkit::verifier::analysis {

struct LaneBits {
  std::uint8_t width = 64;               // bits of the value (1 for predicates)
  std::uint8_t uniform_from = 64;        // bits >= this are the same in every lane
  std::uint8_t low_zero = 0;             // bits < this are zero in every lane
  std::uint64_t max = ~std::uint64_t{0}; // unsigned upper bound of every lane's value

  bool uniform() const { return uniform_from == 0; }
  bool operator==(const LaneBits&) const = default;
};

// What the caller's divergence analysis knows about blocks (sizes cfg.size()).
struct WarpBitsInput {
  const std::vector<char>* divergent = nullptr;     // the block ends in a lane-divergent terminator
  const std::vector<char>* merge_varying = nullptr; // phis of the block may merge lanes that came
                                                    // over different edges
  bool tid_x_warp_aligned = false;                  // groups are runs of 2^group_log2 %tid.x
  bool ntid_x_multiple_of_32 = false;               // %ntid.x has its low group_log2 bits zero
  // The threads the facts are about: a warp (2^5) or a warpgroup (2^7, for wgmma), with the
  // lane uniformity of that scope (nullptr: the warp's, a.uniformity).
  unsigned group_log2 = 5;
  const Uniformity* lanes = nullptr;
};

struct WarpBitsSolver;

class WarpBits {
public:
  WarpBits(const FunctionAnalysis& a, const WarpBitsInput& in);
  // The same analysis under more divergence (more divergent blocks, more blocks that may merge
  // lanes: never fewer): the facts weaken from where they are, as a new build would find them.
  void update(const WarpBitsInput& in);
  // The facts about SSA value v (any id; copies read their source), as defined.
  LaneBits value(ValueId v) const;
  // The facts about what operand k of inst reads (registers, immediates, special registers,
  // symbols), at width `width` (0: the value's own), with temporal divergence applied.
  LaneBits operand(InstId inst, std::uint32_t k, unsigned width = 0) const;
  // The setp/set instruction's comparison has the same outcome in every lane (see above).
  bool compare_uniform(InstId inst) const;
  // The guard predicate of inst (a guarded branch, ret or exit) is the same in every lane.
  bool guard_uniform(InstId inst) const;
  // What reads each value (FunctionAnalysis::warp_bit_users keeps it): value ids, or
  // 0x80000000 | an instruction whose defined values read it.
  static FlatLists<std::uint32_t> build_users(const FunctionAnalysis& a);

private:
  friend struct WarpBitsSolver;
  bool compare_uniform_with(InstId inst, WarpBitsSolver& s) const;
  const FunctionAnalysis* a_;
  WarpBitsInput in_;
  std::vector<LaneBits> facts_;
  std::vector<char> seen_;           // facts_[v] computed at least once
  std::vector<char> loop_divergent_; // per loop: contains a divergent terminator
  bool solved_ = false;
};

} // namespace ptxkit::verifier::analysis
