// host_tensors.h: the uniform host-side shape of a kernel's inputs and outputs.
//
// Every kernel's CPU reference, and every caller that launches a kernel generically (`ptxkit run`,
// the device tests), speaks this one shape: named host buffers of f32 or u32 elements, plus the
// kernel's parameter list saying, per PTX parameter, which buffer it points at. A pointer-array
// parameter (the K/V pointer arrays of batched attention) points at successive slices of one
// buffer, so the runtime can build it from device base addresses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

// Named host buffers. A name lives in exactly one of the two maps. Buffers of f16 and bf16
// elements live in `f32`, one float per element, each exactly representable in its format
// (dtype.h: round_to); the device side stores them in 2 bytes.
struct HostTensors {
  std::map<std::string, std::vector<float>> f32;
  std::map<std::string, std::vector<std::uint32_t>> u32;
};

enum class ElemType { kF32, kU32, kF16, kBF16 };

// Bytes per element on the device.
[[nodiscard]] constexpr std::size_t elem_bytes(ElemType e) {
  return e == ElemType::kF16 || e == ElemType::kBF16 ? 2 : 4;
}
// "f32", "u32", "f16", "bf16".
[[nodiscard]] constexpr std::string_view elem_type_name(ElemType e) {
  switch (e) {
  case ElemType::kU32:
    return "u32";
  case ElemType::kF16:
    return "f16";
  case ElemType::kBF16:
    return "bf16";
  case ElemType::kF32:
    break;
  }
  return "f32";
}
// Whether the host holds the buffer in HostTensors::f32 (every type but u32).
[[nodiscard]] constexpr bool held_as_f32(ElemType e) {
  return e != ElemType::kU32;
}

// How one `.param` of the entry is filled.
enum class ParamKind {
  kInput,        // .u64 pointer to `buffer`, read by the kernel
  kOutput,       // .u64 pointer to `buffer`, written by the kernel (compare with the reference)
  kPointerArray, // .u64 pointer to an array of `count` .u64 pointers: element i is the address
                 // of `buffer` + i * `stride_elems` elements (e.g. one K cache per batch slot)
};

struct ParamSpec {
  std::string name; // the PTX parameter name
  ParamKind kind = ParamKind::kInput;
  std::string buffer; // the HostTensors buffer it refers to
  ElemType elem = ElemType::kF32;
  std::size_t elems = 0;        // the buffer's element count (its logical size, never padded)
  std::size_t count = 0;        // kPointerArray: number of pointers
  std::size_t stride_elems = 0; // kPointerArray: elements between successive pointers
};

// Grid, block and dynamic shared memory of one launch.
struct LaunchDims {
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint32_t dynamic_smem_bytes = 0;
};

// Deterministic pseudo-random numbers for test inputs (splitmix64), so that a reference run and
// a device run can regenerate the same inputs from a seed.
class InputRng {
public:
  explicit InputRng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi).
  float uniform(float lo, float hi) {
    double u = static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
    return static_cast<float>(lo + (hi - lo) * u);
  }
  std::vector<float> uniform_vector(std::size_t n, float lo, float hi) {
    std::vector<float> v(n);
    for (auto& x : v)
      x = uniform(lo, hi);
    return v;
  }

private:
  std::uint64_t state_;
};

} // namespace ptxkit::kernels
