// swiglu.h: the fused SwiGLU gate of an MLP, out = silu(gate) * up (config, launch contract,
// reference).
//
//   silu(x) = x / (1 + exp(-x)),  exp(-x) = ex2(-x * log2(e))   (one ex2.approx, one div.full)
//
// gate, up and out are of the config's dtype (f32, f16 or bf16; f32 arithmetic, out rounded once).
// One 16-byte group per thread (4 floats or 8 halves) over n elements with a scalar tail
// (common/elementwise.h), so any n and nothing read past element n - 1. gate and up are separate
// [n] buffers (the two halves of the gate_up projection when n is the intermediate size). n is
// baked. out may alias gate or up. Accuracy: ex2.approx and div.full are each within 2 ulp, so silu
// is within a few ulp of the exact value over the whole f32 range; silu(-inf..-88) underflows to -0
// (1 + exp(-x) = inf).
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct SwiGluConfig {
  std::uint32_t n = 4864;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("n", c.n,
            FieldSpec{.doc = "elements of gate, up and out (any count: 16-byte groups, then a "
                             "scalar tail)",
                      .min = 1.0,
                      .max = 2147483648.0});
    v.field("dtype", c.dtype,
            common::dtype_field("element type of gate, up and out (arithmetic in f32)"));
  }
};

struct SwiGlu {
  PTXKIT_KERNEL_FUNCTIONS(SwiGluConfig);
  static constexpr std::string_view kName = "swiglu";
  static constexpr std::string_view kSummary =
      "fused SwiGLU: out = silu(gate) * up, silu(x) = x / (1 + ex2(-x * log2 e)); f32, f16 or "
      "bf16 (f32 arithmetic); one 16-byte group per thread and a scalar tail";
  static constexpr std::string_view kLimits =
      "n in [1, 2^31] (any n: the n % 4 (f32) or n % 8 (halves) tail elements are handled with "
      "scalar loads); buffers 16-byte aligned";

  static Tolerance tolerance(const Config& c, const HostTensors&);
  static std::vector<BenchCase> bench_cases();
};

// silu(x) in double.
double silu_reference(double x);

// The reference on plain vectors (double): out[i] = silu(gate[i]) * up[i], rounded to `dtype`.
std::vector<float> swiglu_reference(const std::vector<float>& gate, const std::vector<float>& up,
                                    DType dtype = DType::kF32);

} // namespace ptxkit::kernels
