// rmsnorm.h: the batched, vectorized RMSNorm kernel (config, launch contract,
// reference).
//
//   out[r, i] = x[r, i] / sqrt(mean_j(x[r, j]^2) + eps) * gamma[i]
//
// x, gamma and out are of the config's dtype (f32, f16 or bf16); the arithmetic is f32 and out is
// rounded once. One block per row (grid (rows), row = %ctaid.x) of min(256, chunks rounded up to
// a warp) threads, where a chunk is one 16-byte access (4 floats, 8 halves; 4 halves, 8 bytes,
// when hidden is not a multiple of 8), so `hidden` must be a multiple of 4: the chunks then cover
// every row exactly and never read past its end. (The row is %ctaid.x, not %ctaid.y: grid.y caps
// a launch at 65535 rows, grid.x takes 2^31 - 1.) eps is baked into the PTX (and therefore into
// the cache key).
#pragma once

#include "common/config_fields.h"
#include "common/row_block.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct RmsNormConfig {
  std::uint32_t hidden = 896;
  float eps = 1e-6f;
  std::uint32_t rows = 1;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("hidden", c.hidden, common::hidden_v4_field(65536.0));
    v.field("eps", c.eps,
            common::eps_field("added to mean(x^2) before the reciprocal square root"));
    v.field("rows", c.rows, common::rows_on_grid_x_field());
    v.field("dtype", c.dtype,
            common::dtype_field("element type of x, gamma and out (arithmetic in f32)"));
  }
};

struct RmsNorm {
  PTXKIT_KERNEL_FUNCTIONS(RmsNormConfig);
  static constexpr std::string_view kName = "rmsnorm";
  static constexpr std::string_view kSummary =
      "batched vectorized RMSNorm (f32, f16 or bf16 in and out, f32 arithmetic): out = x / "
      "sqrt(mean(x^2) + eps) * gamma, one block per row (up to 256 threads, sized to the row)";
  static constexpr std::string_view kLimits =
      "hidden a multiple of 4 in [4, 65536] (every row is covered by 16- or 8-byte chunks, none "
      "reads past the row); eps in (0, 1]; rows in [1, 2^31 - 1] (grid.x)";
  // Elements per chunk (one access): row_block::chunk_width.
  static constexpr std::uint32_t chunk_width(const Config& c) {
    return row_block::chunk_width(c.dtype, c.hidden);
  }
  // Threads per block: the row's chunks rounded up to a warp, at most 256.
  static constexpr std::uint32_t threads_for(const Config& c) {
    return row_block::threads_for(c.hidden / chunk_width(c));
  }
  // Rows whose chunks per thread hold at most this many elements stay in registers between the
  // sum of squares and the output (one read of x); longer rows are read twice.
  static constexpr std::uint32_t kMaxRegisterElems = 32;
  static constexpr bool row_in_registers(const Config& c) {
    return row_block::chunks_per_thread(c.hidden / chunk_width(c)) * chunk_width(c) <=
           kMaxRegisterElems;
  }

  static Tolerance tolerance(const Config& c, const HostTensors&);
  static std::vector<BenchCase> bench_cases();
};

// The reference on plain vectors (double accumulation): x is rows*hidden, gamma is hidden; each
// output is rounded to `dtype` (the inputs are already values of it).
std::vector<float> rmsnorm_reference(const std::vector<float>& x, const std::vector<float>& gamma,
                                     std::uint32_t rows, std::uint32_t hidden, float eps,
                                     DType dtype = DType::kF32);

} // namespace ptxkit::kernels
