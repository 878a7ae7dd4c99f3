// compile_fail/cvt_f32_s32_without_rounding.cpp: cvt from f32 to s32 without an integer rounding
// mode.
//
// PTX requires .rni/.rzi/.rmi/.rpi for every float-to-integer cvt.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: cvt from float to integer requires an integer rounding mode
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<F32> x = b.param<F32>("x");
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.cvt<S32>(x);
#else
  (void)b.cvt<S32>(x, rzi);
#endif
  b.ret();
}
