// compile_fail/mma_f32_fragments.cpp: mma.m16n8k16 multiplies f16 or bf16 pairs packed in 32-bit
// registers; f32 values are not fragments of it. The fix is the packed halves (cvt_pack, or
// ldmatrix from an f16/bf16 tile).
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: PTX: mma\.m16n8k16 multiplies f16 or bf16
#include "ptxkit/ptxgen/ptxgen.h"

#include <array>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<F32> f = b.param<F32>("f");
#ifdef PTXKIT_COMPILE_FAIL
  std::array<Reg<F32>, 4> a = {f, f, f, f};
  std::array<Reg<F32>, 2> bm = {f, f};
#else
  Reg<BF16x2> h = b.cvt_pack<BF16x2>(f, f);
  std::array<Reg<BF16x2>, 4> a = {h, h, h, h};
  std::array<Reg<BF16x2>, 2> bm = {h, h};
#endif
  (void)b.mma_m16n8k16(a, bm, {f, f, f, f});
  b.ret();
}
