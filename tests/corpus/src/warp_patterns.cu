// warp_patterns.cu: correct warp-level idioms of hand-written CUDA (cooperative-groups tiles,
// ballot/activemask partial masks, redux.sync, match_any, warp-per-row early exits, named
// barriers, cp.async, segmented shuffles) for the verifier's no-false-positive corpus.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// 1. cooperative groups: reduce over tiles of 16 and 8
__global__ void cg_tile_reduce(const float* x, float* out, int n) {
  auto block = cg::this_thread_block();
  auto tile16 = cg::tiled_partition<16>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.f;
  float s = cg::reduce(tile16, v, cg::plus<float>());
  auto tile8 = cg::tiled_partition<8>(block);
  float m = cg::reduce(tile8, v, cg::greater<float>());
  if (tile16.thread_rank() == 0) atomicAdd(out, s);
  if (tile8.thread_rank() == 0) atomicAdd(out + 1, m);
}

// 2. a partial-mask reduction inside a divergent branch (mask from ballot; redux.sync gives every
// active lane the sum, so the first active lane may store it)
__global__ void ballot_mask_reduce(const int* x, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned mask = __ballot_sync(0xffffffffu, i < n);
  if (i < n) {
    int v = __reduce_add_sync(mask, x[i]);
    if ((threadIdx.x & 31) == __ffs(mask) - 1) atomicAdd(out, v);
  }
}

// 3. warp-aggregated atomics with __activemask
__global__ void aggregated_increment(int* counter, int* slots, const int* flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flags[i]) {
    unsigned active = __activemask();
    int leader = __ffs(active) - 1;
    int lane = threadIdx.x & 31;
    int base = 0;
    if (lane == leader) base = atomicAdd(counter, __popc(active));
    base = __shfl_sync(active, base, leader);
    slots[i] = base + __popc(active & ((1u << lane) - 1));
  }
}

// 4. match_any and syncwarp in divergent code
__global__ void match_groups(const int* keys, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned active = __activemask();
    unsigned peers = __match_any_sync(active, keys[i]);
    __syncwarp(active);
    out[i] = __popc(peers);
  }
}

// 5. whole warps leave before full-warp shuffles (warp-uniform early exit)
__global__ void warp_per_row(const float* x, float* y, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= rows) return;
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += x[(size_t)warp * cols + c];
  for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
  if (lane == 0) y[warp] = s;
}

// 6. block reduction with a loop over blockDim (uniform trip count) and __syncthreads inside
__global__ void block_tree_reduce(const float* x, float* y) {
  extern __shared__ float sh[];
  unsigned t = threadIdx.x;
  sh[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) sh[t] += sh[t + s];
    __syncthreads();
  }
  if (t == 0) y[blockIdx.x] = sh[0];
}

// 7. loop bound loaded from memory (uniform address) with full-warp shuffles in the loop
__global__ void loaded_trip_count(const int* lens, const float* x, float* y) {
  int n = lens[blockIdx.x];
  float acc = 0.f;
  for (int j = 0; j < n; ++j) {
    float v = x[(size_t)blockIdx.x * 1024 + j * 32 + (threadIdx.x & 31)];
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    acc += v;
  }
  if (threadIdx.x == 0) y[blockIdx.x] = acc;
}

// 8. named barriers for warp specialization: producers and consumers sync on barrier 1 (64 threads)
__global__ void named_barrier_pipeline(const float* x, float* y) {
  __shared__ float buf[64];
  int warp = threadIdx.x >> 5;
  if (warp < 2) {
    buf[threadIdx.x] = x[blockIdx.x * 64 + threadIdx.x];
    asm volatile("bar.arrive 1, 128;");
  } else {
    asm volatile("bar.sync 1, 128;");
    y[blockIdx.x * 64 + threadIdx.x - 64] = buf[threadIdx.x - 64] * 2.f;
  }
}

// 9. cp.async double buffering
__global__ void cp_async_copy(const float4* x, float4* y, int tiles) {
  __shared__ float4 stage[2][128];
  int t = threadIdx.x;
  for (int k = 0; k < tiles; ++k) {
    unsigned dst = (unsigned)__cvta_generic_to_shared(&stage[k & 1][t]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(x + k * 128 + t));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncthreads();
    y[k * 128 + t] = stage[k & 1][(t + 1) & 127];
    __syncthreads();
  }
}

// 10. shuffle with width 8 (segments) on a uniform branch
__global__ void segmented_scan(const int* x, int* y) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int d = 1; d < 8; d <<= 1) {
    int u = __shfl_up_sync(0xffffffffu, v, d, 8);
    if ((threadIdx.x & 7) >= d) v += u;
  }
  y[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
