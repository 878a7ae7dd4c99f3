// rmsnorm.h: the batched, vectorized RMSNorm kernel (config, launch contract,
// reference).
//
//   out[r, i] = x[r, i] / sqrt(mean_j(x[r, j]^2) + eps) * gamma[i]
//
// One block per row (grid (rows), row = %ctaid.x) of min(256, hidden/4 rounded up to a warp)
// threads, .v4 loads and stores, so `hidden` must be a multiple of 4: the vector path then covers
// every row exactly and never reads past its end. (The row is %ctaid.x, not
// %ctaid.y: grid.y caps a launch at 65535 rows, grid.x takes 2^31 - 1.)
// eps is baked into the PTX (and therefore into the cache key).
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct RmsNormConfig {
  std::uint32_t hidden = 896;
  float eps = 1e-6f;
  std::uint32_t rows = 1;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("hidden", c.hidden, common::hidden_v4_field(65536.0));
    v.field("eps", c.eps,
            common::eps_field("added to mean(x^2) before the reciprocal square root"));
    v.field("rows", c.rows, common::rows_on_grid_x_field());
  }
};

struct RmsNorm {
  PTXKIT_KERNEL_FUNCTIONS(RmsNormConfig);
  static constexpr std::string_view kName = "rmsnorm";
  static constexpr std::string_view kSummary =
      "batched vectorized RMSNorm: out = x / sqrt(mean(x^2) + eps) * gamma, one block per row "
      "(up to 256 threads, sized to the row)";
  static constexpr std::string_view kLimits =
      "hidden a multiple of 4 in [4, 65536] (every row is covered by .v4 loads, none reads past "
      "the row); eps in (0, 1]; rows in [1, 2^31 - 1] (grid.x)";
  static constexpr std::uint32_t kMaxThreads = 256;
  // Threads per block: hidden/4 chunks rounded up to a warp, at most kMaxThreads.
  static constexpr std::uint32_t threads_for(std::uint32_t hidden) {
    const std::uint32_t chunks = hidden / 4;
    return chunks >= kMaxThreads ? kMaxThreads : (chunks + 31) / 32 * 32;
  }

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {2e-6, 2e-5, "f32 sum of squares over hidden (tree order) and rsqrt.approx"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The reference on plain vectors (double accumulation): x is rows*hidden, gamma is hidden.
std::vector<float> rmsnorm_reference(const std::vector<float>& x, const std::vector<float>& gamma,
                                     std::uint32_t rows, std::uint32_t hidden, float eps);

} // namespace ptxkit::kernels
