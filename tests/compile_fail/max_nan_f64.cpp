// compile_fail/max_nan_f64.cpp: min/max .NaN exists for f32, f16 and bf16 (and their x2) only,
// not for f64 or integers.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: PTX: min/max .NaN applies to f32, f16 and bf16
#include "ptxkit/ptxgen/ptxgen.h"

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<F32> f = b.cvt<F32>(b.tid_x(), rn);
#ifdef PTXKIT_COMPILE_FAIL
  Reg<F64> d = b.cvt<F64>(f);
  (void)b.max_nan(d, d);
#else
  Reg<BF16x2> h = b.cvt_pack<BF16x2>(f, f);
  (void)b.max_nan(h, h);
  (void)b.min_nan(f, f);
#endif
  b.ret();
}
