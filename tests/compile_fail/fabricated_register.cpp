// compile_fail/fabricated_register.cpp: a register handle made up by hand instead of by the
// builder.
//
// Reg<T> has no default constructor: every handle comes from an instruction or a parameter.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: no matching (function|constructor)|default constructor
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
#ifdef PTXKIT_COMPILE_FAIL
  Reg<F32> r;
  (void)b.add(r, r);
#else
  Reg<F32> r = b.param<F32>("r");
  (void)b.add(r, r);
#endif
  b.ret();
}
