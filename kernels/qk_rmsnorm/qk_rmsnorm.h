// qk_rmsnorm.h: per-head RMSNorm (QK-norm) over every head of every token in one launch
// (config, launch contract, reference).
//
//   out[t, h, i] = x[t, h, i] / sqrt(mean_j(x[t, h, j]^2) + eps) * gamma[i]      (i < head_dim)
//
// x is [tokens, num_heads, head_dim] (the Q or the K projection, heads contiguous per token) and
// gamma is one [head_dim] vector shared by all heads (q_norm / k_norm). One block per token
// (grid (tokens)); a head is a group of lanes inside one warp (qk_rmsnorm_layout below), so the
// sum of squares is one shfl.bfly tree over the group that leaves the sum in every lane of it,
// with no shared memory and no barrier. Lane l of a group owns the vectors l, l+L, ... of its
// head: consecutive lanes read consecutive vectors (coalesced), and the vectors cover the head
// exactly. head_dim must be a multiple of 32 in [32, 256]; num_heads in [1, 32]. eps is baked.
// out may alias x (in-place QK-norm). x, gamma and out are of the config's dtype (f32, f16 or
// bf16; f32 arithmetic, out rounded once); a vector is then up to 8 halves (16 bytes).
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct QkRmsNormConfig {
  std::uint32_t head_dim = 64;
  std::uint32_t num_heads = 14;
  float eps = 1e-6f;
  std::uint32_t tokens = 1;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("head_dim", c.head_dim,
            FieldSpec{.doc = "elements per head; a head is held by the lanes of one warp",
                      .min = 32.0,
                      .max = 256.0,
                      .multiple_of = 32});
    v.field("num_heads", c.num_heads,
            FieldSpec{.doc = "heads per token (they make up the block)", .min = 1.0, .max = 32.0});
    v.field("eps", c.eps,
            common::eps_field("added to mean(x^2) before the reciprocal square root"));
    v.field("tokens", c.tokens,
            common::launch_shape_field("tokens (positions) per launch (grid.x)", common::kGridXMax,
                                       "launch shape only: grid.x = tokens and each block reads "
                                       "its token from %ctaid.x, so no PTX depends on it"));
    v.field("dtype", c.dtype,
            common::dtype_field("element type of x, gamma and out (arithmetic in f32)"));
  }
};

struct QkRmsNorm {
  PTXKIT_KERNEL_FUNCTIONS(QkRmsNormConfig);
  static constexpr std::string_view kName = "qk_rmsnorm";
  static constexpr std::string_view kSummary =
      "per-head RMSNorm (QK-norm): every head of every token in one launch, a head per lane group "
      "of one warp (16-byte vectors), shfl.bfly all-lanes sum, gamma per head_dim; f32, f16 or "
      "bf16 in and out (f32 arithmetic)";
  static constexpr std::string_view kLimits =
      "head_dim a multiple of 32 in [32, 256] (one warp holds a head); num_heads in [1, 32] "
      "(block <= 1024 threads); eps in (0, 1]; tokens in [1, 2^31 - 1] (grid.x)";

  static Tolerance tolerance(const Config& c, const HostTensors&);
  static std::vector<BenchCase> bench_cases();
};

// How a head maps onto lanes, with vectors of at most `max_width` elements (16 bytes: 4 floats,
// 8 halves). When head_dim / max_width is a power of two of at most 32 (f32 head_dim 32, 64, 128),
// a head is `lanes_per_head` = head_dim / max_width lanes with one vector each (f32 head_dim 64:
// two heads per warp, 16 bytes per lane in flight); otherwise a head is a whole warp and each lane
// takes `vectors_per_lane` vectors of `vector_width` = max_width, ..., 2 or 1 elements (f32
// head_dim 256: two .v4; 96: three scalars). The block is num_heads * lanes_per_head threads
// rounded up to a warp; the lanes past the last head ("phantom" lanes) load the last head again
// and store nothing.
struct QkRmsNormLayout {
  std::uint32_t lanes_per_head;
  std::uint32_t vector_width;
  std::uint32_t vectors_per_lane;
  std::uint32_t threads;
  bool phantom_lanes;
};
constexpr QkRmsNormLayout qk_rmsnorm_layout(std::uint32_t head_dim, std::uint32_t num_heads,
                                            std::uint32_t max_width = 4) {
  const std::uint32_t q = head_dim / max_width;
  std::uint32_t lanes = 32, w = max_width;
  while (w > 1 && head_dim % (32 * w) != 0)
    w /= 2;
  if (head_dim % max_width == 0 && q <= 32 && (q & (q - 1)) == 0) {
    lanes = q;
    w = max_width;
  }
  const std::uint32_t threads = (num_heads * lanes + 31) / 32 * 32;
  return {lanes, w, head_dim / (lanes * w), threads, threads != num_heads * lanes};
}

// The layout of a config: 16-byte vectors of its dtype.
constexpr QkRmsNormLayout qk_rmsnorm_layout(const QkRmsNormConfig& c) {
  return qk_rmsnorm_layout(c.head_dim, c.num_heads, c.dtype == DType::kF32 ? 4 : 8);
}

// The reference on plain vectors (double accumulation): x is tokens*num_heads*head_dim; each
// output is rounded to `dtype` (the inputs are already values of it).
std::vector<float> qk_rmsnorm_reference(const std::vector<float>& x,
                                        const std::vector<float>& gamma, std::uint32_t tokens,
                                        std::uint32_t num_heads, std::uint32_t head_dim, float eps,
                                        DType dtype = DType::kF32);

} // namespace ptxkit::kernels
