// softmax_rows.h: row softmax, any row length, one launch (config, launch contract, reference).
//
//   out[r, j] = exp(x[r, j] - max_k x[r, k]) / sum_k exp(x[r, k] - max_k x[r, k])
//
// x and out are in `dtype` (f32, f16 or bf16); the arithmetic is f32 and each output is rounded
// once. One block per row (row = %ctaid.x, so up to 2^31 - 1 rows). A row is read in "units" of
// unit_elems elements, as wide as row_len allows every row to start aligned: f32 .v4 chunks when
// row_len % 4 == 0, single floats otherwise; halves 8 at a time (one .v4.b32) when
// row_len % 8 == 0, else 4, 2 or 1.
// The block has threads = clamp(round_up32(ceil(units / 4)), 32, 1024) threads:
// units <= 4 * threads ("registers" mode, rows up to 16384 floats with .v4, 32768 halves) reads
// the row exactly once into registers; longer rows ("loop" mode) are read twice (an online
// (max, sum), then the write, which walks the row backwards so that its first reads hit L2).
// Nothing past the row is read. The algorithm: softmax_rows_builder.cpp.
// Measured on an H200 (2026-11-30): 4.04 TB/s at 65536 rows of 2048 and 4.06 TB/s at 65536 x 896
// (registers mode, read + write); 26 us for 4 vocabulary rows of 151936 (one block per row caps
// it at 4 SMs); special values (-inf, all -inf, NaN, +inf rows) match the reference.
// Special values (as PyTorch): a row holding NaN or +inf gives NaN everywhere in that row; a row
// that is entirely -inf gives NaN; -inf elements of other rows give 0.
// Plain ld.global (not .nc): each thread writes only elements it read itself after the block has
// reduced, so out may alias x (in-place softmax of attention scores).
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct SoftmaxRowsConfig {
  std::uint32_t row_len = 151936;
  std::uint32_t rows = 4;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("row_len", c.row_len,
            FieldSpec{.doc = "elements per row (any; vector units when a multiple of 4, or of 2 "
                             "for halves)",
                      .min = 1.0,
                      .max = 16777216.0});
    v.field("rows", c.rows, common::rows_on_grid_x_field());
    v.field("dtype", c.dtype,
            common::dtype_field("element type of x and out (f32, f16, bf16); arithmetic in f32"));
  }
};

// The row geometry a config implies (shared by the builder, the launch contract and the tests).
struct SoftmaxGeometry {
  std::uint32_t unit_elems = 1; // elements per unit: f32 4 or 1; halves 8, 4, 2 or 1
  std::uint32_t units = 0;      // units per row
  std::uint32_t threads = 0;    // block size
  std::uint32_t per_thread = 0; // ceil(units / threads)
  bool in_registers = false;    // per_thread <= 4: the row is read once
};
[[nodiscard]] SoftmaxGeometry softmax_geometry(std::uint32_t row_len, DType dtype = DType::kF32);

struct SoftmaxRows {
  PTXKIT_KERNEL_FUNCTIONS(SoftmaxRowsConfig);
  static constexpr std::string_view kName = "softmax_rows";
  static constexpr std::string_view kSummary =
      "row softmax, any row length, one block per row (rows up to 16384 floats held in "
      "registers, longer rows looped with an online max/sum), ex2-based";
  static constexpr std::string_view kLimits =
      "row_len in [1, 2^24] (f32 .v4 when a multiple of 4, halves 8/4/2 per access when a "
      "multiple of 8/4/2, scalar otherwise); rows in [1, 2^31 - 1] (grid.x); rows * row_len "
      "elements addressed in 64 bits; out may alias x; NaN or +inf in a row, or a row of only "
      "-inf, gives a NaN row; dtype f32, f16 or bf16";
  static constexpr std::uint32_t kMaxThreads = 1024;

  static Tolerance tolerance(const Config& c, const HostTensors&) {
    switch (c.dtype) {
    case DType::kBF16:
      return {1e-9, 2e-5 + 2 * unit_roundoff(c.dtype),
              "ex2.approx per element and an f32 sum over the row, plus one rounding boundary "
              "of the bf16 output (rel 2^-7)"};
    case DType::kF16:
      // Probabilities below 2^-14 are f16 subnormals, spaced 2^-24 apart: abs covers one step.
      return {0x1p-24, 2e-5 + 2 * unit_roundoff(c.dtype),
              "ex2.approx per element and an f32 sum over the row, plus one rounding boundary "
              "of the f16 output (rel 2^-10; abs 2^-24, one step of the f16 subnormals)"};
    case DType::kF32:
      break;
    }
    return {1e-9, 2e-5, "ex2.approx per element and an f32 sum over the row (probabilities ~1e-5)"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The reference in double (two passes: max, then sum), x is rows * row_len; each output is
// rounded to `dtype`.
std::vector<float> softmax_reference(const std::vector<float>& x, std::uint32_t rows,
                                     std::uint32_t row_len, DType dtype = DType::kF32);

} // namespace ptxkit::kernels
