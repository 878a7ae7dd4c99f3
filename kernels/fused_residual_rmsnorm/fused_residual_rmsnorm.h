// fused_residual_rmsnorm.h: residual add fused with RMSNorm (config, launch contract, reference).
//
//   sum[r, i] = x[r, i] + residual[r, i]                       (written: the backward pass needs
//   it) out[r, i] = sum[r, i] / sqrt(mean_j(sum[r, j]^2) + eps) * gamma[i]
//
// One block per row (grid (rows)), T = min(256, hidden/4 rounded up to a warp) threads: x and
// residual are read once, sum and out written once (the fused kernel moves 4 rows of bytes where
// separate add + rmsnorm move 6; the steps: fused_residual_rmsnorm_builder.cpp). hidden must be a
// multiple of 4 in [4, 16384]; eps is baked. sum may alias x or residual, and out may alias any
// input (every element is read and written by one thread, and every read happens before the block's
// barrier).
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct FusedResidualRmsNormConfig {
  std::uint32_t hidden = 896;
  float eps = 1e-6f;
  std::uint32_t rows = 1;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("hidden", c.hidden, common::hidden_v4_field(16384.0));
    v.field("eps", c.eps,
            common::eps_field("added to mean(sum^2) before the reciprocal square root"));
    v.field("rows", c.rows, common::rows_on_grid_x_field());
  }
};

struct FusedResidualRmsNorm {
  PTXKIT_KERNEL_FUNCTIONS(FusedResidualRmsNormConfig);
  static constexpr std::string_view kName = "fused_residual_rmsnorm";
  static constexpr std::string_view kSummary =
      "residual add + RMSNorm in one pass: sum = x + residual (written for the backward pass), "
      "out = sum / sqrt(mean(sum^2) + eps) * gamma; one block per row, row in registers (.v4)";
  static constexpr std::string_view kLimits =
      "hidden a multiple of 4 in [4, 16384] (.v4 chunks cover each row exactly, at most 16 per "
      "thread); eps in (0, 1]; rows in [1, 2^31 - 1] (grid.x)";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {2e-6, 2e-5, "as rmsnorm; `sum` is one f32 add, correctly rounded"};
  }
  static std::vector<BenchCase> bench_cases();
};

struct FusedResidualRmsNormOutputs {
  std::vector<float> sum; // x + residual, in f32 (what the kernel stores)
  std::vector<float> out; // rmsnorm(sum) * gamma (sum of squares in double)
};

// The reference on plain vectors: x and residual are rows*hidden, gamma is hidden.
FusedResidualRmsNormOutputs fused_residual_rmsnorm_reference(const std::vector<float>& x,
                                                             const std::vector<float>& residual,
                                                             const std::vector<float>& gamma,
                                                             std::uint32_t rows,
                                                             std::uint32_t hidden, float eps);

} // namespace ptxkit::kernels
