// compile_fail/int_mul_without_width.cpp: integer mul without .lo/.hi/.wide.
//
// PTX: integer mul must say which half (or the wide product) it wants.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: integer mul needs \.lo, \.hi or \.wide
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<U32> t = b.tid_x();
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.mul(t, t);
#else
  (void)b.mul_lo(t, t);
#endif
  b.ret();
}
