// rope_neox_backward_builder.cpp: rope_neox_backward's PTX (the shared RoPE emitter with the
// inverse rotation) and its registration.
#include "rope_neox_backward.h"

#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

ptxkit::Expected<GeneratedPtx>
RopeNeoxBackward::build(const Config& c, const ptxgen::Target& target, const GenOptions& options) {
  return build_rope(kName, c.geometry(), /*batched=*/true, RopeDirection::kInverse, target,
                    options);
}

PTXKIT_REGISTER_KERNEL(RopeNeoxBackward);

} // namespace ptxkit::kernels
