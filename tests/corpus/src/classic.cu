// classic.cu: classic CUDA kernels (tiled transpose and SGEMM, Blelloch scan, shared-memory
// histogram, an online-softmax decode loop, a legacy volatile warp-synchronous reduction, a
// cooperative-groups grid sync) for the verifier's no-false-positive corpus (-rdc=true for
// the grid sync).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define TILE 32
__global__ void transpose(const float* in, float* out, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}
__global__ void sgemm_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < n / 16; ++t) {
    As[threadIdx.y][threadIdx.x] = A[r * n + t * 16 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * 16 + threadIdx.y) * n + c];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[r * n + c] = acc;
}
__global__ void blelloch_scan(int* data) {
  extern __shared__ int s[];
  int t = threadIdx.x, n = 2 * blockDim.x;
  s[2 * t] = data[2 * t]; s[2 * t + 1] = data[2 * t + 1];
  int off = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) { int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1; s[bi] += s[ai]; }
    off *= 2;
  }
  if (t == 0) s[n - 1] = 0;
  for (int d = 1; d < n; d *= 2) {
    off >>= 1;
    __syncthreads();
    if (t < d) { int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1; int x = s[ai]; s[ai] = s[bi]; s[bi] += x; }
  }
  __syncthreads();
  data[2 * t] = s[2 * t]; data[2 * t + 1] = s[2 * t + 1];
}
__global__ void shared_histogram(const unsigned char* in, unsigned* hist, int n) {
  __shared__ unsigned h[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) h[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&h[in[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&hist[i], h[i]);
}
// online softmax decode: one warp per head, scores increase with position
__global__ void decode_online_softmax(const float* q, const float* k, const float* v, float* out, const int* lens, int dim) {
  int head = blockIdx.x, lane = threadIdx.x;
  int n = lens[blockIdx.y];
  float m = -INFINITY, l = 0.f, acc[4] = {0, 0, 0, 0};
  for (int p = 0; p < n; ++p) {
    float s = 0.f;
    for (int d = lane; d < dim; d += 32) s += q[head * dim + d] * k[(size_t)p * dim + d];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    float m_new = fmaxf(m, s);
    float scale = __expf(m - m_new);
    float pexp = __expf(s - m_new);
    l = l * scale + pexp;
    for (int j = 0; j < 4; ++j) acc[j] = acc[j] * scale + pexp * v[(size_t)p * dim + lane + 32 * j];
    m = m_new;
  }
  for (int j = 0; j < 4; ++j) out[head * dim + lane + 32 * j] = acc[j] / l;
}
// legacy warp-synchronous reduction with volatile shared memory (last warp unrolled), in the form
// that is correct under independent thread scheduling: each step reads, syncs the warp, writes and
// syncs again (`vs[t] += vs[t + 16]; __syncwarp();` alone lets lane 16 write vs[16] before lane 0
// reads it: shared-race reports that form)
__global__ void legacy_reduce(const float* in, float* out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned d = 128; d > 32; d >>= 1) { if (t < d) s[t] += s[t + d]; __syncthreads(); }
  if (t < 32) {
    volatile float* vs = s;
    float v = vs[t];
    for (unsigned d = 32; d > 0; d >>= 1) { v += vs[t + d]; __syncwarp(); vs[t] = v; __syncwarp(); }
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
__global__ void grid_sync_two_phase(float* a, float* b, int n) {
  cg::grid_group g = cg::this_grid();
  for (int i = g.thread_rank(); i < n; i += g.size()) a[i] *= 2.f;
  g.sync();
  for (int i = g.thread_rank(); i < n; i += g.size()) b[i] = a[n - 1 - i];
}
