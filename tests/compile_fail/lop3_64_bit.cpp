// compile_fail/lop3_64_bit.cpp: lop3 exists only as .b32; a 64-bit value takes two, one per half.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: PTX: lop3 takes .b32
#include "ptxkit/ptxgen/ptxgen.h"

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<U32> u = b.tid_x();
#ifdef PTXKIT_COMPILE_FAIL
  Reg<U64> w = b.cvt<U64>(u);
  (void)b.lop3(w, w, w, 0x96);
#else
  (void)b.lop3(u, u, u, 0x96);
#endif
  b.ret();
}
