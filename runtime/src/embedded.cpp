// embedded.cpp: loading verified PTX with a fixed launch contract (embedded.h).
#include "ptxkit/runtime/embedded.h"

#include "ptxkit/verifier/verified_ptx.h"

#include <utility>

namespace ptxkit::runtime {

Expected<Function> load_kernel(KernelCache& cache, std::string ptx, std::string_view key,
                               std::string_view entry, const LaunchDims& dims,
                               const JitOptions& jit) {
  auto verified = verifier::verify_for_load(std::move(ptx), std::string(key) + ".ptx");
  if (!verified) {
    std::string message =
        "the verifier refused " + std::string(entry) + ": " + verified.error().message;
    for (const auto& d : verified.error().diagnostics)
      message += "\n" + d;
    return fail(ErrorKind::kBadArgument, message);
  }
  auto module = cache.get(*verified, key, jit);
  if (!module) return fail(std::move(module).error());
  auto function = module->function(entry);
  if (!function) return fail(std::move(function).error());
  LaunchContract contract;
  contract.grid = dims.grid;
  contract.block = dims.block;
  contract.dynamic_smem_bytes = dims.dynamic_smem_bytes;
  function->set_contract(std::move(contract));
  return std::move(*function);
}

Expected<Function> load_embedded(KernelCache& cache, const EmbeddedKernel& kernel,
                                 const JitOptions& jit) {
  return load_kernel(cache, std::string(kernel.ptx), kernel.key, kernel.kernel,
                     kernel.launch_dims(), jit);
}

} // namespace ptxkit::runtime
