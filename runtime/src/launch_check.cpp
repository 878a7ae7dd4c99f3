// launch_check.cpp: the checks every launch passes before cuLaunchKernel sees it.
//
// The order goes from "is this the right kernel call at all" (arguments) to "is this the launch
// the kernel was built for" (contract, .reqntid/.maxntid) to "can this device run it" (device and
// function limits), so the first message is the most useful one. The success path only compares
// integers; strings are built only for the error.
#include "ptxkit/runtime/launch.h"

#include <string>

namespace ptxkit::runtime {
namespace {

Unexpected bad(const KernelSignature& sig, const std::string& what) {
  return fail(ErrorKind::kBadLaunch, "launch of " + sig.name + ": " + what);
}

std::string dims_str(const LaunchDims& d) {
  return "grid " + d.grid.str() + ", block " + d.block.str() + ", " +
         std::to_string(d.dynamic_smem_bytes) + " B dynamic shared memory";
}

std::string ntid(const Dim3& d) {
  return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
}

// The first dimension of `d` over `max`, as "x"/"y"/"z", or nullptr.
const char* over(const Dim3& d, const Dim3& max) {
  if (d.x > max.x) return "x";
  if (d.y > max.y) return "y";
  if (d.z > max.z) return "z";
  return nullptr;
}

std::uint32_t component(const Dim3& d, const char* axis) {
  return axis[0] == 'x' ? d.x : axis[0] == 'y' ? d.y : d.z;
}

} // namespace

Expected<void> check_launch(const KernelSignature& sig, const DeviceInfo& device,
                            const FunctionLimits& function, const LaunchContract* contract,
                            const LaunchDims& dims, std::span<const std::uint32_t> arg_sizes) {
  // (1) Arguments against the .entry's parameter list.
  if (arg_sizes.size() != sig.params.size())
    return bad(sig, std::to_string(arg_sizes.size()) + " argument(s) given, but the .entry takes " +
                        std::to_string(sig.params.size()));
  for (std::size_t i = 0; i < arg_sizes.size(); ++i) {
    const ParamSlot& p = sig.params[i];
    if (arg_sizes[i] != p.size)
      return bad(sig, "argument " + std::to_string(i) + " is " + std::to_string(arg_sizes[i]) +
                          " bytes, but .param " + p.type + " " + p.name + " is " +
                          std::to_string(p.size) + " bytes");
  }

  // Empty launches are a caller bug the driver reports only as CUDA_ERROR_INVALID_VALUE.
  if (dims.grid.volume() == 0 || dims.block.volume() == 0)
    return bad(sig, "empty launch (" + dims_str(dims) + "): every dimension must be at least 1");

  // (2) The kernel's launch contract.
  if (contract != nullptr) {
    if (contract->block && !(*contract->block == dims.block))
      return bad(sig, "block " + dims.block.str() + " differs from the launch contract's block " +
                          contract->block->str());
    if (contract->grid && !(*contract->grid == dims.grid))
      return bad(sig, "grid " + dims.grid.str() + " differs from the launch contract's grid " +
                          contract->grid->str());
    if (contract->dynamic_smem_bytes && *contract->dynamic_smem_bytes != dims.dynamic_smem_bytes)
      return bad(sig, std::to_string(dims.dynamic_smem_bytes) +
                          " B of dynamic shared memory differs from the launch contract's " +
                          std::to_string(*contract->dynamic_smem_bytes) + " B");
    if (contract->check) {
      if (auto why = contract->check(dims))
        return bad(sig, "the launch contract refuses " + dims_str(dims) + ": " + *why);
    }
  }

  // (3) The PTX's own thread-count directives.
  const std::uint64_t threads = dims.block.volume();
  if (sig.reqntid && !(*sig.reqntid == dims.block))
    return bad(sig, "block " + dims.block.str() + " does not match .reqntid " + ntid(*sig.reqntid));
  if (sig.maxntid && threads > sig.maxntid->volume())
    return bad(sig, "block " + dims.block.str() + " has " + std::to_string(threads) +
                        " threads, more than .maxntid " + ntid(*sig.maxntid) + " allows (" +
                        std::to_string(sig.maxntid->volume()) + ")");

  // (4) Device and function limits.
  if (const char* axis = over(dims.block, device.max_block))
    return bad(sig, std::string("block.") + axis + " = " +
                        std::to_string(component(dims.block, axis)) +
                        " exceeds the device's maximum " +
                        std::to_string(component(device.max_block, axis)));
  if (threads > device.max_threads_per_block)
    return bad(sig, "block " + dims.block.str() + " has " + std::to_string(threads) +
                        " threads; the device allows at most " +
                        std::to_string(device.max_threads_per_block) + " per block");
  if (function.max_threads_per_block != 0 && threads > function.max_threads_per_block)
    return bad(sig, "block " + dims.block.str() + " has " + std::to_string(threads) +
                        " threads; the compiled kernel allows at most " +
                        std::to_string(function.max_threads_per_block) + " (it uses " +
                        std::to_string(function.num_registers) + " registers per thread)");
  if (const char* axis = over(dims.grid, device.max_grid))
    return bad(sig, std::string("grid.") + axis + " = " +
                        std::to_string(component(dims.grid, axis)) +
                        " exceeds the device's maximum " +
                        std::to_string(component(device.max_grid, axis)));
  const std::uint64_t smem = std::uint64_t{function.static_smem_bytes} + dims.dynamic_smem_bytes;
  if (smem > device.max_shared_per_block_optin)
    return bad(sig, std::to_string(dims.dynamic_smem_bytes) + " B dynamic + " +
                        std::to_string(function.static_smem_bytes) + " B static shared memory = " +
                        std::to_string(smem) + " B exceeds the device's maximum of " +
                        std::to_string(device.max_shared_per_block_optin) +
                        " B per block (with opt-in)");
  return {};
}

} // namespace ptxkit::runtime
