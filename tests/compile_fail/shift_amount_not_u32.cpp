// compile_fail/shift_amount_not_u32.cpp: a shift amount that is not u32.
//
// PTX: shl/shr take a .u32 shift amount whatever the shifted type.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: the shift amount is a \.u32 operand
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<U64> x = b.cvt<U64>(b.tid_x());
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.shl(x, b.imm<U64>(3));
#else
  (void)b.shl(x, b.imm<U32>(3));
#endif
  b.ret();
}
