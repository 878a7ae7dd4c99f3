// compile_fail/cvt_widening_with_rounding.cpp: a rounding mode on a widening float cvt (f16 ->
// f32).
//
// Widening is exact; PTX takes no rounding modifier there.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: widening float cvt is exact
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<F16> h = b.cvt<F16>(b.param<F32>("x"), rn);
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.cvt<F32>(h, rn);
#else
  (void)b.cvt<F32>(h);
#endif
  b.ret();
}
