// rope_neox_batched_builder.cpp: rope_neox_batched's registration (its PTX is the shared RoPE
// emitter, common/rope_neox_batched_common.h).
#include "rope_neox_batched.h"

#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

PTXKIT_REGISTER_KERNEL(RopeNeoxBatched);

} // namespace ptxkit::kernels
