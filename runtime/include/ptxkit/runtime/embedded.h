// embedded.h: PTX compiled into an application, and loading it with no file I/O.
//
// `ptxkit embed` (and ptxkit_generate_ptx(... EMBED header.h) at build time) writes a header of
// `inline constexpr EmbeddedKernel` values: each holds the PTX text exactly as it was generated,
// verified and assembled by ptxas at build time, its cache key, and the launch contract of its
// config. load_kernel() verifies the text again on load (the runtime loads nothing else) and
// returns the function with that contract set, so every launch is checked against it.
#pragma once

#include "ptxkit/runtime/device.h"
#include "ptxkit/runtime/error.h"
#include "ptxkit/runtime/kernel_cache.h"
#include "ptxkit/runtime/launch.h"
#include "ptxkit/runtime/module.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ptxkit::runtime {

// One `.param` of the entry as the kernel's launch contract describes it.
struct EmbeddedParam {
  std::string_view name;   // the PTX parameter name
  std::string_view kind;   // "input", "output" or "pointer_array"
  std::string_view buffer; // the buffer it refers to
  std::string_view elem;   // "f32", "u32", "f16" or "bf16"
  std::size_t elems = 0;   // the buffer's logical element count
  std::size_t count = 0;   // pointer_array: number of pointers
  std::size_t stride_elems = 0;
};

struct EmbeddedKernel {
  std::string_view kernel; // registry name, also the `.entry` name
  std::string_view config; // every field, "FIELD=VALUE,..." (`--set` syntax)
  std::string_view target; // "sm_90"
  std::string_view key;    // the kernel's cache key at this config and target
  std::string_view ptx;    // the PTX text
  Dim3 grid;
  Dim3 block;
  std::uint32_t dynamic_smem_bytes = 0;
  std::span<const EmbeddedParam> params;

  LaunchDims launch_dims() const { return {grid, block, dynamic_smem_bytes}; }
};

// Verifies `ptx` (verify_for_load), loads it through `cache` under `key`, looks up `entry` and
// sets the launch contract to exactly `dims`. A kBadArgument error carries the verifier's
// findings when it refuses the text.
Expected<Function> load_kernel(KernelCache& cache, std::string ptx, std::string_view key,
                               std::string_view entry, const LaunchDims& dims,
                               const JitOptions& jit = {});

// load_kernel on an embedded kernel.
Expected<Function> load_embedded(KernelCache& cache, const EmbeddedKernel& kernel,
                                 const JitOptions& jit = {});

} // namespace ptxkit::runtime
