// module.h: loading verified PTX (Module) and launching its kernels (Function), checked.
//
// Module::load takes only a verifier::VerifiedPtx, refuses PTX the driver or device cannot take
// (ptx_compat.h) with a message naming what is needed, and JIT-compiles through
// cuModuleLoadDataEx with info and error log buffers, so a JIT failure reports the driver's log
// verbatim and quotes the PTX line it names. A Function carries the `.entry` signature and the
// compiled function's limits; its launch path checks every launch (launch.h) without allocating,
// since the argument layout was fixed when the function was looked up.
#pragma once

#include "ptxkit/runtime/buffer.h"
#include "ptxkit/runtime/context.h"
#include "ptxkit/runtime/launch.h"
#include "ptxkit/runtime/ptx_compat.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ptxkit::verifier {
class VerifiedPtx;
struct Function;
} // namespace ptxkit::verifier

namespace ptxkit::runtime {

// The JIT options of cuModuleLoadDataEx. fingerprint() lists the ones that can change the
// generated code; the module cache keys on it (logging options do not change the code).
struct JitOptions {
  int optimization_level = 4;          // CU_JIT_OPTIMIZATION_LEVEL, 0..4
  bool generate_line_info = false;     // CU_JIT_GENERATE_LINE_INFO
  bool generate_debug_info = false;    // CU_JIT_GENERATE_DEBUG_INFO
  unsigned max_registers = 0;          // CU_JIT_MAX_REGISTERS; 0 = no limit
  bool log_verbose = false;            // CU_JIT_LOG_VERBOSE: registers/spills in the info log
  std::uint32_t log_bytes = 64 * 1024; // size of each of the info and error log buffers

  std::string fingerprint() const; // "O4,lineinfo=0,debug=0,maxreg=0"
};

// The launch signature of a parsed `.entry`: parameter sizes and .reqntid/.maxntid.
KernelSignature signature_of(const verifier::Function& entry);

// The PTX line a JIT log names ("ptxas application ptx input, line 12; error : ..."), if any.
std::optional<int> ptx_line_named_by(std::string_view jit_log);

// One kernel argument: its bytes. Build with kernel_arg(); raw host pointers are refused at
// compile time (pass a DeviceBuffer, or a cu::DevicePtr for an offset into one).
struct ArgRef {
  const void* ptr = nullptr;
  std::uint32_t size = 0;
};
template <class T>
ArgRef kernel_arg(const DeviceBuffer<T>& buffer) {
  return {buffer.device_ptr_address(), sizeof(cu::DevicePtr)};
}
template <class T>
ArgRef kernel_arg(const T& value) {
  static_assert(!std::is_pointer_v<T>,
                "a host pointer is not a kernel argument: pass a DeviceBuffer or a cu::DevicePtr");
  static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are trivially copyable");
  return {&value, static_cast<std::uint32_t>(sizeof(T))};
}

namespace detail {
struct ModuleState;
struct FunctionState;
} // namespace detail

class Stream;

class Function {
public:
  const KernelSignature& signature() const;
  const FunctionLimits& limits() const;
  cu::Function handle() const;

  // Every later launch is also checked against `contract` (the kernels library supplies it).
  void set_contract(LaunchContract contract);
  const LaunchContract* contract() const { return contract_ ? &*contract_ : nullptr; }

  // Checks, then launches on `stream`: launch(stream, dims, in_buf, out_buf, n, eps).
  template <class... Args>
  Expected<void> launch(const Stream& stream, const LaunchDims& dims, const Args&... args) const {
    const ArgRef refs[sizeof...(Args) + 1] = {kernel_arg(args)..., ArgRef{}};
    return launch_args(stream, dims, std::span<const ArgRef>(refs, sizeof...(Args)));
  }
  Expected<void> launch_args(const Stream& stream, const LaunchDims& dims,
                             std::span<const ArgRef> args) const;

private:
  friend class Module;
  explicit Function(std::shared_ptr<const detail::FunctionState> s) : state_(std::move(s)) {}
  std::shared_ptr<const detail::FunctionState> state_;
  std::optional<LaunchContract> contract_;
};

class Module {
public:
  // Refuses PTX this driver cannot JIT or this device cannot run, then JIT-compiles it.
  static Expected<Module> load(const Context& ctx, const verifier::VerifiedPtx& ptx,
                               const JitOptions& jit = {});

  // The kernel `entry` of this module, with its signature and limits.
  Expected<Function> function(std::string_view entry) const;

  const std::string& ptx() const;
  const std::string& name() const;
  const PtxHeader& header() const;
  const std::string& info_log() const; // the JIT's info log (register usage with log_verbose)
  const std::vector<KernelSignature>& entries() const;

private:
  friend Expected<Module> load_module_text(const Context&, std::string, std::string,
                                           std::vector<KernelSignature>, const JitOptions&);
  explicit Module(std::shared_ptr<const detail::ModuleState> s) : state_(std::move(s)) {}
  std::shared_ptr<const detail::ModuleState> state_;
};

} // namespace ptxkit::runtime
