// rope_neox.h: RoPE NeoX (half rotation) for one position, all heads (config, launch contract,
// reference): the decode-step kernel.
//
//   y[h, i]     = x[h, i] cos(pos w_i) - x[h, i + d/2] sin(pos w_i)
//   y[h, i+d/2] = x[h, i] sin(pos w_i) + x[h, i + d/2] cos(pos w_i),  w_i = theta^(-2i/d)
//
// x and y are [num_heads, head_dim] in `dtype` (f32, f16 or bf16; y may be x: in place). The
// position is a runtime value read from a one-element u32 device buffer `pos` (so a captured CUDA
// graph can replay a decode step with a new position without re-capturing). theta is baked into the
// PTX (as f64 powers of theta^(-2/head_dim)) and so enters the cache key. Geometry, accuracy and
// the emitter: common/rope_neox_common.h.
#pragma once

#include "common/config_fields.h"
#include "common/rope_neox_common.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct RopeNeoxConfig {
  std::uint32_t head_dim = 64;
  std::uint32_t num_heads = 14;
  float theta = 1e6f;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("head_dim", c.head_dim, rope_head_dim_field());
    v.field("num_heads", c.num_heads,
            FieldSpec{.doc = "heads rotated (14 for Qwen2.5-0.5B's Q, 2 for its K)",
                      .min = 1.0,
                      .max = 65536.0});
    v.field("theta", c.theta, rope_theta_field());
    v.field("dtype", c.dtype,
            common::dtype_field("element type of x and out (f32, f16, bf16); the rotation is f32"));
  }

  [[nodiscard]] RopeGeometry geometry() const { return {head_dim, num_heads, theta, dtype}; }
};

struct RopeNeox {
  PTXKIT_KERNEL_FUNCTIONS(RopeNeoxConfig);
  static constexpr std::string_view kName = "rope_neox";
  static constexpr std::string_view kSummary =
      "RoPE NeoX (half rotation) at one position for all heads; the position is read from a u32 "
      "device buffer, theta is baked";
  static constexpr std::string_view kLimits =
      "head_dim even in [2, 1024] (.v4 when head_dim % 8 == 0, scalar otherwise); "
      "num_heads * head_dim < 2^31; theta finite and > 1; any u32 pos; "
      "output may alias input; dtype f32, f16 or bf16 (x and out)";
  // Positions make_inputs draws from (uniform in [0, kMaxTestPos)).
  static constexpr std::uint32_t kMaxTestPos = 131072;

  static Tolerance tolerance(const Config& c, const HostTensors& in) {
    return rope_tolerance(c.geometry(), in,
                          "(1e-5 + 1.5e-7 * max position) * sqrt(2): f32 inv_freq, "
                          "sin/cos.approx after an exact mod-2pi reduction (docs/kernels.md)");
  }
};

} // namespace ptxkit::kernels
