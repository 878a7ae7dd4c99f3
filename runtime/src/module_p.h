// module_p.h: runtime-internal declarations behind Module and Function (not installed).
//
// load_module_text() is the one place PTX text reaches cuModuleLoadDataEx. Module::load calls it
// with a VerifiedPtx's text and signatures; the runtime's own unit tests call it directly with a
// fake driver, since they test the loader, not the verifier. Nothing outside runtime/ and
// tests/runtime/ may include this header: everything else loads only VerifiedPtx.
#pragma once

#include "ptxkit/runtime/module.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace ptxkit::runtime {

namespace detail {

struct ModuleState {
  std::shared_ptr<ContextState> ctx;
  cu::Module module = nullptr;
  std::string name;
  std::string ptx;
  PtxHeader header;
  std::string info_log;
  std::vector<KernelSignature> entries;
  ModuleState() = default;
  ModuleState(const ModuleState&) = delete;
  ModuleState& operator=(const ModuleState&) = delete;
  ~ModuleState();
};

struct FunctionState {
  std::shared_ptr<const ModuleState> module; // keeps the CUmodule loaded
  cu::Function function = nullptr;
  KernelSignature signature;
  FunctionLimits limits;
  std::vector<std::uint32_t> param_sizes; // the precomputed layout the launch path compares
  // The dynamic shared memory the function is currently allowed (raised on demand, up to the
  // device's opt-in maximum, with cuFuncSetAttribute).
  mutable std::atomic<std::uint32_t> max_dynamic_smem{0};
  mutable std::mutex raise_mutex;
};

} // namespace detail

// Checks the header against the driver and device, JIT-compiles `ptx` and records the entries'
// signatures. `name` is for messages (a path or kernel key).
Expected<Module> load_module_text(const Context& ctx, std::string ptx, std::string name,
                                  std::vector<KernelSignature> entries, const JitOptions& jit);

} // namespace ptxkit::runtime
