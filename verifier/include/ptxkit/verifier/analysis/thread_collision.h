// thread_collision.h: exact integer search for two threads whose accesses overlap.
//
// Why: a race needs integers, not intervals: `smem[2*tid]` and `smem[2*tid+1]` never meet
// (the difference is odd), `smem[tid]` and `smem[tid+32]` meet for tid 0 and tid 32 when the
// block has 33 threads or more. The question is: are there values of bounded integer variables
// (the two threads' index fields, loop counts) with sum(coef_i * x_i) in [lo, hi] and the two
// threads different (or in different warps), satisfying each thread's branch conditions?
//
// How: depth-first over the variables in decreasing |coef| order; each level keeps only the
// values for which the rest can still reach [lo, hi] (interval bounds of the remaining sum) and
// checks that the gcd of the remaining coefficients divides some number of the remaining range.
// Variables with coefficient 0 that a condition mentions are enumerated last; the others only
// matter for "the threads differ" and are decided without enumeration. Exact when it finishes;
// `exhausted` when the budget of visited nodes runs out (the caller then reports "undecided").
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptxkit::verifier::analysis {

struct SearchVar {
  std::int64_t lo = 0, hi = 0;
  std::int64_t coef = 0;
  std::int32_t twin = -1;  // index of the same thread field of the other thread, or -1
  bool warp_field = false; // differs only between different warps (tid.x bits >= 5, tid.y, .z)
};

// sum(terms) + constant cmp 0, over variable indices.
struct SearchConstraint {
  enum class Cmp : std::uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
  std::vector<std::pair<std::uint32_t, std::int64_t>> terms;
  std::int64_t constant = 0;
  Cmp cmp = Cmp::kEq;
  bool holds(const std::vector<std::int64_t>& x) const;
};

struct SearchResult {
  bool found = false;
  bool exhausted = false;
  std::vector<std::int64_t> values; // when found
};

// `distinct`: some twin pair differs (`other_warp`: some warp_field twin pair differs).
SearchResult search_collision(const std::vector<SearchVar>& vars,
                              const std::vector<SearchConstraint>& constraints, std::int64_t lo,
                              std::int64_t hi, bool other_warp, std::uint32_t budget = 20000);

// Whether some values of `vars` (their coefficients unused) satisfy every constraint: one
// thread, no equation. `exhausted` as above.
SearchResult search_assignment(const std::vector<SearchVar>& vars,
                               const std::vector<SearchConstraint>& constraints,
                               std::uint32_t budget = 20000);

// search_collision with its answers kept: the pairs of accesses of unrolled code ask the same
// question many times (Thrust's algorithms at sm_80: 8,782 searches, 972 distinct).
class CollisionSearches {
public:
  SearchResult find(const std::vector<SearchVar>& vars,
                    const std::vector<SearchConstraint>& constraints, std::int64_t lo,
                    std::int64_t hi, bool other_warp);

private:
  std::unordered_map<std::string, SearchResult> answers_;
  std::string key_; // reused
};

} // namespace ptxkit::verifier::analysis
