// strided_range.cpp: the transfer functions of strided intervals (strided_range.h).
#include "ptxkit/verifier/analysis/strided_range.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace ptxkit::verifier::analysis {

namespace {

using R = StridedRange;
constexpr std::int64_t kNegInf = R::kNegInf, kPosInf = R::kPosInf, kLimit = R::kLimit;

std::uint64_t uabs(std::int64_t v) {
  return v < 0 ? std::uint64_t(0) - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

std::int64_t norm_rem(std::int64_t r, std::uint64_t m) {
  if (m == 0) return r;
  if (m > static_cast<std::uint64_t>(kLimit)) return r;
  auto mm = static_cast<std::int64_t>(m);
  return ((r % mm) + mm) % mm;
}

// A finite sum or product, or nullopt when it leaves [-kLimit, kLimit].
std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t s = 0;
  if (__builtin_add_overflow(a, b, &s) || s > kLimit || s < -kLimit) return std::nullopt;
  return s;
}
std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t s = 0;
  if (__builtin_mul_overflow(a, b, &s) || s > kLimit || s < -kLimit) return std::nullopt;
  return s;
}

R with_cong(R r, std::uint64_t m, std::int64_t rem) {
  r.mod = m;
  r.rem = norm_rem(rem, m);
  return r.normalize();
}

// Congruence of a*b (Granger): a = r1 + m1 i, b = r2 + m2 j.
std::pair<std::uint64_t, std::int64_t> mul_cong(const R& a, const R& b) {
  std::uint64_t m = 0;
  std::int64_t r = 0;
  std::int64_t t1 = 0, t2 = 0, t3 = 0;
  auto m1 = static_cast<std::int64_t>(std::min<std::uint64_t>(a.mod, kLimit));
  auto m2 = static_cast<std::int64_t>(std::min<std::uint64_t>(b.mod, kLimit));
  if (__builtin_mul_overflow(static_cast<std::int64_t>(uabs(a.rem)), m2, &t1) ||
      __builtin_mul_overflow(static_cast<std::int64_t>(uabs(b.rem)), m1, &t2) ||
      __builtin_mul_overflow(m1, m2, &t3) || __builtin_mul_overflow(a.rem, b.rem, &r))
    return {1, 0};
  m = std::gcd(std::gcd(static_cast<std::uint64_t>(t1), static_cast<std::uint64_t>(t2)),
               static_cast<std::uint64_t>(t3));
  return {m, r};
}

} // namespace

StridedRange StridedRange::constant(std::int64_t v) {
  if (v > kLimit || v < -kLimit) return unknown();
  R r;
  r.lo = r.hi = r.rem = v;
  r.mod = 0;
  return r;
}

StridedRange StridedRange::interval(std::int64_t lo, std::int64_t hi) {
  R r;
  r.lo = lo;
  r.hi = hi;
  return r.normalize();
}

StridedRange& StridedRange::normalize() {
  if (lo != kNegInf && lo < -kLimit) lo = kNegInf;
  if (hi != kPosInf && hi > kLimit) hi = kPosInf;
  if (mod == 0) {
    if ((lo != kNegInf && rem < lo) || (hi != kPosInf && rem > hi)) {
      lo = 1, hi = 0; // empty
      return *this;
    }
    lo = hi = rem;
    return *this;
  }
  rem = norm_rem(rem, mod);
  if (mod > 1 && mod <= static_cast<std::uint64_t>(kLimit)) {
    if (lo != kNegInf) lo += norm_rem(rem - lo, mod);
    if (hi != kPosInf) hi -= norm_rem(hi - rem, mod);
  }
  if (lo != kNegInf && lo == hi) {
    mod = 0;
    rem = lo;
  }
  return *this;
}

std::string StridedRange::str() const {
  auto end = [](std::int64_t v) {
    return v == kNegInf ? std::string("-inf") : v == kPosInf ? "+inf" : std::to_string(v);
  };
  if (is_constant()) return std::to_string(lo);
  std::string s = end(lo) + ".." + end(hi);
  if (mod > 1) s += " step " + std::to_string(mod);
  return s;
}

StridedRange join(const StridedRange& a, const StridedRange& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  R r;
  r.lo = std::min(a.lo, b.lo);
  r.hi = std::max(a.hi, b.hi);
  r.exact = a.exact && b.exact;
  std::uint64_t m = std::gcd(std::gcd(a.mod, b.mod), uabs(a.rem - b.rem));
  return with_cong(r, m, a.rem);
}

