// thrust_algorithms.cu: corpus source: Thrust algorithms on device vectors (sort_by_key,
// reduce_by_key, transform_reduce, inclusive_scan, copy_if), whose kernels come from Thrust's
// CUDA backend (and the CUB agents under it).
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>

struct square {
  __host__ __device__ float operator()(float x) const { return x * x; }
};
struct is_positive {
  __host__ __device__ bool operator()(float x) const { return x > 0.0f; }
};

float instantiate(thrust::device_vector<int>& keys, thrust::device_vector<float>& vals,
                  thrust::device_vector<int>& okeys, thrust::device_vector<float>& ovals) {
  thrust::sort_by_key(keys.begin(), keys.end(), vals.begin());
  thrust::reduce_by_key(keys.begin(), keys.end(), vals.begin(), okeys.begin(), ovals.begin());
  thrust::inclusive_scan(vals.begin(), vals.end(), ovals.begin());
  thrust::copy_if(vals.begin(), vals.end(), ovals.begin(), is_positive{});
  return thrust::transform_reduce(vals.begin(), vals.end(), square{}, 0.0f, thrust::plus<float>{});
}
