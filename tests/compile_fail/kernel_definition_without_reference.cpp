// compile_fail/kernel_definition_without_reference.cpp: a kernel definition with no CPU reference.
//
// Contract: every definition has a CPU reference its device output is compared with, so
// PTXKIT_REGISTER_KERNEL refuses one without, naming the member in plain words.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin: a complete
// definition) it must.
// expected-error: kernel definition Tiny lacks: static ptxkit::Expected<HostTensors>
// reference\(const Config&, const HostTensors&\)
#include "tiny_kernel_p.h"

namespace tiny {

struct Tiny : TinyParts {
#ifndef PTXKIT_COMPILE_FAIL
  static ptxkit::Expected<HostTensors> reference(const Config&, const HostTensors& in) {
    return copy_reference(in);
  }
#endif
  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0, 0, "a copy"};
  }
};

PTXKIT_REGISTER_KERNEL(Tiny);

} // namespace tiny
