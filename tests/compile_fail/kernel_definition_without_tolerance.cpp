// compile_fail/kernel_definition_without_tolerance.cpp: a kernel definition with no tolerance.
//
// Contract: every definition states how close its device output must be to its reference, so
// PTXKIT_REGISTER_KERNEL refuses one without, naming the member in plain words.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin: a complete
// definition) it must.
// expected-error: kernel definition Tiny lacks: static Tolerance tolerance\(const Config&, const
// HostTensors& inputs\)
#include "tiny_kernel_p.h"

namespace tiny {

struct Tiny : TinyParts {
  static ptxkit::Expected<HostTensors> reference(const Config&, const HostTensors& in) {
    return copy_reference(in);
  }
#ifndef PTXKIT_COMPILE_FAIL
  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0, 0, "a copy"};
  }
#endif
};

PTXKIT_REGISTER_KERNEL(Tiny);

} // namespace tiny
