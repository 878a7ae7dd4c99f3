// row_units.h: how wide a row kernel's accesses can be when every row must start aligned for
// them: the elements per access ("unit") of a row of `row_len` elements of `dtype`.
//
// f32 rows keep the two widths the f32 kernels have always used: .v4 (16 bytes) when row_len is a
// multiple of 4, single floats otherwise. Half rows take the widest of 8, 4 or 2 halves (16, 8 or
// 4 bytes, one .v4/.v2/.b32 word access, dtype_access.h) that divides row_len, else single halves.
#pragma once

#include <cstdint>
#include <ptxkit/kernels/dtype.h>

namespace ptxkit::kernels::common {

constexpr std::uint32_t row_unit_elems(std::uint32_t row_len, DType dtype) {
  if (dtype == DType::kF32) return row_len % 4 == 0 ? 4 : 1;
  for (std::uint32_t w : {8u, 4u, 2u})
    if (row_len % w == 0) return w;
  return 1;
}

// log2 of a unit width (1, 2, 4 or 8): the shift from a unit index to its first element.
constexpr std::uint32_t row_unit_shift(std::uint32_t unit_elems) {
  return unit_elems == 8 ? 3 : unit_elems == 4 ? 2 : unit_elems == 2 ? 1 : 0;
}

} // namespace ptxkit::kernels::common
