// compile_fail/two_rounding_modes.cpp: two rounding modes on one instruction.
//
// PTX: at most one rounding modifier.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: at most one rounding modifier
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<F32> x = b.param<F32>("x");
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.add(x, x, rn | rz);
#else
  (void)b.add(x, x, rn | ftz);
#endif
  b.ret();
}
