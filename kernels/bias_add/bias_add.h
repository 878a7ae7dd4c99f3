// bias_add.h: the bias of a linear layer added to each row (config, launch contract, reference).
//
//   out[r, c] = x[r, c] + bias[c],  r < rows, c < cols
//
// The GEMV/GEMM kernels produce x without its bias (Qwen2's q/k/v projections have one); this
// adds it. x, bias and out are of the config's dtype (f32, f16 or bf16: one f32 add, rounded
// once). One block per row (grid (rows), row = %ctaid.x) of min(256, chunks rounded up to a warp)
// threads, each adding its 16-byte chunks of the row (4 floats, 8 halves; 4 halves when cols % 8
// != 0; common/row_block.h), so cols must be a multiple of 4 in [4, 16384]. cols is baked; rows is
// launch shape only. out may alias x (x is read with plain ld, each element by the thread that
// writes it); bias is read through the read-only path. Buffers 16-byte aligned.
#pragma once

#include "common/config_fields.h"
#include "common/row_block.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct BiasAddConfig {
  std::uint32_t cols = 1152;
  std::uint32_t rows = 1;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("cols", c.cols, common::hidden_v4_field(16384.0));
    v.field("rows", c.rows, common::rows_on_grid_x_field());
    v.field("dtype", c.dtype,
            common::dtype_field("element type of x, bias and out (the add in f32)"));
  }
};

struct BiasAdd {
  PTXKIT_KERNEL_FUNCTIONS(BiasAddConfig);
  static constexpr std::string_view kName = "bias_add";
  static constexpr std::string_view kSummary =
      "bias add: out[r, c] = x[r, c] + bias[c], one block per row (16-byte chunks, unrolled; f32, "
      "f16 or bf16); out may alias x";
  static constexpr std::string_view kLimits =
      "cols a multiple of 4 in [4, 16384] (chunks cover each row exactly); rows in "
      "[1, 2^31 - 1] (grid.x); buffers 16-byte aligned";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0, 0,
            "one f32 add, correctly rounded (then once to the dtype, as the reference does): "
            "bit-exact with the reference"};
  }
  // Elements per chunk (one access): row_block::chunk_width.
  static constexpr std::uint32_t chunk_width(const Config& c) {
    return row_block::chunk_width(c.dtype, c.cols);
  }
  static constexpr std::uint32_t chunks(const Config& c) { return c.cols / chunk_width(c); }
  static std::vector<BenchCase> bench_cases();
};

// The reference on plain vectors: x is rows * cols (cols = bias.size()); the f32 sum rounded to
// `dtype`.
std::vector<float> bias_add_reference(const std::vector<float>& x, const std::vector<float>& bias,
                                      DType dtype = DType::kF32);

} // namespace ptxkit::kernels
