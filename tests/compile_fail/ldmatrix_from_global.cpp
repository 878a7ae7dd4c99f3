// compile_fail/ldmatrix_from_global.cpp: ldmatrix reads its rows from shared memory only; a tile
// in global memory is staged into shared memory first (cp.async).
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: PTX: ldmatrix reads shared memory
#include "ptxkit/ptxgen/ptxgen.h"

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  auto g = b.param<Ptr<Global, const F16>>("g");
  Ptr<Shared, F16> tile = b.shared_array<F16>("tile", 256, 16);
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.ldmatrix<4>(g);
#else
  (void)g;
  (void)b.ldmatrix<4>(tile);
#endif
  b.ret();
}
