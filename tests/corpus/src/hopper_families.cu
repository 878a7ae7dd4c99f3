// hopper_families.cu: corpus source: the sm_90(a) instruction families as real compilers emit
// them: cp.async (+ .bulk, .bulk.tensor), mbarrier, wgmma, mma, ldmatrix/stmatrix, fence.proxy,
// elect, setmaxnreg, griddepcontrol, cp.async.bulk commit/wait, st.async, multimem-free cluster
// ops. CCCL's cuda::ptx emits what it wraps; the rest is inline asm in the form CUTLASS uses.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

__device__ inline std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1)
    tma_pipeline(const __grid_constant__ CUtensorMap tmap, float* out, const float* in, int n) {
  __shared__ alignas(128) float tile[2][32 * 32];
  __shared__ alignas(8) std::uint64_t bar[2];
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar[0], 1);
    ptx::mbarrier_init(&bar[1], 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  std::uint32_t elected = 0;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}"
               : "=r"(elected));
  if (elected && threadIdx.x < 32) {
    const std::int32_t coords[2] = {static_cast<std::int32_t>(blockIdx.x) * 32, 0};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile[0], &tmap, coords,
                              &bar[0]);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar[0],
                                   sizeof(tile[0]));
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tile[1], in, 4096, &bar[1]);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar[0], 0)) {
  }
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(smem_addr(&tile[1][threadIdx.x * 4])),
               "l"(in + threadIdx.x * 4));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();
  float acc = tile[0][threadIdx.x] + tile[1][threadIdx.x];
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out, tile[1], 4096);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  }
  asm volatile("griddepcontrol.launch_dependents;");
  if (threadIdx.x + blockIdx.x * blockDim.x < n) out[threadIdx.x + blockIdx.x * blockDim.x] = acc;
}

__global__ void __launch_bounds__(128) tensor_core_ops(float* out, const __half* a) {
  __shared__ alignas(128) __half sa[64 * 16];
  __shared__ alignas(128) __half sb[16 * 64];
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x) {
    sa[i] = a[i];
    sb[i] = a[i];
  }
  __syncthreads();
  std::uint32_t r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_addr(&sa[(threadIdx.x % 32) * 8])));
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(r0), "r"(r1));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
                   smem_addr(&sb[(threadIdx.x % 32) * 8])),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3));
  std::uint64_t desc_a = (smem_addr(sa) >> 4) & 0x3FFF;
  std::uint64_t desc_b = (smem_addr(sb) >> 4) & 0x3FFF;
  float acc[8] = {};
#ifndef NO_WGMMA  // wgmma is sm_90a only; the sm_100a build leaves it out
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %10, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
               "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n\t}"
               : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]),
                 "+f"(acc[5]), "+f"(acc[6]), "+f"(acc[7])
               : "l"(desc_a), "l"(desc_b), "r"(1));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#endif
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
  float s = d0 + d1 + d2 + d3;
  for (float v : acc) s += v;
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
