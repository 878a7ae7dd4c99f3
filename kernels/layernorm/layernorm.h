// layernorm.h: LayerNorm over rows (config, launch contract, reference).
//
//   mean = mean_j x[r, j];  var = mean_j (x[r, j] - mean)^2
//   out[r, i] = (x[r, i] - mean) / sqrt(var + eps) * gamma[i] + beta[i]
//
// One block per row (grid (rows)), T = min(256, hidden/4 rounded up to a warp) threads; the row is
// read once and the variance is two-pass (no E[x^2] - mean^2 cancellation; the steps:
// layernorm_builder.cpp). hidden must be a multiple of 4 (the .v4 chunks then cover every row
// exactly and none reads past its end) and at most 16384 (at most 16 chunks per thread in
// registers). eps is baked into the PTX, so it is in the cache key. out may alias x (each element
// is read and written by one thread).
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct LayerNormConfig {
  std::uint32_t hidden = 896;
  float eps = 1e-6f;
  std::uint32_t rows = 1;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("hidden", c.hidden, common::hidden_v4_field(16384.0));
    v.field("eps", c.eps,
            common::eps_field("added to the variance before the reciprocal square root"));
    v.field("rows", c.rows, common::rows_on_grid_x_field());
  }
};

struct LayerNorm {
  PTXKIT_KERNEL_FUNCTIONS(LayerNormConfig);
  static constexpr std::string_view kName = "layernorm";
  static constexpr std::string_view kSummary =
      "LayerNorm: out = (x - mean) / sqrt(var + eps) * gamma + beta, one block per row, the row "
      "held in registers (.v4), two-pass variance";
  static constexpr std::string_view kLimits =
      "hidden a multiple of 4 in [4, 16384] (.v4 chunks cover each row exactly, at most 16 per "
      "thread); eps in (0, 1]; rows in [1, 2^31 - 1] (grid.x)";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {2e-6, 2e-5, "f32 mean and variance (two tree reductions), rsqrt.approx"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The reference on plain vectors (mean and variance in double): x is rows*hidden, gamma and beta
// are hidden.
std::vector<float> layernorm_reference(const std::vector<float>& x, const std::vector<float>& gamma,
                                       const std::vector<float>& beta, std::uint32_t rows,
                                       std::uint32_t hidden, float eps);

} // namespace ptxkit::kernels
