// compile_fail/store_through_const.cpp: a store through a pointer to const data.
//
// Read-only inputs are Ptr<Global, const T>; only ld/ld_nc accept them.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: cannot store through a pointer to const
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  auto in = b.param<Ptr<Global, const F32>>("in");
  auto out = b.param<Ptr<Global, F32>>("out");
  Reg<F32> v = b.ld_nc(in);
#ifdef PTXKIT_COMPILE_FAIL
  b.st(in, v);
#else
  b.st(out, v);
#endif
  b.ret();
}
