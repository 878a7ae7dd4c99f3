// rope_neox_batched_builder.cpp: rope_neox_batched's PTX (the shared RoPE emitter, token =
// %ctaid.y, position = positions[token]) and its registration.
#include "rope_neox_batched.h"

#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

ptxkit::Expected<GeneratedPtx> RopeNeoxBatched::build(const Config& c, const ptxgen::Target& target,
                                                      const GenOptions& options) {
  return build_rope(kName, c.geometry(), /*batched=*/true, RopeDirection::kForward, target,
                    options);
}

PTXKIT_REGISTER_KERNEL(RopeNeoxBatched);

} // namespace ptxkit::kernels
