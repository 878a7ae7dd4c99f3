// softmax_rows.h: row softmax, any row length, one launch (config, launch contract, reference).
//
//   out[r, j] = exp(x[r, j] - max_k x[r, k]) / sum_k exp(x[r, k] - max_k x[r, k])
//
// One block per row (row = %ctaid.x, so up to 2^31 - 1 rows). A row is read in "units": .v4
// chunks when row_len % 4 == 0 (every row then starts 16-byte aligned), single floats otherwise.
// The block has threads = clamp(round_up32(ceil(units / 4)), 32, 1024) threads:
// units <= 4 * threads ("registers" mode, rows up to 16384 floats with .v4) reads the row exactly
// once into registers; longer rows ("loop" mode) are read twice (an online (max, sum), then the
// write). Nothing past the row is read. The algorithm: softmax_rows_builder.cpp.
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
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct SoftmaxRowsConfig {
  std::uint32_t row_len = 151936;
  std::uint32_t rows = 4;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("row_len", c.row_len,
            FieldSpec{.doc = "elements per row (any; .v4 when a multiple of 4)",
                      .min = 1.0,
                      .max = 16777216.0});
    v.field("rows", c.rows, common::rows_on_grid_x_field());
  }
};

// The row geometry a config implies (shared by the builder, the launch contract and the tests).
struct SoftmaxGeometry {
  bool vec4 = false;            // units are .v4 chunks
  std::uint32_t units = 0;      // chunks (vec4) or floats per row
  std::uint32_t threads = 0;    // block size
  std::uint32_t per_thread = 0; // ceil(units / threads)
  bool in_registers = false;    // per_thread <= 4: the row is read once
};
[[nodiscard]] SoftmaxGeometry softmax_geometry(std::uint32_t row_len);

struct SoftmaxRows {
  PTXKIT_KERNEL_FUNCTIONS(SoftmaxRowsConfig);
  static constexpr std::string_view kName = "softmax_rows";
  static constexpr std::string_view kSummary =
      "row softmax, any row length, one block per row (rows up to 16384 floats held in "
      "registers, longer rows looped with an online max/sum), ex2-based";
  static constexpr std::string_view kLimits =
      "row_len in [1, 2^24] (.v4 when a multiple of 4, scalar otherwise); rows in [1, 2^31 - 1] "
      "(grid.x); rows * row_len elements addressed in 64 bits; out may alias x; NaN or +inf in a "
      "row, or a row of only -inf, gives a NaN row";
  static constexpr std::uint32_t kMaxThreads = 1024;

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {1e-9, 2e-5, "ex2.approx per element and an f32 sum over the row (probabilities ~1e-5)"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The reference in double (two passes: max, then sum), x is rows * row_len.
std::vector<float> softmax_reference(const std::vector<float>& x, std::uint32_t rows,
                                     std::uint32_t row_len);

} // namespace ptxkit::kernels
