// compile_fail/mbarrier_in_global_memory.cpp: an mbarrier is a 64-bit object in shared memory;
// the .shared forms the builder prints cannot address one in global memory.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: PTX: an mbarrier is a \.b64 object in shared memory
#include "ptxkit/ptxgen/ptxgen.h"

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
#ifdef PTXKIT_COMPILE_FAIL
  auto bar = b.param<Ptr<Global, B64>>("bar");
#else
  Ptr<Shared, B64> bar = b.shared_array<B64>("bar", 1, 8);
#endif
  b.mbarrier_init(bar, b.imm<U32>(32));
  b.mbarrier_arrive(bar, sink);
  b.ret();
}
