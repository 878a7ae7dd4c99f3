// blackwell_families.cu: corpus source: the sm_100a tcgen05 family (alloc, mma, commit, ld,
// wait, fences, dealloc) through CCCL's cuda::ptx, plus a TMA load into the tensor-memory
// pipeline, as a Blackwell GEMM mainloop emits them.
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

__global__ void __launch_bounds__(128) tcgen05_mainloop(float* out, std::uint64_t desc_a,
                                                        std::uint64_t desc_b, std::uint32_t idesc) {
  __shared__ std::uint32_t tmem_base;
  __shared__ alignas(8) std::uint64_t bar;
  if (threadIdx.x < 32) {
    ptx::tcgen05_alloc(ptx::cta_group_1, &tmem_base, 64);
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);
  }
  if (threadIdx.x == 0) ptx::mbarrier_init(&bar, 1);
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  std::uint32_t tmem = tmem_base;
  if (threadIdx.x == 0) {
    ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem, desc_a, desc_b, idesc, false);
    ptx::tcgen05_commit(ptx::cta_group_1, &bar);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  std::uint32_t v[4];
  ptx::tcgen05_ld_32x32b(v, tmem);
  ptx::tcgen05_wait_ld();
  float s = 0;
  for (std::uint32_t x : v) s += __uint_as_float(x);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x < 32) ptx::tcgen05_dealloc(ptx::cta_group_1, tmem, 64);
}
