// residual_add.h: elementwise out = a + b over n floats (config, launch contract, reference).
//
// One .v4 group per thread (elementwise.h), so any n: n / 4 vector groups and a scalar tail of
// n % 4 elements, nothing read past element n - 1. n is baked (the group count and tail are
// immediates). out may alias a or b (each element is read and written by the same thread; the
// loads are plain ld.global, not .nc, for that reason): the residual stream is usually updated
// in place.
#pragma once

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct ResidualAddConfig {
  std::uint32_t n = 896;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("n", c.n,
            FieldSpec{.doc = "elements (any count: .v4 groups, then a scalar tail of n % 4)",
                      .min = 1.0,
                      .max = 2147483648.0});
  }
};

struct ResidualAdd {
  PTXKIT_KERNEL_FUNCTIONS(ResidualAddConfig);
  static constexpr std::string_view kName = "residual_add";
  static constexpr std::string_view kSummary =
      "residual add: out = a + b over n floats, one .v4 group per thread and a scalar tail; out "
      "may alias a or b";
  static constexpr std::string_view kLimits =
      "n in [1, 2^31] (any n: n % 4 tail elements are handled with scalar loads); buffers 16-byte "
      "aligned";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0, 0, "one f32 add, correctly rounded: bit-exact with the reference"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The reference on plain vectors (f32 addition is exact to the rounding the kernel does too).
std::vector<float> residual_add_reference(const std::vector<float>& a, const std::vector<float>& b);

} // namespace ptxkit::kernels
