// swiglu_builder.cpp: the fused SwiGLU as PTX on ptxgen, and its registration.
//
// Per element: t = gate * -log2(e); e = ex2.approx(t) (= exp(-gate)); s = gate / (1 + e)
// (div.full: exact enough and safe for e = inf, which gives -0); out = s * up. Thread layout and
// the scalar tail: elementwise.h (one .v4 group per thread).
#include "common/elementwise.h"
#include "swiglu.h"

#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

Reg<F32> silu_times(KernelBuilder& b, Reg<F32> gate, Reg<F32> up) {
  constexpr float kMinusLog2e = -1.4426950408889634f;
  Reg<F32> e = b.ex2(b.mul(gate, b.imm<F32>(kMinusLog2e)), approx);
  Reg<F32> s = b.div(gate, b.add(e, b.imm<F32>(1.0f)), full);
  return b.mul(s, up);
}

} // namespace

ptxkit::Expected<GeneratedPtx> SwiGlu::build(const Config& c, const ptxgen::Target& target,
                                             const GenOptions& options) {
  return elementwise::build_binary(kName, target, options, c.n, "gate", "up", silu_times, c.dtype);
}

PTXKIT_REGISTER_KERNEL(SwiGlu);

} // namespace ptxkit::kernels