StridedRange clamp(const StridedRange& a, std::int64_t lo, std::int64_t hi) {
  R r = a;
  if (lo != kNegInf && (r.lo == kNegInf || lo > r.lo)) r.lo = lo;
  if (hi != kPosInf && (r.hi == kPosInf || hi < r.hi)) {
    r.hi = hi;
    r.exact = true; // a guard's bound is taken as reached
  }
  if (r.mod == 0) {
    R c = a;
    if ((lo != kNegInf && c.rem < lo) || (hi != kPosInf && c.rem > hi)) c.lo = 1, c.hi = 0;
    return c;
  }
  return r.normalize();
}

StridedRange add(const StridedRange& a, const StridedRange& b) {
  R r;
  if (a.lo == kNegInf || b.lo == kNegInf) {
    r.lo = kNegInf;
  } else if (auto s = checked_add(a.lo, b.lo)) {
    r.lo = *s;
  } else {
    return R::unknown();
  }
  if (a.hi == kPosInf || b.hi == kPosInf) {
    r.hi = kPosInf;
  } else if (auto s = checked_add(a.hi, b.hi)) {
    r.hi = *s;
  } else {
    return R::unknown();
  }
  r.exact = a.exact && b.exact;
  return with_cong(r, std::gcd(a.mod, b.mod), a.rem + b.rem);
}

StridedRange sub(const StridedRange& a, const StridedRange& b) {
  R nb;
  nb.lo = b.hi == kPosInf ? kNegInf : -b.hi;
  nb.hi = b.lo == kNegInf ? kPosInf : -b.lo;
  nb.mod = b.mod;
  nb.rem = norm_rem(-b.rem, b.mod);
  nb.exact = b.exact;
  R r = add(a, nb);
  r.exact = a.exact && b.is_constant();
  return r;
}

StridedRange mul(const StridedRange& a, const StridedRange& b) {
  if (a.is_constant() && b.is_constant()) {
    auto p = checked_mul(a.lo, b.lo);
    return p ? R::constant(*p) : R::unknown();
  }
  if (b.is_constant() && !a.is_constant()) return mul(b, a);
  auto [m, rem] = mul_cong(a, b);
  R r;
  if (a.is_constant()) {
    std::int64_t c = a.lo;
    if (c == 0) return R::constant(0);
    std::int64_t x = b.lo, y = b.hi;
    auto scale = [&](std::int64_t v, bool low) -> std::optional<std::int64_t> {
      if (v == kNegInf || v == kPosInf) return ((v == kPosInf) == (c > 0)) ? kPosInf : kNegInf;
      (void)low;
      return checked_mul(v, c);
    };
    auto p = scale(c > 0 ? x : y, true), q = scale(c > 0 ? y : x, false);
    if (!p || !q) return R::unknown();
    r.lo = *p;
    r.hi = *q;
    r.exact = b.exact && c > 0;
    return with_cong(r, m, rem);
  }
  if (a.bounded() && b.bounded()) {
    std::int64_t c[4];
    std::int64_t xs[] = {a.lo, a.hi}, ys[] = {b.lo, b.hi};
    int k = 0;
    for (std::int64_t x : xs)
      for (std::int64_t y : ys) {
        auto p = checked_mul(x, y);
        if (!p) return R::unknown();
        c[k++] = *p;
      }
    r.lo = *std::min_element(c, c + 4);
    r.hi = *std::max_element(c, c + 4);
    r.exact = false;
    return with_cong(r, m, rem);
  }
  if (a.lo >= 0 && b.lo >= 0 && a.lo != kNegInf && b.lo != kNegInf) {
    auto p = checked_mul(a.lo, b.lo);
    if (!p) return R::unknown();
    r.lo = *p;
    r.hi = kPosInf;
    r.exact = false;
    return with_cong(r, m, rem);
  }
  return R::unknown();
}

StridedRange shl(const StridedRange& a, unsigned k) {
  if (k >= 62) return R::unknown();
  return mul(a, R::constant(std::int64_t{1} << k));
}

StridedRange div_const(const StridedRange& a, std::int64_t c) {
  if (c <= 0 || a.lo == kNegInf || a.lo < 0) return R::unknown();
  if (a.is_constant()) return R::constant(a.lo / c);
  R r;
  r.lo = a.lo / c;
  r.hi = a.hi == kPosInf ? kPosInf : a.hi / c;
  r.exact = a.exact;
  if (a.mod > 0 && a.mod % static_cast<std::uint64_t>(c) == 0)
    return with_cong(r, a.mod / static_cast<std::uint64_t>(c), a.rem / c);
  return r.normalize();
}

