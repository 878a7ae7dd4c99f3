// residual_add_builder.cpp: the residual add as PTX on ptxgen, and its registration.
//
// Thread g = %ctaid.x * 256 + %tid.x: for g < n/4, out[4g..4g+3] = a[4g..] + b[4g..] with .v4
// loads and a .v4 store; thread g == n/4 adds the n % 4 tail elements with scalar accesses
// (elementwise.h).
#include "common/elementwise.h"
#include "residual_add.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;
} // namespace

ptxkit::Expected<GeneratedPtx> ResidualAdd::build(const Config& c, const ptxgen::Target& target,
                                                  const GenOptions& options) {
  KernelBuilder b(std::string(kName), target);
  b.reqntid(elementwise::kThreads);
  auto a = b.param<Ptr<Global, const F32>>("a");
  auto bb = b.param<Ptr<Global, const F32>>("b");
  auto out = b.param<Ptr<Global, F32>>("output");
  elementwise::for_each_group(
      b, c.n, "n",
      [&](Reg<U32> e) {
        auto x = b.ld_v4(a + e);
        auto y = b.ld_v4(bb + e);
        std::array<Reg<F32>, 4> s = x;
        for (std::size_t j = 0; j < 4; ++j)
          s[j] = b.add(x[j], y[j]);
        b.st_v4(out + e, s);
      },
      [&](Imm<U32> e) {
        Reg<U32> i = b.mov(e);
        Reg<F32> x = b.ld(a + i);
        Reg<F32> y = b.ld(bb + i);
        Reg<F32> s = b.add(x, y);
        b.st(out + i, s);
      });
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(ResidualAdd);

} // namespace ptxkit::kernels
