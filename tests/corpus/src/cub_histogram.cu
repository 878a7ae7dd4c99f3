// cub_histogram.cu: corpus source: CUB even-bin histogram (shared-memory atomics).
#include <cub/device/device_histogram.cuh>

void instantiate(const float* samples, int* hist, int n, void* tmp, size_t bytes, cudaStream_t s) {
  cub::DeviceHistogram::HistogramEven(tmp, bytes, samples, hist, 257, 0.0f, 1.0f, n, s);
}
