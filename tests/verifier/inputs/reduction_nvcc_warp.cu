// reduction_nvcc_warp.cu: CUDA source of reduction_nvcc_warp.sm_90.ptx (nvcc -O3 -ptx
// -arch=sm_90), the real-compiler input of rule reduction-broadcast's tests. Kernels named *_ok
// must verify clean; each *_bad kernel uses a shfl.down sum, valid in lane 0 only, in every lane.
#include <cub/warp/warp_reduce.cuh>

__device__ float warp_sum_down(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Broadcast from lane 0 with shfl.idx, then normalise in every lane.
__global__ void broadcast_ok(const float* x, float* out) {
  float v = x[threadIdx.x];
  float s = __shfl_sync(0xffffffffu, warp_sum_down(v), 0);
  out[threadIdx.x] = v / s;
}

// Only lane 0 stores the sum.
__global__ void lane0_store_ok(const float* x, float* out) {
  float s = warp_sum_down(x[blockIdx.x * blockDim.x + threadIdx.x]);
  if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = s;
}

// Shared-memory broadcast: lane 0 writes, bar.sync, every lane reads.
__global__ void shared_broadcast_ok(const float* x, float* out) {
  __shared__ float total;
  float v = x[threadIdx.x];
  float s = warp_sum_down(v);
  if (threadIdx.x == 0) total = s;
  __syncthreads();
  out[threadIdx.x] = v / total;
}

// A butterfly reduction is complete in every lane.
__global__ void butterfly_ok(const float* x, float* out) {
  float v = x[threadIdx.x], s = v;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  out[threadIdx.x] = v / s;
}

// CUB's WarpReduce (shfl.down with a predicate output), aggregate stored by lane 0.
__global__ void cub_warp_reduce_ok(const float* x, float* out) {
  using WarpReduce = cub::WarpReduce<float>;
  __shared__ typename WarpReduce::TempStorage temp[4];
  int warp = threadIdx.x / 32;
  float agg = WarpReduce(temp[warp]).Sum(x[threadIdx.x]);
  if (threadIdx.x % 32 == 0) out[warp] = agg;
}

// The lane-0-only sum normalises every lane's element without a broadcast.
__global__ void every_lane_bad(const float* x, float* out) {
  float v = x[threadIdx.x];
  float s = warp_sum_down(v);
  out[threadIdx.x] = v / s;
}

// Every lane adds its partial sum to the total.
__global__ void atomic_every_lane_bad(const float* x, float* out) {
  float s = warp_sum_down(x[threadIdx.x]);
  atomicAdd(out, s);
}

// The sum feeds a per-lane accumulator across a loop.
__global__ void accumulator_bad(const float* x, const float* v, float* out, int n) {
  float acc = 0.f;
  for (int i = 0; i < n; ++i) {
    float s = warp_sum_down(x[i * 32 + threadIdx.x]);
    acc += s * v[i * 32 + threadIdx.x];
  }
  out[threadIdx.x] = acc;
}