StridedRange shr_const(const StridedRange& a, unsigned k) {
  if (k >= 62) return R::constant(0);
  return div_const(a, std::int64_t{1} << k);
}

StridedRange rem_const(const StridedRange& a, std::int64_t c) {
  if (c <= 0 || a.lo == kNegInf || a.lo < 0) return R::unknown();
  if (a.is_constant()) return R::constant(a.lo % c);
  if (a.hi != kPosInf && a.hi < c) return a;
  std::uint64_t g = std::gcd(a.mod, static_cast<std::uint64_t>(c));
  R r;
  r.lo = 0;
  r.hi = c - 1;
  r.exact = a.mod == 1 && a.bounded() && a.hi - a.lo >= c - 1 && a.exact;
  return with_cong(r, g, a.rem);
}

StridedRange and_const(const StridedRange& a, std::int64_t m) {
  if (a.is_constant()) return R::constant(a.lo & m);
  if (m == 0) return R::constant(0);
  R r;
  if (m > 0 && (m & (m + 1)) == 0) { // a low mask 2^j - 1: x mod 2^j
    std::uint64_t g = std::gcd(a.mod, static_cast<std::uint64_t>(m) + 1);
    if (a.lo != kNegInf && a.lo >= 0 && a.hi != kPosInf && a.hi <= m) return a;
    if (a.bounded() && a.lo >= 0 && (a.lo & ~m) == (a.hi & ~m)) {
      r.lo = a.lo & m;
      r.hi = a.hi & m;
      r.exact = a.exact;
      return with_cong(r, g, a.rem);
    }
    r.lo = 0;
    r.hi = m;
    r.exact = a.exact && a.mod == 1 && a.bounded() && a.hi - a.lo >= m;
    return with_cong(r, g, a.rem);
  }
  r.lo = 0;
  r.hi = (m > 0) ? m : kPosInf;
  if (a.lo != kNegInf && a.lo >= 0 && a.hi != kPosInf) r.hi = m > 0 ? std::min(m, a.hi) : a.hi;
  if (m < 0 && (a.lo == kNegInf || a.lo < 0)) return R::unknown();
  r.exact = false;
  unsigned tz = static_cast<unsigned>(__builtin_ctzll(static_cast<std::uint64_t>(m)));
  return with_cong(r, tz >= 62 ? 1 : std::uint64_t{1} << tz, 0);
}

StridedRange min(const StridedRange& a, const StridedRange& b) {
  R r = join(a, b);
  r.lo = std::min(a.lo, b.lo);
  r.hi = std::min(a.hi, b.hi);
  r.exact = a.exact && b.exact;
  return r.normalize();
}

StridedRange max(const StridedRange& a, const StridedRange& b) {
  R r = join(a, b);
  r.lo = std::max(a.lo, b.lo);
  r.hi = std::max(a.hi, b.hi);
  r.exact = a.exact && b.exact;
  return r.normalize();
}

StridedRange as_unsigned(const StridedRange& a, unsigned bits) {
  if (a.lo != kNegInf && a.lo >= 0) return a;
  if (bits >= 63) return R::unknown();
  std::int64_t span = std::int64_t{1} << bits;
  if (a.lo != kNegInf && a.hi < 0) return add(a, R::constant(span));
  R r = R::interval(0, span - 1);
  r.exact = false;
  return r;
}

StridedRange as_signed(const StridedRange& a, unsigned bits) {
  if (bits >= 63) return a;
  std::int64_t half = std::int64_t{1} << (bits - 1);
  if (a.hi == kPosInf || a.hi < half) return a;
  if (a.lo != kNegInf && a.lo >= half) return sub(a, R::constant(2 * half));
  R r = R::interval(-half, half - 1);
  r.exact = false;
  return r;
}

StridedRange fit(const StridedRange& a, unsigned bits) {
  if (bits >= 63 || a.empty()) return a;
  std::int64_t half = std::int64_t{1} << (bits - 1), span = 2 * half;
  bool lo_inf = a.lo == kNegInf, hi_inf = a.hi == kPosInf;
  if (lo_inf && hi_inf) return a;
  bool as_signed_ok = (lo_inf || a.lo >= -half) && (hi_inf || a.hi <= half - 1);
  bool as_unsigned_ok = (!lo_inf && a.lo >= 0) && (hi_inf || a.hi <= span - 1);
  if (as_signed_ok || as_unsigned_ok) return a;
  return R::unknown();
}

} // namespace ptxkit::verifier::analysis
