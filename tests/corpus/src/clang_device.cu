// clang_device.cu: corpus source for clang-14's own CUDA device compiler (LLVM NVPTX backend).
// clang 14 cannot include the CUDA 13 headers (they dropped texture<>, which its wrapper needs),
// so this file is self-contained (-nocudainc -nocudalib) and uses clang's NVVM builtins.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

extern "C" __device__ float block_sum(float v) {
  __shared__ float partial[32];
  unsigned lane = __nvvm_read_ptx_sreg_tid_x() & 31u;
  unsigned warp = __nvvm_read_ptx_sreg_tid_x() >> 5;
  for (int off = 16; off > 0; off >>= 1) v += __nvvm_shfl_sync_down_f32(0xffffffffu, v, off, 31);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < (__nvvm_read_ptx_sreg_ntid_x() >> 5) ? partial[lane] : 0.0f;
  if (warp == 0)
    for (int off = 16; off > 0; off >>= 1) v += __nvvm_shfl_sync_down_f32(0xffffffffu, v, off, 31);
  return v;
}

extern "C" __global__ void saxpy_rmsnorm(float* out, const float* x, const float* y, float a,
                                         float eps, int n) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
          __nvvm_read_ptx_sreg_tid_x();
  float v = i < n ? a * x[i] + y[i] : 0.0f;
  float ss = block_sum(v * v);
  __shared__ float inv;
  if (__nvvm_read_ptx_sreg_tid_x() == 0) inv = __nvvm_rsqrt_approx_f(ss / n + eps);
  __syncthreads();
  if (i < n) out[i] = v * inv;
}

extern "C" __global__ void histogram256(unsigned* hist, const unsigned char* data, int n) {
  __shared__ unsigned local[256];
  for (unsigned b = __nvvm_read_ptx_sreg_tid_x(); b < 256; b += __nvvm_read_ptx_sreg_ntid_x())
    local[b] = 0;
  __syncthreads();
  for (int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
               __nvvm_read_ptx_sreg_tid_x();
       i < n; i += __nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_ntid_x())
    __nvvm_atom_add_gen_i(reinterpret_cast<int*>(&local[data[i]]), 1);
  __syncthreads();
  for (unsigned b = __nvvm_read_ptx_sreg_tid_x(); b < 256; b += __nvvm_read_ptx_sreg_ntid_x())
    __nvvm_atom_add_gen_i(reinterpret_cast<int*>(&hist[b]), static_cast<int>(local[b]));
}
