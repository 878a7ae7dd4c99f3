// softmax_nvcc_decode.cu: CUDA source of softmax_nvcc_decode.sm_90.ptx (nvcc -O3 -ptx -arch=sm_90): a
// one-warp online-softmax decode loop, for rule softmax-rescale-saved-max. `decode` (exp2f) and
// `decode_expf` (precise expf: the difference reaches ex2 through an fma/cvt expansion) are
// correct; `decode_bug` has the stale running maximum: the old maximum aliases the new one, so
// nvcc emits `sub.f32 %fX, %fM, %fM` (it does not fold x - x: inf - inf is NaN);
// `decode_no_rescale` has no rescale at all (reported at each running-maximum update).
__global__ void decode(const float* __restrict__ q, const float* __restrict__ k,
                       const float* __restrict__ v, float* __restrict__ out, int n, float scale) {
  int lane = threadIdx.x;
  float qv = q[lane];
  float m = -INFINITY, l = 0.f, acc = 0.f;
  for (int p = 0; p < n; ++p) {
    float s = qv * k[p * 32 + lane];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    s = __shfl_sync(0xffffffffu, s, 0) * scale;
    float m_new = fmaxf(m, s);
    float alpha = exp2f(m - m_new);
    float pexp = exp2f(s - m_new);
    l = l * alpha + pexp;
    acc = acc * alpha + pexp * v[p * 32 + lane];
    m = m_new;
  }
  out[lane] = acc / l;
}
// the same with __expf (fast: mul by log2e then ex2) and the stale-maximum bug (old max aliased)
__global__ void decode_bug(const float* __restrict__ q, const float* __restrict__ k,
                       const float* __restrict__ v, float* __restrict__ out, int n, float scale) {
  int lane = threadIdx.x;
  float qv = q[lane];
  float m = -INFINITY, l = 0.f, acc = 0.f;
  for (int p = 0; p < n; ++p) {
    float s = qv * k[p * 32 + lane];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    s = __shfl_sync(0xffffffffu, s, 0) * scale;
    m = fmaxf(m, s);
    float alpha = __expf(m - m);
    float pexp = __expf(s - m);
    l = l * alpha + pexp;
    acc = acc * alpha + pexp * v[p * 32 + lane];
  }
  out[lane] = acc / l;
}
__global__ void decode_expf(const float* __restrict__ q, const float* __restrict__ k,
                       const float* __restrict__ v, float* __restrict__ out, int n, float scale) {
  int lane = threadIdx.x;
  float qv = q[lane];
  float m = -INFINITY, l = 0.f, acc = 0.f;
  for (int p = 0; p < n; ++p) {
    float s = qv * k[p * 32 + lane];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    s = __shfl_sync(0xffffffffu, s, 0) * scale;
    float m_new = fmaxf(m, s);
    float alpha = expf(m - m_new);
    float pexp = expf(s - m_new);
    l = l * alpha + pexp;
    acc = acc * alpha + pexp * v[p * 32 + lane];
    m = m_new;
  }
  out[lane] = acc / l;
}
// The rescale forgotten altogether (or folded away): the sums stay on the old maximum's scale.
__global__ void decode_no_rescale(const float* __restrict__ q, const float* __restrict__ k,
                                  const float* __restrict__ v, float* __restrict__ out, int n,
                                  float scale) {
  int lane = threadIdx.x;
  float qv = q[lane];
  float m = -INFINITY, l = 0.f, acc = 0.f;
  for (int p = 0; p < n; ++p) {
    float s = qv * k[p * 32 + lane];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    s = __shfl_sync(0xffffffffu, s, 0) * scale;
    m = fmaxf(m, s);
    float pexp = exp2f(s - m);
    l += pexp;
    acc += pexp * v[p * 32 + lane];
  }
  out[lane] = acc / l;
}
