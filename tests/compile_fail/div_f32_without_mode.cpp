// compile_fail/div_f32_without_mode.cpp: div.f32 with neither .approx, .full nor a rounding mode.
//
// PTX: div.f32 needs exactly one of them.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: need exactly one of \.approx, \.full
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<F32> x = b.param<F32>("x");
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.div(x, x);
#else
  (void)b.div(x, x, full);
#endif
  b.ret();
}
