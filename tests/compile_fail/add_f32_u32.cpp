// compile_fail/add_f32_u32.cpp: operand-type mismatch: adding an f32 to a u32.
//
// PTX converts nothing implicitly; the fix is an explicit cvt.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: both source operands must have the instruction's type
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<F32> f = b.param<F32>("f");
  Reg<U32> u = b.tid_x();
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.add(f, u);
#else
  (void)b.add(f, b.cvt<F32>(u, rn));
#endif
  b.ret();
}
