// device_harness.h: runs any library kernel on the GPU from its launch contract and parameter list.
//
// `ptxkit run`, `ptxkit bench` and the device tests (tests/device/) all need the same steps:
// open the device, generate the kernel's PTX for it, verify it (only VerifiedPtx loads), load it
// through the kernel cache, set the kernel's launch contract, allocate one device buffer per named
// host buffer (outputs poisoned with NaN, an optional guard band after every buffer), build the
// pointer arrays, launch, download and compare with the CPU reference under the kernel's stated
// tolerance. This is that path, once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <ptxkit/kernels/kernel.h>
#include <ptxkit/ptxgen/target.h>
#include <ptxkit/runtime/arg_pack.h>
#include <ptxkit/runtime/buffer.h>
#include <ptxkit/runtime/compare.h>
#include <ptxkit/runtime/context.h>
#include <ptxkit/runtime/kernel_cache.h>
#include <ptxkit/runtime/module.h>
#include <string>
#include <vector>

namespace ptxkit::cli::device {

namespace rt = ptxkit::runtime;

// Turns an error of the generation libraries into a runtime error of kind kBadArgument.
rt::Unexpected bad_argument(const std::string& message);

// The open device: context, one stream, the kernel cache and the PTX target chosen for it.
struct Session {
  rt::Context ctx;
  rt::Stream stream;
  std::unique_ptr<rt::KernelCache> cache;
  ptxgen::Target target;

  // Opens device 0 through libcuda (dlopen). An error with is_unavailable() means "no device".
  static rt::Expected<Session> open();
  std::string describe() const; // "NVIDIA H200, cc 9.0, driver CUDA 13.0, 132 SMs, PTX sm_90"
};

// The highest PTX target ptxkit supports that a device of compute capability `cc` runs (plain
// sm_XY, never the arch-specific variant), or an error naming the device.
rt::Expected<ptxgen::Target> target_for(const rt::ComputeCapability& cc);

// A kernel instance loaded and ready: its function with the launch contract set.
struct Prepared {
  const kernels::Kernel* kernel = nullptr;
  kernels::ConfigValues values;
  std::string key;
  rt::Function function;
  kernels::LaunchDims dims;
  std::vector<kernels::ParamSpec> params;
};

// generate -> verify_for_load -> KernelCache::get -> Module::function -> set_contract.
rt::Expected<Prepared> prepare(Session& session, const kernels::Kernel& kernel,
                               const kernels::ConfigValues& values);

rt::LaunchDims to_runtime(const kernels::LaunchDims& dims);
// The kernel's stated tolerance (its definition's `tolerance`) as the comparison takes it.
rt::Tolerance to_runtime(const kernels::Tolerance& tolerance);

struct InstanceOptions {
  std::size_t guard_elems = 0; // 32-bit words after every buffer, filled with kGuardWord
  // Buffers made larger than their parameters say (e.g. one launch over half the rows).
  std::map<std::string, std::size_t> min_elems;
};

// NaN bit pattern written into guard bands: a kernel that reads one produces NaN; one that
// writes one is caught by `changed_guards`.
inline constexpr std::uint32_t kGuardWord = 0x7fc0deadu;

// Device buffers for one kernel instance and the argument list that points at them.
class Instance {
public:
  // Uploads every input buffer; an output buffer that is also an input (read-modify-write) is
  // uploaded too, every other output is poisoned with NaN (all bits set).
  static rt::Expected<Instance> create(const Session& session, const Prepared& prepared,
                                       const kernels::HostTensors& inputs,
                                       const InstanceOptions& options = {});

  // The argument list with pointer params advanced by `offsets[buffer]` elements, and those
  // of buffers named in `external` pointing there instead (another instance's buffer).
  rt::Expected<std::unique_ptr<rt::ArgPack>>
  args(const std::map<std::string, std::size_t>& offsets = {},
       const std::map<std::string, rt::cu::DevicePtr>& external = {}) const;
  // The device address of buffer `name` (0 when there is none).
  rt::cu::DevicePtr device_ptr(const std::string& name) const;
  // One checked launch with the default arguments.
  rt::Expected<void> launch(const Session& session) const;
  // Re-uploads the inputs and re-poisons the outputs (before a repeated correctness launch).
  rt::Expected<void> reset(const kernels::HostTensors& inputs);

  // The output buffers (the kOutput params), at their logical sizes.
  rt::Expected<kernels::HostTensors> outputs() const;
  // Any buffer by name, logical size (the u32 map for u32 elements, f32 for every other type).
  rt::Expected<kernels::HostTensors> download(const std::vector<std::string>& names) const;
  // Names of buffers whose guard band no longer holds kGuardWord.
  rt::Expected<std::vector<std::string>> changed_guards() const;

  const Prepared& prepared() const { return *prepared_; }

private:
  struct Buffer {
    kernels::ElemType elem = kernels::ElemType::kF32;
    std::size_t elems = 0; // logical
    bool output = false;
    std::unique_ptr<rt::DeviceBuffer<std::uint32_t>> storage; // words; halves two to a word
  };
  Instance() = default;
  rt::Expected<void> fill(const std::string& name, Buffer& b, const kernels::HostTensors& in);

  const Prepared* prepared_ = nullptr;
  const Session* session_ = nullptr;
  std::size_t guard_ = 0;
  std::map<std::string, Buffer> buffers_;
  std::vector<std::unique_ptr<rt::DeviceBuffer<std::uint64_t>>> pointer_arrays_;
  std::unique_ptr<rt::ArgPack> args_;
};

// One output's comparison with the reference.
struct OutputCheck {
  std::string buffer;
  rt::Tolerance tolerance;
  rt::Comparison comparison;
};

// Outputs against the CPU reference, each under the kernel's tolerance (Kernel::tolerance).
rt::Expected<std::vector<OutputCheck>> compare_outputs(const Prepared& prepared,
                                                       const kernels::HostTensors& inputs,
                                                       const kernels::HostTensors& got);

// A seed from the OS entropy source and the clock: a fresh one per run.
std::uint64_t fresh_seed();

} // namespace ptxkit::cli::device
