// compare.cpp: element-wise comparison of device results with CPU references (see compare.h).
//
// Errors are computed in double so a float reference is compared without further rounding.
#include "ptxkit/runtime/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ptxkit::runtime {

std::string Comparison::summary() const {
  char buf[256];
  if (size_mismatch) {
    std::snprintf(buf, sizeof buf, "size mismatch: %zu elements compared", elements);
    return buf;
  }
  std::snprintf(buf, sizeof buf,
                "%zu elements: max abs %.3g, max rel %.3g, %zu out of tolerance (%zu NaN/inf), "
                "worst at %zu",
                elements, max_abs_error, max_rel_error, failures, nan_count, worst_index);
  return buf;
}

Comparison compare(std::span<const float> got, std::span<const float> want, Tolerance tol) {
  Comparison c;
  c.size_mismatch = got.size() != want.size();
  c.elements = std::min(got.size(), want.size());
  double worst_excess = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < c.elements; ++i) {
    const double g = got[i];
    const double w = want[i];
    if (!std::isfinite(g) || !std::isfinite(w)) {
      // Equal non-finite values (an inf the reference also produces) pass; anything else fails.
      const bool same = (std::isnan(g) && std::isnan(w)) || g == w;
      if (!same) {
        ++c.failures;
        if (std::isfinite(w)) ++c.nan_count;
        if (worst_excess < std::numeric_limits<double>::infinity()) { // the first one is worst
          worst_excess = std::numeric_limits<double>::infinity();
          c.worst_index = i;
        }
      }
      continue;
    }
    const double abs_err = std::fabs(g - w);
    c.max_abs_error = std::max(c.max_abs_error, abs_err);
    if (w != 0) c.max_rel_error = std::max(c.max_rel_error, abs_err / std::fabs(w));
    const double excess = abs_err - (tol.abs + tol.rel * std::fabs(w));
    if (excess > 0) ++c.failures;
    if (excess > worst_excess) {
      worst_excess = excess;
      c.worst_index = i;
    }
  }
  return c;
}

Comparison compare(std::span<const std::uint32_t> got, std::span<const std::uint32_t> want) {
  Comparison c;
  c.size_mismatch = got.size() != want.size();
  c.elements = std::min(got.size(), want.size());
  bool first = true;
  for (std::size_t i = 0; i < c.elements; ++i) {
    if (got[i] == want[i]) continue;
    ++c.failures;
    const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    if (first || d > c.max_abs_error) c.worst_index = i;
    first = false;
    c.max_abs_error = std::max(c.max_abs_error, d);
  }
  return c;
}

} // namespace ptxkit::runtime
