// compile_fail/store_cache_op_on_load.cpp: a store-only cache operator (.wt) on a load.
//
// PTX: loads take .ca .cg .cs .lu .cv; stores .wb .cg .cs .wt.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: loads take the cache operators
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  auto in = b.param<Ptr<Global, const F32>>("in");
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.ld(in, cache::wt);
#else
  (void)b.ld(in, cache::cg);
#endif
  b.ret();
}
