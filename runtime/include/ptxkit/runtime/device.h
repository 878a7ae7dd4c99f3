// device.h: what the runtime knows about the device it runs on, read once when a context opens.
//
// The launch checks compare every launch with these limits, and the module cache keys modules by
// the exact compute capability; reading them once keeps both off the driver on the hot path.
#pragma once

#include "ptxkit/runtime/ptx_compat.h"

#include <cstdint>
#include <string>

namespace ptxkit::runtime {

// A grid or block extent, as cuLaunchKernel takes it.
struct Dim3 {
  std::uint32_t x = 1;
  std::uint32_t y = 1;
  std::uint32_t z = 1;
  bool operator==(const Dim3&) const = default;
  std::uint64_t volume() const { return std::uint64_t{x} * y * z; }
  std::string str() const; // "(256,1,1)"
};

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  ComputeCapability cc;
  int driver_version = 0; // cuDriverGetVersion: 1000*major + 10*minor
  std::uint32_t max_threads_per_block = 0;
  Dim3 max_block;
  Dim3 max_grid;
  std::uint32_t max_shared_per_block = 0;       // without opt-in (48 KiB on current GPUs)
  std::uint32_t max_shared_per_block_optin = 0; // with cuFuncSetAttribute opt-in
  std::uint32_t warp_size = 0;
  std::uint32_t multiprocessors = 0;
  std::uint32_t l2_bytes = 0;
  std::uint32_t clock_khz = 0;
  std::uint32_t memory_clock_khz = 0;
  std::uint32_t memory_bus_bits = 0;
};

} // namespace ptxkit::runtime
