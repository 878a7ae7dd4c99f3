// compare.h: comparing a device result with its CPU reference, element by element.
//
// `ptxkit run` and the device tests report the same figures for every kernel: max absolute and
// relative error, where the worst element is, and how many elements are out of tolerance. An
// element the kernel never wrote still holds the NaN the output was poisoned with, and a NaN is
// never within tolerance, so an unwritten element always fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace ptxkit::runtime {

struct Tolerance {
  double abs = 0; // an element passes when |got - want| <= abs + rel * |want|
  double rel = 0;
};

struct Comparison {
  std::size_t elements = 0;
  std::size_t failures = 0;    // out of tolerance, NaN or size mismatch included
  std::size_t nan_count = 0;   // NaN (or inf) where the reference is finite: unwritten output
  double max_abs_error = 0;    // over the finite elements
  double max_rel_error = 0;    // |got - want| / |want|, over the finite nonzero references
  std::size_t worst_index = 0; // the element with the largest excess over its tolerance
  bool size_mismatch = false;

  bool ok() const { return failures == 0 && !size_mismatch; }
  // "4096 elements: max abs 1.2e-07, max rel 3.4e-06, 0 out of tolerance"
  std::string summary() const;
};

Comparison compare(std::span<const float> got, std::span<const float> want, Tolerance tol);
Comparison compare(std::span<const std::uint32_t> got, std::span<const std::uint32_t> want);

} // namespace ptxkit::runtime
