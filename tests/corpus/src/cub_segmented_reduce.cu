// cub_segmented_reduce.cu: corpus source: CUB segmented sum over offset ranges.
#include <cub/device/device_segmented_reduce.cuh>

void instantiate(const float* in, float* out, const int* offsets, int segments, void* tmp,
                 size_t bytes, cudaStream_t s) {
  cub::DeviceSegmentedReduce::Sum(tmp, bytes, in, out, segments, offsets, offsets + 1, s);
}
