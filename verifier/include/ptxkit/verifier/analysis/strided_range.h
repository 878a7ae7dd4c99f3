// strided_range.h: a set of integers as an interval with a congruence (a strided interval):
// {x : lo <= x <= hi, x = rem (mod mod)}, with unbounded ends.
//
// Why a congruence: vectorized loops step by 4 or 8 and are guarded by `i < n` with n a multiple
// of the step, so the last i is n - 4, not n - 1; an interval alone would see a 16-byte access
// at element n - 1 and report a read past the end that never happens. The congruence is
// Granger's domain (mod 0: the single value rem), combined with the interval: both ends are kept
// on the lattice of the congruence.
//
// `exact`: the upper end is reached by some execution (built from constants, launch extents,
// guards and operations monotone in each varying operand). An access beyond a buffer whose range
// is exact is an error; one whose range is only an over-approximation is a warning.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace ptxkit::verifier::analysis {

struct StridedRange {
  static constexpr std::int64_t kNegInf = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t kPosInf = std::numeric_limits<std::int64_t>::max();
  // Finite ends beyond this magnitude are made unbounded (no arithmetic overflows).
  static constexpr std::int64_t kLimit = std::int64_t{1} << 62;

  std::int64_t lo = kNegInf, hi = kPosInf;
  std::uint64_t mod = 1; // 0: the single value `rem`
  std::int64_t rem = 0;  // in [0, mod) when mod > 0
  bool exact = true;

  static StridedRange unknown() {
    StridedRange r;
    r.exact = false;
    return r;
  }
  static StridedRange constant(std::int64_t v);
  static StridedRange interval(std::int64_t lo, std::int64_t hi); // stride 1

  bool bounded() const { return lo != kNegInf && hi != kPosInf; }
  bool is_constant() const { return lo == hi && lo != kNegInf; }
  bool empty() const { return lo != kNegInf && hi != kPosInf && lo > hi; }
  // Snap the ends onto the congruence; an empty set stays empty (lo > hi).
  StridedRange& normalize();
  // "0..3584 step 16", "7", "0..+inf"
  std::string str() const;

  bool operator==(const StridedRange&) const = default;
};

StridedRange join(const StridedRange& a, const StridedRange& b);
// a ∩ [lo, hi] (either end may be unbounded): the guard refinement.
StridedRange clamp(const StridedRange& a, std::int64_t lo, std::int64_t hi);
StridedRange add(const StridedRange& a, const StridedRange& b);
StridedRange sub(const StridedRange& a, const StridedRange& b);
StridedRange mul(const StridedRange& a, const StridedRange& b);
StridedRange shl(const StridedRange& a, unsigned k);
// Unsigned/non-negative division and remainder by a positive constant.
StridedRange div_const(const StridedRange& a, std::int64_t c);
StridedRange rem_const(const StridedRange& a, std::int64_t c);
StridedRange shr_const(const StridedRange& a, unsigned k); // a >= 0
StridedRange and_const(const StridedRange& a, std::int64_t m);
StridedRange min(const StridedRange& a, const StridedRange& b);
StridedRange max(const StridedRange& a, const StridedRange& b);
// The value as a `bits`-wide register read unsigned / signed: values the other reading would
// give are mapped (all negative -> + 2^bits) or the range becomes the whole type.
StridedRange as_unsigned(const StridedRange& a, unsigned bits);
StridedRange as_signed(const StridedRange& a, unsigned bits);
// A result of a `bits`-wide operation: finite ends that do not fit the register (under either
// reading) wrapped, so the result is unknown. Unbounded ends are kept: an induction variable
// with no upper bound yet is assumed not to wrap (the loop exits first).
StridedRange fit(const StridedRange& a, unsigned bits);

} // namespace ptxkit::verifier::analysis
