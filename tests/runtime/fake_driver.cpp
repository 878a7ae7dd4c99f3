// fake_driver.cpp: the fake libcuda's behaviour (see fake_driver.h).
//
// Handles are small integers cast to the opaque pointer types; the runtime never dereferences
// them, so any distinct non-null value serves.
#include "fake_driver.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>
#include <thread>

namespace ptxkit::runtime::testing {
namespace {

template <class H>
H handle(std::uintptr_t v) {
  return reinterpret_cast<H>(v);
}

template <class H>
std::uintptr_t key(H h) {
  return reinterpret_cast<std::uintptr_t>(h);
}

// The byte size of each `.param` of `.entry name` in `ptx`, as the driver knows it from the
// compiled function: `.u32` is 4, `.v2.f32` 8, `.align 8 .b8 p[24]` 24.
std::vector<std::size_t> entry_param_sizes(const std::string& ptx, const std::string& name) {
  std::vector<std::size_t> sizes;
  const auto entry = ptx.find(".entry " + name);
  if (entry == std::string::npos) return sizes;
  const auto open = ptx.find_first_not_of(" \t\n", entry + 7 + name.size());
  if (open == std::string::npos || ptx[open] != '(') return sizes;
  const auto close = ptx.find(')', open);
  std::stringstream list(ptx.substr(open + 1, close - open - 1));
  std::string decl;
  while (std::getline(list, decl, ',')) {
    std::stringstream tokens(decl);
    std::string t, last;
    std::size_t size = 0, vector = 1;
    while (tokens >> t) {
      last = t;
      if (t.size() >= 3 && t[0] == '.' && t[1] == 'v' &&
          std::isdigit(static_cast<unsigned char>(t[2]))) {
        vector = std::stoul(t.substr(2));
      } else if (t.size() >= 3 && t[0] == '.' && std::strchr("usfb", t[1]) != nullptr &&
                 std::isdigit(static_cast<unsigned char>(t[2]))) {
        size = std::stoul(t.substr(2)) / 8;
      }
    }
    if (size == 0) continue;
    if (const auto bracket = last.find('['); bracket != std::string::npos)
      size *= std::stoul(last.substr(bracket + 1));
    sizes.push_back(size * vector);
  }
  return sizes;
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
  if (auto r = injected("cuCtxSynchronize")) return r;
  std::lock_guard lock(mutex_);
  // Waiting for the whole context while one of its streams captures is invalid: it would wait
  // for work that does not run. Every capture of the context is invalidated.
  if (captures_.empty()) return cu::kSuccess;
  for (auto& [stream, c] : captures_) {
    if (!c.invalidated) ++invalidations;
    c.invalidated = true;
  }
  return cu::kErrorStreamCaptureUnsupported;
}

cu::Result FakeDriver::stream_create(cu::Stream* stream, unsigned) {
  if (auto r = injected("cuStreamCreate")) return r;
  std::lock_guard lock(mutex_);
  ++live_streams;
  *stream = handle<cu::Stream>(next_handle_++);
  return cu::kSuccess;
}

cu::Result FakeDriver::stream_destroy(cu::Stream stream) {
  std::lock_guard lock(mutex_);
  captures_.erase(key(stream));
  --live_streams;
  return cu::kSuccess;
}

cu::Result FakeDriver::stream_synchronize(cu::Stream stream) {
  if (auto r = injected("cuStreamSynchronize")) return r;
  std::lock_guard lock(mutex_);
  if (Capture* c = capturing_locked(stream)) {
    if (!c->invalidated) ++invalidations;
    c->invalidated = true;
    return cu::kErrorStreamCaptureUnsupported;
  }
  return cu::kSuccess;
}

cu::Result FakeDriver::event_create(cu::Event* event, unsigned) {
  if (auto r = injected("cuEventCreate")) return r;
  std::lock_guard lock(mutex_);
  ++live_events;
  *event = handle<cu::Event>(next_handle_++);
  return cu::kSuccess;
}

cu::Result FakeDriver::event_destroy(cu::Event event) {
  std::lock_guard lock(mutex_);
  captured_events_.erase(key(event));
  --live_events;
  return cu::kSuccess;
}

cu::Result FakeDriver::event_record(cu::Event event, cu::Stream stream) {
  if (auto r = injected("cuEventRecord")) return r;
  std::lock_guard lock(mutex_);
  captured_events_[key(event)] = capturing_locked(stream) != nullptr;
  ++event_records;
  return cu::kSuccess;
}
cu::Result FakeDriver::event_synchronize(cu::Event event) {
  if (auto r = injected("cuEventSynchronize")) return r;
  std::lock_guard lock(mutex_);
  return captured_events_[key(event)] ? cu::kErrorCapturedEvent : cu::kSuccess;
}

cu::Result FakeDriver::event_elapsed_time(float* ms, cu::Event start, cu::Event end) {
  if (auto r = injected("cuEventElapsedTime")) return r;
  std::lock_guard lock(mutex_);
  if (captured_events_[key(start)] || captured_events_[key(end)]) return cu::kErrorCapturedEvent;
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
  if (forbid_unsafe_locked()) return cu::kErrorStreamCaptureUnsupported;
  *ptr = next_ptr_;
  memory_[next_ptr_] = std::vector<std::uint8_t>(bytes, 0xCD);
  next_ptr_ += (bytes + 0xFFFF) & ~std::uint64_t{0xFFFF};
  return cu::kSuccess;
}

cu::Result FakeDriver::mem_free(cu::DevicePtr ptr) {
  std::lock_guard lock(mutex_);
  if (forbid_unsafe_locked()) return cu::kErrorStreamCaptureUnsupported;
  return memory_.erase(ptr) == 1 ? cu::kSuccess : cu::kErrorInvalidValue;
}

cu::Result FakeDriver::memcpy_htod(cu::DevicePtr dst, const void* src, std::size_t bytes) {
  if (auto r = injected("cuMemcpyHtoD")) return r;
  std::lock_guard lock(mutex_);
  if (forbid_unsafe_locked()) return cu::kErrorStreamCaptureUnsupported;
  std::uint8_t* d = at(dst, bytes);
  if (d == nullptr) return cu::kErrorInvalidValue;
  std::memcpy(d, src, bytes);
  return cu::kSuccess;
}

cu::Result FakeDriver::memcpy_dtoh(void* dst, cu::DevicePtr src, std::size_t bytes) {
  if (auto r = injected("cuMemcpyDtoH")) return r;
  std::lock_guard lock(mutex_);
  if (forbid_unsafe_locked()) return cu::kErrorStreamCaptureUnsupported;
  std::uint8_t* s = at(src, bytes);
  if (s == nullptr) return cu::kErrorInvalidValue;
  std::memcpy(dst, s, bytes);
  return cu::kSuccess;
}

cu::Result FakeDriver::copy_locked(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes) {
  std::uint8_t* d = at(dst, bytes);
  std::uint8_t* s = at(src, bytes);
  if (d == nullptr || s == nullptr) return cu::kErrorInvalidValue;
  std::memmove(d, s, bytes);
  return cu::kSuccess;
}

cu::Result FakeDriver::set_locked(cu::DevicePtr dst, unsigned char value, std::size_t count) {
  std::uint8_t* d = at(dst, count);
  if (d == nullptr) return cu::kErrorInvalidValue;
  std::memset(d, value, count);
  return cu::kSuccess;
}

cu::Result FakeDriver::memcpy_dtod(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes) {
  if (auto r = injected("cuMemcpyDtoD")) return r;
  std::lock_guard lock(mutex_);
  if (forbid_unsafe_locked()) return cu::kErrorStreamCaptureUnsupported;
  return copy_locked(dst, src, bytes);
}

cu::Result FakeDriver::memset_d8(cu::DevicePtr dst, unsigned char value, std::size_t count) {
  if (auto r = injected("cuMemsetD8")) return r;
  std::lock_guard lock(mutex_);
  if (forbid_unsafe_locked()) return cu::kErrorStreamCaptureUnsupported;
  return set_locked(dst, value, count);
}

cu::Result FakeDriver::memset_d32(cu::DevicePtr dst, unsigned value, std::size_t count) {
  if (auto r = injected("cuMemsetD32")) return r;
  std::lock_guard lock(mutex_);
  if (forbid_unsafe_locked()) return cu::kErrorStreamCaptureUnsupported;
  std::uint8_t* d = at(dst, count * 4);
  if (d == nullptr) return cu::kErrorInvalidValue;
  for (std::size_t i = 0; i < count; ++i)
    std::memcpy(d + 4 * i, &value, 4);
  return cu::kSuccess;
}

cu::Result FakeDriver::memcpy_dtod_async(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes,
                                         cu::Stream stream) {
  if (auto r = injected("cuMemcpyDtoD")) return r;
  std::lock_guard lock(mutex_);
  if (Capture* c = capturing_locked(stream)) {
    if (at(dst, bytes) == nullptr || at(src, bytes) == nullptr) return cu::kErrorInvalidValue;
    Op op;
    op.kind = Op::kCopy, op.dst = dst, op.src = src, op.bytes = bytes;
    c->ops.push_back(std::move(op));
    ++captured_operations;
    return cu::kSuccess;
  }
  if (auto r = copy_locked(dst, src, bytes)) return r;
  ++async_copies;
  return cu::kSuccess;
}

cu::Result FakeDriver::memset_d8_async(cu::DevicePtr dst, unsigned char value, std::size_t count,
                                       cu::Stream stream) {
  if (auto r = injected("cuMemsetD8")) return r;
  std::lock_guard lock(mutex_);
  if (Capture* c = capturing_locked(stream)) {
    if (at(dst, count) == nullptr) return cu::kErrorInvalidValue;
    Op op;
    op.kind = Op::kMemset, op.dst = dst, op.value = value, op.bytes = count;
    c->ops.push_back(std::move(op));
    ++captured_operations;
    return cu::kSuccess;
  }
  if (auto r = set_locked(dst, value, count)) return r;
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
  const std::uintptr_t h = next_handle_++;
  param_sizes_[h] = entry_param_sizes(it->second, name);
  *function = handle<cu::Function>(h);
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

cu::Result FakeDriver::launch_kernel(cu::Function function, unsigned gx, unsigned gy, unsigned gz,
                                     unsigned bx, unsigned by, unsigned bz, unsigned smem,
                                     cu::Stream stream, void** params, void**) {
  if (auto r = injected("cuLaunchKernel")) return r;
  std::lock_guard lock(mutex_);
  LaunchRecord launch;
  launch.function = function;
  launch.grid[0] = gx, launch.grid[1] = gy, launch.grid[2] = gz;
  launch.block[0] = bx, launch.block[1] = by, launch.block[2] = bz;
  launch.smem = smem;
  if (Capture* c = capturing_locked(stream)) {
    // The driver copies the argument values into the graph now: a replay passes these bytes,
    // whatever the caller's variables hold by then.
    if (auto it = param_sizes_.find(key(function)); it != param_sizes_.end())
      for (std::size_t i = 0; i < it->second.size(); ++i) {
        const auto* bytes = static_cast<const std::uint8_t*>(params[i]);
        launch.args.emplace_back(bytes, bytes + it->second[i]);
      }
    Op op;
    op.kind = Op::kKernel, op.launch = std::move(launch);
    c->ops.push_back(std::move(op));
    ++captured_operations;
    return cu::kSuccess;
  }
  run_kernel_locked(launch, params);
  return cu::kSuccess;
}

void FakeDriver::run_kernel_locked(const LaunchRecord& launch, const void* const* params) {
  ++launches;
  std::copy(launch.grid, launch.grid + 3, last_grid);
  std::copy(launch.block, launch.block + 3, last_block);
  last_smem = launch.smem;
  last_args_u64.clear();
  for (std::size_t i = 0;
       i < 16 && expected_arg_bytes[i] != 0 && params != nullptr && params[i] != nullptr; ++i) {
    std::uint64_t v = 0;
    std::memcpy(&v, params[i], std::min<std::size_t>(8, expected_arg_bytes[i]));
    last_args_u64.push_back(v);
  }
  if (!log_launches) return;
  LaunchRecord logged = launch;
  logged.args.clear();
  if (auto it = param_sizes_.find(key(launch.function)); it != param_sizes_.end())
    for (std::size_t i = 0; i < it->second.size(); ++i) {
      const auto* bytes = static_cast<const std::uint8_t*>(params[i]);
      logged.args.emplace_back(bytes, bytes + it->second[i]);
    }
  launch_log.push_back(std::move(logged));
}

// ---- capture and graphs ----

FakeDriver::Capture* FakeDriver::capturing_locked(cu::Stream stream) {
  auto it = captures_.find(key(stream));
  return it == captures_.end() ? nullptr : &it->second;
}

bool FakeDriver::forbid_unsafe_locked() {
  const auto self = std::this_thread::get_id();
  bool forbidden = false;
  for (auto& [stream, c] : captures_) {
    if (c.mode == cu::StreamCaptureMode::kRelaxed) continue;
    if (c.thread == self || c.mode == cu::StreamCaptureMode::kGlobal) {
      if (!c.invalidated) ++invalidations;
      c.invalidated = true;
      forbidden = true;
    }
  }
  return forbidden;
}

cu::Result FakeDriver::stream_begin_capture(cu::Stream stream, cu::StreamCaptureMode mode) {
  if (auto r = injected("cuStreamBeginCapture")) return r;
  // The legacy default stream cannot be captured.
  if (stream == nullptr) return cu::kErrorStreamCaptureUnsupported;
  std::lock_guard lock(mutex_);
  if (capturing_locked(stream) != nullptr) return cu::kErrorIllegalState;
  Capture& c = captures_[key(stream)];
  c.mode = mode;
  c.thread = std::this_thread::get_id();
  return cu::kSuccess;
}

cu::Result FakeDriver::stream_end_capture(cu::Stream stream, cu::Graph* graph) {
  if (auto r = injected("cuStreamEndCapture")) return r;
  std::lock_guard lock(mutex_);
  Capture* c = capturing_locked(stream);
  if (c == nullptr) return cu::kErrorIllegalState;
  if (c->mode != cu::StreamCaptureMode::kRelaxed && c->thread != std::this_thread::get_id())
    return cu::kErrorStreamCaptureWrongThread;
  // The capture ends either way; an invalidated one yields no graph.
  Capture ended = std::move(*c);
  captures_.erase(key(stream));
  *graph = nullptr;
  if (ended.invalidated) return cu::kErrorStreamCaptureInvalidated;
  const std::uintptr_t h = next_handle_++;
  graphs_[h] = std::move(ended.ops);
  ++live_graphs;
  *graph = handle<cu::Graph>(h);
  return cu::kSuccess;
}

cu::Result FakeDriver::stream_is_capturing(cu::Stream stream, cu::StreamCaptureStatus* status) {
  if (auto r = injected("cuStreamIsCapturing")) return r;
  std::lock_guard lock(mutex_);
  const Capture* c = capturing_locked(stream);
  *status = c == nullptr     ? cu::StreamCaptureStatus::kNone
            : c->invalidated ? cu::StreamCaptureStatus::kInvalidated
                             : cu::StreamCaptureStatus::kActive;
  return cu::kSuccess;
}

cu::Result FakeDriver::graph_instantiate(cu::GraphExec* exec, cu::Graph graph,
                                         unsigned long long flags) {
  if (auto r = injected("cuGraphInstantiateWithFlags")) return r;
  std::lock_guard lock(mutex_);
  auto it = graphs_.find(key(graph));
  if (it == graphs_.end() || flags != 0) return cu::kErrorInvalidValue;
  const std::uintptr_t h = next_handle_++;
  execs_[h] = it->second; // a copy: the executable graph outlives the graph
  ++live_graph_execs;
  *exec = handle<cu::GraphExec>(h);
  return cu::kSuccess;
}

cu::Result FakeDriver::graph_launch(cu::GraphExec exec, cu::Stream stream) {
  if (auto r = injected("cuGraphLaunch")) return r;
  std::lock_guard lock(mutex_);
  auto it = execs_.find(key(exec));
  if (it == execs_.end()) return cu::kErrorInvalidValue;
  // A graph launched into a capturing stream would become a child graph; not modelled.
  if (capturing_locked(stream) != nullptr) return cu::kErrorStreamCaptureUnsupported;
  ++graph_launches;
  for (const Op& op : it->second) {
    switch (op.kind) {
    case Op::kKernel: {
      const void* params[64] = {};
      for (std::size_t i = 0; i < op.launch.args.size() && i < 64; ++i)
        params[i] = op.launch.args[i].data();
      run_kernel_locked(op.launch, params);
      break;
    }
    case Op::kCopy:
      if (auto r = copy_locked(op.dst, op.src, op.bytes)) return r;
      break;
    case Op::kMemset:
      if (auto r = set_locked(op.dst, op.value, op.bytes)) return r;
      break;
    }
  }
  return cu::kSuccess;
}

cu::Result FakeDriver::graph_exec_destroy(cu::GraphExec exec) {
  std::lock_guard lock(mutex_);
  if (execs_.erase(key(exec)) != 1) return cu::kErrorInvalidValue;
  --live_graph_execs;
  return cu::kSuccess;
}

cu::Result FakeDriver::graph_destroy(cu::Graph graph) {
  std::lock_guard lock(mutex_);
  if (graphs_.erase(key(graph)) != 1) return cu::kErrorInvalidValue;
  --live_graphs;
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
