// compile_fail/cp_async_bulk_from_shared.cpp: the bulk copy into shared memory reads global
// memory; a shared source would be the cluster form (another CTA's shared memory), which the
// builder does not offer. The space is the pointer's type, so the mix-up does not compile.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: the source is a Ptr<Global
#include "ptxkit/ptxgen/ptxgen.h"

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  auto g = b.param<Ptr<Global, const F32>>("g");
  Ptr<Shared, F32> staged = b.shared_array<F32>("staged", 128, 16);
  Ptr<Shared, F32> s = b.shared_array<F32>("s", 128, 16);
  Ptr<Shared, B64> bar = b.shared_array<B64>("bar", 1, 8);
  b.mbarrier_init(bar, b.imm<U32>(1));
  b.mbarrier_arrive_expect_tx(bar, b.imm<U32>(512), sink);
#ifdef PTXKIT_COMPILE_FAIL
  b.cp_async_bulk(s, staged, b.imm<U32>(512), bar);
#else
  (void)staged;
  b.cp_async_bulk(s, g, b.imm<U32>(512), bar);
#endif
  b.mbarrier_wait_parity(bar, b.imm<U32>(0));
  b.ret();
}
