// compile_fail/ld_shared_through_global.cpp: state-space mismatch: ld.shared through a global
// pointer.
//
// The space is part of the pointer's type; ld_shared() insists on a Ptr<Shared, ...>.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: ld\.<space> needs a pointer of that state space
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  auto g = b.param<Ptr<Global, const F32>>("g");
  Ptr<Shared, F32> s = b.shared_array<F32>("tile", 32);
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.ld_shared(g);
#else
  (void)b.ld_shared(s);
  (void)b.ld_global(g);
#endif
  b.ret();
}
