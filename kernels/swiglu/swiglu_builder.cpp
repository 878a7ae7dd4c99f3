// swiglu_builder.cpp: the fused SwiGLU as PTX on ptxgen, and its registration.
//
// Per element: t = gate * -log2(e); e = ex2.approx(t) (= exp(-gate)); s = gate / (1 + e)
// (div.full: exact enough and safe for e = inf, which gives -0); out = s * up. Thread layout and
// the scalar tail: elementwise.h (one .v4 group per thread).
#include "common/elementwise.h"
#include "swiglu.h"

#include <ptxkit/kernels/build_support.h>
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
  KernelBuilder b(std::string(kName), target);
  b.reqntid(elementwise::kThreads);
  auto gate = b.param<Ptr<Global, const F32>>("gate");
  auto up = b.param<Ptr<Global, const F32>>("up");
  auto out = b.param<Ptr<Global, F32>>("output");
  elementwise::for_each_group(
      b, c.n, "n",
      [&](Reg<U32> e) {
        auto g = b.ld_v4(gate + e);
        auto u = b.ld_v4(up + e);
        std::array<Reg<F32>, 4> y = g;
        for (std::size_t j = 0; j < 4; ++j)
          y[j] = silu_times(b, g[j], u[j]);
        b.st_v4(out + e, y);
      },
      [&](Imm<U32> e) {
        Reg<U32> i = b.mov(e);
        Reg<F32> g = b.ld(gate + i);
        Reg<F32> u = b.ld(up + i);
        Reg<F32> y = silu_times(b, g, u);
        b.st(out + i, y);
      });
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(SwiGlu);

} // namespace ptxkit::kernels
