// compile_fail/cp_async_cg_4_bytes.cpp: cp.async.cg (cache in L2 only) exists for 16-byte copies
// only; 4 and 8 bytes are copied with .ca.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: PTX: cp\.async\.cg copies 16 bytes only
#include "ptxkit/ptxgen/ptxgen.h"

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  auto g = b.param<Ptr<Global, const F32>>("g");
  Ptr<Shared, F32> s = b.shared_array<F32>("s", 32, 16);
#ifdef PTXKIT_COMPILE_FAIL
  b.cp_async<4>(s, g, cache::cg);
#else
  b.cp_async<4>(s, g, cache::ca);
  b.cp_async<16>(s + 4, g + 4, cache::cg);
#endif
  b.cp_async_wait_all();
  b.ret();
}
