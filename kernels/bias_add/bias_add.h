// bias_add.h: the bias of a linear layer added to each row (config, launch contract, reference).
//
//   out[r, c] = x[r, c] + bias[c],  r < rows, c < cols
//
// The GEMV/GEMM kernels produce x without its bias (Qwen2's q/k/v projections have one); this
// adds it. One block per row (grid (rows), row = %ctaid.x) of min(256, cols/4 rounded up to a
// warp) threads, each adding its .v4 chunks of the row (common/row_block.h), so cols must be a
// multiple of 4 in [4, 16384]. cols is baked; rows is launch shape only. out may alias x (x is read
// with plain ld, each element by the thread that writes it); bias is read through the read-only
// path. Buffers 16-byte aligned.
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct BiasAddConfig {
  std::uint32_t cols = 1152;
  std::uint32_t rows = 1;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("cols", c.cols, common::hidden_v4_field(16384.0));
    v.field("rows", c.rows, common::rows_on_grid_x_field());
  }
};

struct BiasAdd {
  PTXKIT_KERNEL_FUNCTIONS(BiasAddConfig);
  static constexpr std::string_view kName = "bias_add";
  static constexpr std::string_view kSummary =
      "bias add: out[r, c] = x[r, c] + bias[c], one block per row (.v4, unrolled); out may alias x";
  static constexpr std::string_view kLimits =
      "cols a multiple of 4 in [4, 16384] (.v4 chunks cover each row exactly); rows in "
      "[1, 2^31 - 1] (grid.x); buffers 16-byte aligned";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0, 0, "one f32 add, correctly rounded: bit-exact with the reference"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The reference on plain vectors: x is rows * cols (cols = bias.size()).
std::vector<float> bias_add_reference(const std::vector<float>& x, const std::vector<float>& bias);

} // namespace ptxkit::kernels
