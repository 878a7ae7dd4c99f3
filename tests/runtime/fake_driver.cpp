// fake_driver.cpp: the fake libcuda's behaviour (see fake_driver.h).
//
// Handles are small integers cast to the opaque pointer types; the runtime never dereferences
// them, so any distinct non-null value serves.
#include "fake_driver.h"

#include <algorithm>
#include <cstring>
#include <thread>

namespace ptxkit::runtime::testing {
namespace {

template <class H>
H handle(std::uintptr_t v) {
  return reinterpret_cast<H>(v);
}

} // namespace

FakeDriver::FakeDriver() {
  using A = cu::DeviceAttribute;
  attributes = {
      {A::kMaxThreadsPerBlock, 1024},
      {A::kMaxBlockDimX, 1024},
      {A::kMaxBlockDimY, 1024},
      {A::kMaxBlockDimZ, 64},
      {A::kMaxGridDimX, 2147483647},
      {A::kMaxGridDimY, 65535},
      {A::kMaxGridDimZ, 65535},
      {A::kMaxSharedMemoryPerBlock, 49152},
      {A::kWarpSize, 32},
      {A::kClockRate, 1980000},
      {A::kMultiprocessorCount, 132},
      {A::kMemoryClockRate, 3201000},
      {A::kGlobalMemoryBusWidth, 6144},
      {A::kL2CacheSize, 52428800},
      {A::kComputeCapabilityMajor, 9},
      {A::kComputeCapabilityMinor, 0},
      {A::kMaxSharedMemoryPerMultiprocessor, 233472},
      {A::kMaxSharedMemoryPerBlockOptin, 232448},
  };
  using F = cu::FunctionAttribute;
  function_attributes = {
      {F::kMaxThreadsPerBlock, 1024},
      {F::kSharedSizeBytes, 0},
      {F::kConstSizeBytes, 0},
      {F::kLocalSizeBytes, 0},
      {F::kNumRegs, 32},
      {F::kPtxVersion, 90},
      {F::kBinaryVersion, 90},
      {F::kMaxDynamicSharedSizeBytes, 49152},
  };
}

void FakeDriver::fail_next(const std::string& call, cu::Result r) {
  std::lock_guard lock(mutex_);
  failures_[call] = r;
}

cu::Result FakeDriver::injected(const char* call) {
  std::lock_guard lock(mutex_);
  auto it = failures_.find(call);
  if (it == failures_.end()) return cu::kSuccess;
  const cu::Result r = it->second;
  failures_.erase(it);
  return r;
}

std::size_t FakeDriver::live_allocations() const {
  std::lock_guard lock(mutex_);
  return memory_.size();
}

std::uint8_t* FakeDriver::at(cu::DevicePtr ptr, std::size_t bytes) {
  auto it = memory_.upper_bound(ptr);
  if (it == memory_.begin()) return nullptr;
  --it;
  const std::size_t offset = ptr - it->first;
  if (offset + bytes > it->second.size()) return nullptr;
  return it->second.data() + offset;
}

cu::Result FakeDriver::init(unsigned) {
  return injected("cuInit");
}

cu::Result FakeDriver::driver_get_version(int* version) {
  if (auto r = injected("cuDriverGetVersion")) return r;
  *version = driver_version;
  return cu::kSuccess;
}

cu::Result FakeDriver::device_get_count(int* count) {
  if (auto r = injected("cuDeviceGetCount")) return r;
  *count = device_count;
  return cu::kSuccess;
}

cu::Result FakeDriver::device_get(cu::Device* device, int ordinal) {
  if (auto r = injected("cuDeviceGet")) return r;
  if (ordinal < 0 || ordinal >= device_count) return cu::kErrorInvalidDevice;
  *device = ordinal;
  return cu::kSuccess;
}

cu::Result FakeDriver::device_get_attribute(int* value, cu::DeviceAttribute attr, cu::Device) {
  if (auto r = injected("cuDeviceGetAttribute")) return r;
  auto it = attributes.find(attr);
  if (it == attributes.end()) return cu::kErrorInvalidValue;
  *value = it->second;
  return cu::kSuccess;
}

cu::Result FakeDriver::device_get_name(char* name, int length, cu::Device) {
  if (auto r = injected("cuDeviceGetName")) return r;
  std::strncpy(name, device_name.c_str(), static_cast<std::size_t>(length));
  return cu::kSuccess;
}

cu::Result FakeDriver::primary_ctx_retain(cu::Context* ctx, cu::Device device) {
  if (auto r = injected("cuDevicePrimaryCtxRetain")) return r;
  ++retains;
  *ctx = handle<cu::Context>(0x1000 + static_cast<std::uintptr_t>(device));
  return cu::kSuccess;
}

cu::Result FakeDriver::primary_ctx_release(cu::Device) {
  ++releases;
  return cu::kSuccess;
}

cu::Result FakeDriver::ctx_set_current(cu::Context) {
  if (auto r = injected("cuCtxSetCurrent")) return r;
  ++set_current_calls;
  return cu::kSuccess;
}
cu::Result FakeDriver::ctx_synchronize() {
  return injected("cuCtxSynchronize");
}

cu::Result FakeDriver::stream_create(cu::Stream* stream, unsigned) {
  if (auto r = injected("cuStreamCreate")) return r;
  std::lock_guard lock(mutex_);
  ++live_streams;
  *stream = handle<cu::Stream>(next_handle_++);
  return cu::kSuccess;
}

cu::Result FakeDriver::stream_destroy(cu::Stream) {
  --live_streams;
  return cu::kSuccess;
}

cu::Result FakeDriver::stream_synchronize(cu::Stream) {
  return injected("cuStreamSynchronize");
}

cu::Result FakeDriver::event_create(cu::Event* event, unsigned) {
  if (auto r = injected("cuEventCreate")) return r;
  std::lock_guard lock(mutex_);
  ++live_events;
  *event = handle<cu::Event>(next_handle_++);
  return cu::kSuccess;
}

cu::Result FakeDriver::event_destroy(cu::Event) {
  --live_events;
  return cu::kSuccess;
}

cu::Result FakeDriver::event_record(cu::Event, cu::Stream) {
  if (auto r = injected("cuEventRecord")) return r;
  ++event_records;
  return cu::kSuccess;
}
cu::Result FakeDriver::event_synchronize(cu::Event) {
  return injected("cuEventSynchronize");
}

cu::Result FakeDriver::event_elapsed_time(float* ms, cu::Event, cu::Event) {
  if (auto r = injected("cuEventElapsedTime")) return r;
  std::lock_guard lock(mutex_);
  if (elapsed_ms_sequence.empty()) {
    *ms = 1.5f;
  } else {
    *ms = elapsed_ms_sequence[std::min(elapsed_calls_, elapsed_ms_sequence.size() - 1)];
    ++elapsed_calls_;
  }
  return cu::kSuccess;
}

cu::Result FakeDriver::mem_alloc(cu::DevicePtr* ptr, std::size_t bytes) {
  if (auto r = injected("cuMemAlloc")) return r;
  if (bytes == 0) return cu::kErrorInvalidValue;
  std::lock_guard lock(mutex_);
  *ptr = next_ptr_;
  memory_[next_ptr_] = std::vector<std::uint8_t>(bytes, 0xCD);
  next_ptr_ += (bytes + 0xFFFF) & ~std::uint64_t{0xFFFF};
  return cu::kSuccess;
}

cu::Result FakeDriver::mem_free(cu::DevicePtr ptr) {
  std::lock_guard lock(mutex_);
  return memory_.erase(ptr) == 1 ? cu::kSuccess : cu::kErrorInvalidValue;
}

cu::Result FakeDriver::memcpy_htod(cu::DevicePtr dst, const void* src, std::size_t bytes) {
  if (auto r = injected("cuMemcpyHtoD")) return r;
  std::lock_guard lock(mutex_);
  std::uint8_t* d = at(dst, bytes);
  if (d == nullptr) return cu::kErrorInvalidValue;
  std::memcpy(d, src, bytes);
  return cu::kSuccess;
}

cu::Result FakeDriver::memcpy_dtoh(void* dst, cu::DevicePtr src, std::size_t bytes) {
  if (auto r = injected("cuMemcpyDtoH")) return r;
  std::lock_guard lock(mutex_);
  std::uint8_t* s = at(src, bytes);
  if (s == nullptr) return cu::kErrorInvalidValue;
  std::memcpy(dst, s, bytes);
  return cu::kSuccess;
}

cu::Result FakeDriver::memcpy_dtod(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes) {
  if (auto r = injected("cuMemcpyDtoD")) return r;
  std::lock_guard lock(mutex_);
  std::uint8_t* d = at(dst, bytes);
  std::uint8_t* s = at(src, bytes);
  if (d == nullptr || s == nullptr) return cu::kErrorInvalidValue;
  std::memmove(d, s, bytes);
  return cu::kSuccess;
}

cu::Result FakeDriver::memset_d8(cu::DevicePtr dst, unsigned char value, std::size_t count) {
  if (auto r = injected("cuMemsetD8")) return r;
  std::lock_guard lock(mutex_);
  std::uint8_t* d = at(dst, count);
  if (d == nullptr) return cu::kErrorInvalidValue;
  std::memset(d, value, count);
  return cu::kSuccess;
}

cu::Result FakeDriver::memset_d32(cu::DevicePtr dst, unsigned value, std::size_t count) {
  if (auto r = injected("cuMemsetD32")) return r;
  std::lock_guard lock(mutex_);
  std::uint8_t* d = at(dst, count * 4);
  if (d == nullptr) return cu::kErrorInvalidValue;
  for (std::size_t i = 0; i < count; ++i)
    std::memcpy(d + 4 * i, &value, 4);
  return cu::kSuccess;
}

cu::Result FakeDriver::memcpy_dtod_async(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes,
                                         cu::Stream) {
  if (auto r = memcpy_dtod(dst, src, bytes)) return r;
  ++async_copies;
  return cu::kSuccess;
}

cu::Result FakeDriver::memset_d8_async(cu::DevicePtr dst, unsigned char value, std::size_t count,
                                       cu::Stream) {
  if (auto r = memset_d8(dst, value, count)) return r;
  ++async_memsets;
  return cu::kSuccess;
}

cu::Result FakeDriver::module_load_data_ex(cu::Module* module, const void* image,
                                           unsigned num_options, cu::JitOption* options,
                                           void** option_values) {
  ++loads;
  if (load_delay.count() > 0) std::this_thread::sleep_for(load_delay);
  const std::string ptx(static_cast<const char*>(image));
  char* error_log = nullptr;
  std::size_t error_size = 0;
  {
    std::lock_guard lock(mutex_);
    last_jit_options.assign(options, options + num_options);
    last_jit_values.clear();
    for (unsigned i = 0; i < num_options; ++i) {
      const bool buffer = options[i] == cu::JitOption::kInfoLogBuffer ||
                          options[i] == cu::JitOption::kErrorLogBuffer;
      last_jit_values.push_back(buffer ? 0 : reinterpret_cast<std::uintptr_t>(option_values[i]));
      if (options[i] == cu::JitOption::kErrorLogBuffer)
        error_log = static_cast<char*>(option_values[i]);
      if (options[i] == cu::JitOption::kErrorLogBufferSizeBytes)
        error_size = reinterpret_cast<std::uintptr_t>(option_values[i]);
    }
  }
  if (auto r = injected("cuModuleLoadDataEx")) return r;
  if (const auto mark = ptx.find("FAKE-JIT-ERROR: "); mark != std::string::npos) {
    int line = 1;
    for (std::size_t i = 0; i < mark; ++i)
      line += ptx[i] == '\n';
    const auto end = ptx.find('\n', mark);
    const std::string msg = ptx.substr(mark + 16, end == std::string::npos ? end : end - mark - 16);
    const std::string log = "ptxas application ptx input, line " + std::to_string(line) +
                            "; error   : " + msg +
                            "\nptxas fatal   : Ptx assembly aborted due "
                            "to errors\n";
    if (error_log != nullptr && error_size > 0) {
      const std::size_t n = std::min(log.size(), error_size - 1);
      std::memcpy(error_log, log.data(), n);
      error_log[n] = '\0';
    }
    return cu::kErrorInvalidPtx;
  }
  std::lock_guard lock(mutex_);
  const std::uintptr_t h = next_handle_++;
  modules_[h] = ptx;
  *module = handle<cu::Module>(h);
  return cu::kSuccess;
}

cu::Result FakeDriver::module_unload(cu::Module module) {
  std::lock_guard lock(mutex_);
  ++unloads;
  return modules_.erase(reinterpret_cast<std::uintptr_t>(module)) == 1 ? cu::kSuccess
                                                                       : cu::kErrorInvalidValue;
}

cu::Result FakeDriver::module_get_function(cu::Function* function, cu::Module module,
                                           const char* name) {
  if (auto r = injected("cuModuleGetFunction")) return r;
  std::lock_guard lock(mutex_);
  auto it = modules_.find(reinterpret_cast<std::uintptr_t>(module));
  if (it == modules_.end()) return cu::kErrorInvalidValue;
  if (it->second.find(".entry " + std::string(name)) == std::string::npos)
    return cu::kErrorNotFound;
  *function = handle<cu::Function>(next_handle_++);
  return cu::kSuccess;
}

cu::Result FakeDriver::func_get_attribute(int* value, cu::FunctionAttribute attr, cu::Function) {
  if (auto r = injected("cuFuncGetAttribute")) return r;
  auto it = function_attributes.find(attr);
  if (it == function_attributes.end()) return cu::kErrorInvalidValue;
  *value = it->second;
  return cu::kSuccess;
}

cu::Result FakeDriver::func_set_attribute(cu::Function, cu::FunctionAttribute attr, int value) {
  if (auto r = injected("cuFuncSetAttribute")) return r;
  ++set_attribute_calls;
  last_set_attribute_value = value;
  if (attr == cu::FunctionAttribute::kMaxDynamicSharedSizeBytes &&
      value > attributes[cu::DeviceAttribute::kMaxSharedMemoryPerBlockOptin])
    return cu::kErrorInvalidValue;
  return cu::kSuccess;
}

cu::Result FakeDriver::launch_kernel(cu::Function, unsigned gx, unsigned gy, unsigned gz,
                                     unsigned bx, unsigned by, unsigned bz, unsigned smem,
                                     cu::Stream, void** params, void**) {
  if (auto r = injected("cuLaunchKernel")) return r;
  std::lock_guard lock(mutex_);
  ++launches;
  last_grid[0] = gx, last_grid[1] = gy, last_grid[2] = gz;
  last_block[0] = bx, last_block[1] = by, last_block[2] = bz;
  last_smem = smem;
  last_args_u64.clear();
  for (std::size_t i = 0; i < 16 && expected_arg_bytes[i] != 0; ++i) {
    std::uint64_t v = 0;
    std::memcpy(&v, params[i], std::min<std::size_t>(8, expected_arg_bytes[i]));
    last_args_u64.push_back(v);
  }
  return cu::kSuccess;
}

cu::Result FakeDriver::get_error_name(cu::Result error, const char** name) {
  if (!can_name_errors) return cu::kErrorStubLibrary;
  switch (error) {
  case cu::kErrorOutOfMemory:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    return cu::kSuccess;
  case cu::kErrorNoDevice:
    *name = "CUDA_ERROR_NO_DEVICE";
    return cu::kSuccess;
  case cu::kErrorInvalidPtx:
    *name = "CUDA_ERROR_INVALID_PTX";
    return cu::kSuccess;
  case cu::kErrorCallRequiresNewerDriver:
    *name = "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER";
    return cu::kSuccess;
  case cu::kErrorInvalidValue:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return cu::kSuccess;
  case cu::kErrorLaunchFailed:
    *name = "CUDA_ERROR_LAUNCH_FAILED";
    return cu::kSuccess;
  default:
    return cu::kErrorInvalidValue;
  }
}

cu::Result FakeDriver::get_error_string(cu::Result error, const char** text) {
  if (!can_name_errors) return cu::kErrorStubLibrary;
  switch (error) {
  case cu::kErrorOutOfMemory:
    *text = "out of memory";
    return cu::kSuccess;
  case cu::kErrorNoDevice:
    *text = "no CUDA-capable device is detected";
    return cu::kSuccess;
  case cu::kErrorInvalidPtx:
    *text = "a PTX JIT compilation failed";
    return cu::kSuccess;
  case cu::kErrorCallRequiresNewerDriver:
    *text = "API call is not supported in the installed CUDA driver";
    return cu::kSuccess;
  case cu::kErrorInvalidValue:
    *text = "invalid argument";
    return cu::kSuccess;
  case cu::kErrorLaunchFailed:
    *text = "unspecified launch failure";
    return cu::kSuccess;
  default:
    return cu::kErrorInvalidValue;
  }
}

} // namespace ptxkit::runtime::testing
