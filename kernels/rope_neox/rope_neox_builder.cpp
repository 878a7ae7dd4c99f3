// rope_neox_builder.cpp: rope_neox's PTX (the shared RoPE emitter, one position read from pos[0])
// and its registration.
#include "rope_neox.h"

#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

ptxkit::Expected<GeneratedPtx> RopeNeox::build(const Config& c, const ptxgen::Target& target,
                                               const GenOptions& options) {
  return build_rope(kName, c.geometry(), /*batched=*/false, RopeDirection::kForward, target,
                    options);
}

PTXKIT_REGISTER_KERNEL(RopeNeox);

} // namespace ptxkit::kernels
