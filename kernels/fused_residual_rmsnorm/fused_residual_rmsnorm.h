// fused_residual_rmsnorm.h: residual add fused with RMSNorm (config, launch contract, reference).
//
//   sum[r, i] = x[r, i] + residual[r, i]                       (written: the backward pass needs
//   it) out[r, i] = sum[r, i] / sqrt(mean_j(sum[r, j]^2) + eps) * gamma[i]
//
// x, residual, gamma, sum and out are of the config's dtype (f32, f16 or bf16); the arithmetic is
// f32 (the normalization uses the f32 sum) and each output is rounded once.
// One block per row (grid (rows)), T = min(256, chunks rounded up to a warp) threads, a chunk
// being one 16-byte access (4 floats, 8 halves; 4 halves when hidden % 8 != 0): x and
// residual are read once, sum and out written once (the fused kernel moves 4 rows of bytes where
// separate add + rmsnorm move 6; the steps: fused_residual_rmsnorm_builder.cpp). hidden must be a
// multiple of 4 in [4, 16384]; eps is baked. sum may alias x or residual, and out may alias any
// input (every element is read and written by one thread, and every read happens before the block's
// barrier).
#pragma once

#include "common/config_fields.h"
#include "common/row_block.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct FusedResidualRmsNormConfig {
  std::uint32_t hidden = 896;
  float eps = 1e-6f;
  std::uint32_t rows = 1;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("hidden", c.hidden, common::hidden_v4_field(16384.0));
    v.field("eps", c.eps,
            common::eps_field("added to mean(sum^2) before the reciprocal square root"));
    v.field("rows", c.rows, common::rows_on_grid_x_field());
    v.field(
        "dtype", c.dtype,
        common::dtype_field("element type of x, residual, gamma, sum and out (arithmetic in f32)"));
  }
};

struct FusedResidualRmsNorm {
  PTXKIT_KERNEL_FUNCTIONS(FusedResidualRmsNormConfig);
  static constexpr std::string_view kName = "fused_residual_rmsnorm";
  static constexpr std::string_view kSummary =
      "residual add + RMSNorm in one pass: sum = x + residual (written for the backward pass), "
      "out = sum / sqrt(mean(sum^2) + eps) * gamma; f32, f16 or bf16 in and out (f32 "
      "arithmetic); one block per row, row in registers (16-byte chunks)";
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

struct FusedResidualRmsNormOutputs {
  std::vector<float> sum; // x + residual in f32, rounded to the dtype (what the kernel stores)
  std::vector<float> out; // rmsnorm(f32 sum) * gamma (sum of squares in double), rounded
};

// The reference on plain vectors: x and residual are rows*hidden, gamma is hidden; the outputs
// are rounded to `dtype` (the inputs are already values of it).
FusedResidualRmsNormOutputs
fused_residual_rmsnorm_reference(const std::vector<float>& x, const std::vector<float>& residual,
                                 const std::vector<float>& gamma, std::uint32_t rows,
                                 std::uint32_t hidden, float eps, DType dtype = DType::kF32);

} // namespace ptxkit::kernels
