// compile_fail/ex2_without_approx.cpp: ex2.f32 without .approx.
//
// PTX defines ex2.f32 only as ex2.approx{.ftz}.f32.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: ex2 requires \.approx
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<F32> x = b.param<F32>("x");
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.ex2(x, rn);
#else
  (void)b.ex2(x, approx | ftz);
#endif
  b.ret();
}
