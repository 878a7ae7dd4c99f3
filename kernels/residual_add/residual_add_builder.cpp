// residual_add_builder.cpp: the residual add as PTX on ptxgen, and its registration.
//
// Thread g = %ctaid.x * 256 + %tid.x: for g < n/4, out[4g..4g+3] = a[4g..] + b[4g..] with .v4
// loads and a .v4 store; thread g == n/4 adds the n % 4 tail elements with scalar accesses
// (elementwise.h).
#include "common/elementwise.h"
#include "residual_add.h"

#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

ptxkit::Expected<GeneratedPtx> ResidualAdd::build(const Config& c, const ptxgen::Target& target,
                                                  const GenOptions& options) {
  return elementwise::build_binary(
      kName, target, options, c.n, "a", "b", [](auto& b, auto x, auto y) { return b.add(x, y); },
      c.dtype);
}

PTXKIT_REGISTER_KERNEL(ResidualAdd);

} // namespace ptxkit::kernels
