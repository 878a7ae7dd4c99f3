// compile_fail/kernel_definition_misshaped_bench_cases.cpp: bench_cases with another return type.
//
// Contract: bench_cases is optional, but one declared with another shape is a mistake, not an
// absence; taking it for absent would drop the kernel's cases from `ptxkit bench` in silence.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin: a complete
// definition with one case) it must.
// expected-error: kernel definition Tiny declares bench_cases, but not as: static
// std::vector<BenchCase> bench_cases\(\)
#include "tiny_kernel_p.h"

#include <string>

namespace tiny {

struct Tiny : TinyParts {
  static ptxkit::Expected<HostTensors> reference(const Config&, const HostTensors& in) {
    return copy_reference(in);
  }
  static Tolerance tolerance(const Config&, const HostTensors&) { return {0, 0, "a copy"}; }
#ifdef PTXKIT_COMPILE_FAIL
  static std::vector<std::string> bench_cases() {
    return {"tiny_1M"};
  }
#else
  static std::vector<BenchCase> bench_cases() {
    return {{.name = "tiny_1M", .sets = {"n=1048576"}, .shape = "1048576 f32"}};
  }
#endif
};

PTXKIT_REGISTER_KERNEL(Tiny);

} // namespace tiny
