// compile_fail/dp4a_float_source.cpp: dp4a multiplies bytes of integer registers; an f32 source
// has no bytes to multiply. The fix is the integer bits (a cvt or a bitcast, as meant).
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: PTX: dp4a/dp2a take .u32 or .s32 sources
#include "ptxkit/ptxgen/ptxgen.h"

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<F32> f = b.param<F32>("f");
  Reg<U32> u = b.tid_x();
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.dp4a(f, u, u);
#else
  (void)b.dp4a(b.bitcast<U32>(f), u, u);
#endif
  b.ret();
}
