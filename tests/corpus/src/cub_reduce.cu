// cub_reduce.cu: corpus source: CUB device-wide reductions (sum, max, arg-min) instantiated so
// that nvcc -ptx emits their kernels; scripts/make-corpus.sh compiles it per architecture.
#include <cub/device/device_reduce.cuh>

void instantiate(float* in, float* out, int n, void* tmp, size_t bytes, cudaStream_t s) {
  cub::DeviceReduce::Sum(tmp, bytes, in, out, n, s);
  cub::DeviceReduce::Max(tmp, bytes, reinterpret_cast<int*>(in), reinterpret_cast<int*>(out), n, s);
}
