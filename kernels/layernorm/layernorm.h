// layernorm.h: LayerNorm over rows (config, launch contract, reference).
//
//   mean = mean_j x[r, j];  var = mean_j (x[r, j] - mean)^2
//   out[r, i] = (x[r, i] - mean) / sqrt(var + eps) * gamma[i] + beta[i]
//
// x, gamma, beta and out are of the config's dtype (f32, f16 or bf16; f32 arithmetic, out rounded
// once). One block per row (grid (rows)), T = min(256, chunks rounded up to a warp) threads, a
// chunk being one 16-byte access (4 floats, 8 halves; 4 halves when hidden % 8 != 0); the row is
// read once and the variance is two-pass (no E[x^2] - mean^2 cancellation; the steps:
// layernorm_builder.cpp). hidden must be a multiple of 4 (the chunks then cover every row
// exactly and none reads past its end) and at most 16384 (at most 16 chunks per thread in
// registers). eps is baked into the PTX, so it is in the cache key. out may alias x (each element
// is read and written by one thread).
#pragma once

#include "common/config_fields.h"
#include "common/row_block.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct LayerNormConfig {
  std::uint32_t hidden = 896;
  float eps = 1e-6f;
  std::uint32_t rows = 1;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("hidden", c.hidden, common::hidden_v4_field(16384.0));
    v.field("eps", c.eps,
            common::eps_field("added to the variance before the reciprocal square root"));
    v.field("rows", c.rows, common::rows_on_grid_x_field());
    v.field("dtype", c.dtype,
            common::dtype_field("element type of x, gamma, beta and out (arithmetic in f32)"));
  }
};

struct LayerNorm {
  PTXKIT_KERNEL_FUNCTIONS(LayerNormConfig);
  static constexpr std::string_view kName = "layernorm";
  static constexpr std::string_view kSummary =
      "LayerNorm: out = (x - mean) / sqrt(var + eps) * gamma + beta, one block per row, the row "
      "held in registers (16-byte chunks), two-pass variance; f32, f16 or bf16 in and out (f32 "
      "arithmetic)";
  static constexpr std::string_view kLimits =
      "hidden a multiple of 4 in [4, 16384] (chunks cover each row exactly, at most 16 per "
      "thread); eps in (0, 1]; rows in [1, 2^31 - 1] (grid.x)";
  // Elements per chunk (one access): row_block::chunk_width.
  static constexpr std::uint32_t chunk_width(const Config& c) {
    return row_block::chunk_width(c.dtype, c.hidden);
  }
  static constexpr std::uint32_t chunks(const Config& c) { return c.hidden / chunk_width(c); }

  static Tolerance tolerance(const Config& c, const HostTensors&);
  static std::vector<BenchCase> bench_cases();
};

// The reference on plain vectors (mean and variance in double): x is rows*hidden, gamma and beta
// are hidden; each output is rounded to `dtype` (the inputs are already values of it).
std::vector<float> layernorm_reference(const std::vector<float>& x, const std::vector<float>& gamma,
                                       const std::vector<float>& beta, std::uint32_t rows,
                                       std::uint32_t hidden, float eps, DType dtype = DType::kF32);

} // namespace ptxkit::kernels
