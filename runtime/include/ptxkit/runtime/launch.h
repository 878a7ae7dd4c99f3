// launch.h: what a launch is checked against before it reaches the driver, and the check itself.
//
// A wrong argument count or size, or a grid/block/shared-memory request the kernel or device
// cannot take, would otherwise surface as a device fault or as silently wrong results. Every
// launch is checked first against (1) the `.entry` signature parsed from the verified PTX,
// (2) the kernel's launch contract from the kernels library, (3) `.reqntid`/`.maxntid`, and
// (4) the device's and the compiled function's limits. A refusal is a kBadLaunch error whose
// message names the launch, the offending value and the limit it broke.
#pragma once

#include "ptxkit/runtime/device.h"
#include "ptxkit/runtime/error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ptxkit::runtime {

// One `.param` of an `.entry`, as the launch check needs it.
struct ParamSlot {
  std::string name;       // "rmsnorm_param_0"
  std::string type;       // ".u64", ".b8[16]": for messages
  std::uint32_t size = 0; // bytes the argument must have
  std::uint32_t align = 0;
};

// An `.entry`'s launch-relevant declaration.
struct KernelSignature {
  std::string name;
  std::vector<ParamSlot> params;
  std::optional<Dim3> reqntid; // `.reqntid`: the block must be exactly this
  std::optional<Dim3> maxntid; // `.maxntid`: the block may have at most x*y*z threads
};

struct LaunchDims {
  Dim3 grid;
  Dim3 block;
  std::uint32_t dynamic_smem_bytes = 0;
};

// The kernels library's launch contract for one kernel instance (config + problem shape): the
// launch the PTX was generated for. Every field is optional; set what the kernel fixes. `check`
// is for any further rule (e.g. "grid.x must cover rows"); it returns a message on violation.
struct LaunchContract {
  std::optional<Dim3> block;
  std::optional<Dim3> grid;
  std::optional<std::uint32_t> dynamic_smem_bytes;
  std::function<std::optional<std::string>(const LaunchDims&)> check;
};

// Limits of the compiled function (cuFuncGetAttribute), read once when it is looked up.
struct FunctionLimits {
  std::uint32_t max_threads_per_block = 0; // registers and .maxntid included
  std::uint32_t static_smem_bytes = 0;
  std::uint32_t num_registers = 0;
  std::uint32_t local_bytes = 0;
};

// Checks one launch: `arg_sizes` are the sizes in bytes of the arguments given, in order.
// `contract` may be null. Allocation-free on success; on failure builds the kBadLaunch message.
Expected<void> check_launch(const KernelSignature& sig, const DeviceInfo& device,
                            const FunctionLimits& function, const LaunchContract* contract,
                            const LaunchDims& dims, std::span<const std::uint32_t> arg_sizes);

} // namespace ptxkit::runtime
