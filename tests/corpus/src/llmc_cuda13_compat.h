// llmc_cuda13_compat.h: force-included by scripts/make-unseen-corpus.sh into llm.c's sources.
// llm.c targets CUDA 12, where cudaMemAdvise takes a device ordinal; CUDA 13 takes a
// cudaMemLocation. This overload restores the CUDA 12 form so the kernels compile unchanged.
#pragma once
#include <cuda_runtime.h>

inline cudaError_t cudaMemAdvise(const void* ptr, size_t bytes, cudaMemoryAdvise advice,
                                 int device) {
  cudaMemLocation where{};
  where.type = device < 0 ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  where.id = device < 0 ? 0 : device;
  return cudaMemAdvise(ptr, bytes, advice, where);
}
