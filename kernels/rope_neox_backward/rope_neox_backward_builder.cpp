// rope_neox_backward_builder.cpp: rope_neox_backward's registration (its PTX is the shared RoPE
// emitter with the inverse rotation, common/rope_neox_batched_common.h).
#include "rope_neox_backward.h"

#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

PTXKIT_REGISTER_KERNEL(RopeNeoxBackward);

} // namespace ptxkit::kernels
