// cub_radix_sort.cu: corpus source: CUB onesweep/upsweep radix sort of key-value pairs.
#include <cub/device/device_radix_sort.cuh>

void instantiate(unsigned* k_in, unsigned* k_out, int* v_in, int* v_out, int n, void* tmp,
                 size_t bytes, cudaStream_t s) {
  cub::DeviceRadixSort::SortPairs(tmp, bytes, k_in, k_out, v_in, v_out, n, 0, 32, s);
}
