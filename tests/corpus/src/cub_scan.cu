// cub_scan.cu: corpus source: CUB device-wide inclusive/exclusive scans (decoupled look-back).
#include <cub/device/device_scan.cuh>

void instantiate(int* in, int* out, int n, void* tmp, size_t bytes, cudaStream_t s) {
  cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n, s);
  cub::DeviceScan::ExclusiveSum(tmp, bytes, reinterpret_cast<float*>(in),
                                reinterpret_cast<float*>(out), n, s);
}
