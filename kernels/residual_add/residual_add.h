// residual_add.h: elementwise out = a + b over n elements (config, launch contract, reference).
//
// a, b and out are of the config's dtype (f32, f16 or bf16: one f32 add, rounded once). One
// 16-byte group per thread (elementwise.h: 4 floats or 8 halves), so any n: n / G vector groups
// and a scalar tail of n % G elements, nothing read past element n - 1. n is baked (the group count
// and tail are immediates). out may alias a or b (each element is read and written by the same
// thread; the loads are plain ld.global, not .nc, for that reason): the residual stream is usually
// updated in place.
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct ResidualAddConfig {
  std::uint32_t n = 896;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("n", c.n,
            FieldSpec{.doc = "elements (any count: 16-byte groups, then a scalar tail)",
                      .min = 1.0,
                      .max = 2147483648.0});
    v.field("dtype", c.dtype, common::dtype_field("element type of a, b and out (the add in f32)"));
  }
};

struct ResidualAdd {
  PTXKIT_KERNEL_FUNCTIONS(ResidualAddConfig);
  static constexpr std::string_view kName = "residual_add";
  static constexpr std::string_view kSummary =
      "residual add: out = a + b over n elements (f32, f16 or bf16), one 16-byte group per "
      "thread and a scalar tail; out may alias a or b";
  static constexpr std::string_view kLimits =
      "n in [1, 2^31] (any n: the n % 4 (f32) or n % 8 (halves) tail elements are handled with "
      "scalar loads); buffers 16-byte aligned";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0, 0,
            "one f32 add, correctly rounded (then once to the dtype, as the reference does): "
            "bit-exact with the reference"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The reference on plain vectors (f32 addition is exact to the rounding the kernel does too), the
// sum rounded to `dtype` as the kernel's store does.
std::vector<float> residual_add_reference(const std::vector<float>& a, const std::vector<float>& b,
                                          DType dtype = DType::kF32);

} // namespace ptxkit::kernels
