// fake_driver.h: an in-process stand-in for libcuda, for the runtime's unit tests.
//
// It keeps just enough state to make the runtime's behaviour observable without a GPU: device
// memory is host memory (copies really copy), modules remember their PTX and find `.entry`
// names in it, every call is counted, and any call can be made to fail with a chosen CUresult.
// A PTX line containing `FAKE-JIT-ERROR: msg` makes the load fail with a ptxas-style error log
// naming that line, as the real JIT does.
//
// Stream capture works as the driver's does: while a stream captures, kernel launches and async
// copies/memsets on it are recorded instead of run (a launch's argument bytes copied then, their
// sizes read from the `.entry`'s `.param` list), cuGraphLaunch runs the recorded operations in
// order, and the calls the driver forbids during a capture fail with its CUresults and
// invalidate the capture (a synchronize of the capturing stream or the context, a blocking copy,
// an allocation or free from a thread the capture mode covers, a wait on a captured event).
#pragma once

#include "ptxkit/runtime/driver.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ptxkit::runtime::testing {

// One kernel launch that ran (directly, or replayed from a graph).
struct LaunchRecord {
  cu::Function function = nullptr;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned smem = 0;
  std::vector<std::vector<std::uint8_t>> args; // each argument's bytes, as the kernel saw them
  bool operator==(const LaunchRecord&) const = default;
};

class FakeDriver final : public Driver {
public:
  // ---- configuration (set before use) ----
  int driver_version = 13000;
  int device_count = 1;
  std::string device_name = "Fake H200";
  std::map<cu::DeviceAttribute, int> attributes;            // filled with H200-like values
  std::map<cu::FunctionAttribute, int> function_attributes; // defaults below
  bool can_name_errors = true; // false: cuGetErrorName/String fail, like the stub library
  std::chrono::milliseconds load_delay{0}; // widens the compile window for cache races
  // cuEventElapsedTime answers these in turn (then repeats the last); empty: 1.5 ms.
  std::vector<float> elapsed_ms_sequence;

  FakeDriver();
  // The next call to `call` (e.g. "cuMemAlloc") returns `r` instead of running.
  void fail_next(const std::string& call, cu::Result r);

  // ---- observations ----
  std::atomic<int> loads{0}; // cuModuleLoadDataEx calls (successful or not)
  std::atomic<int> unloads{0};
  std::atomic<int> launches{0};
  std::atomic<int> retains{0};
  std::atomic<int> releases{0};
  std::atomic<int> live_streams{0};
  std::atomic<int> live_events{0};
  std::atomic<int> set_attribute_calls{0};
  std::atomic<int> async_copies{0};
  std::atomic<int> async_memsets{0};
  std::atomic<int> event_records{0};
  std::atomic<int> set_current_calls{0};
  int last_set_attribute_value = 0;
  std::vector<cu::JitOption> last_jit_options;
  std::vector<std::uintptr_t> last_jit_values; // scalar option values (buffers as 0)
  unsigned last_grid[3] = {0, 0, 0};
  unsigned last_block[3] = {0, 0, 0};
  unsigned last_smem = 0;
  std::vector<std::uint64_t> last_args_u64; // the first 8 bytes (or fewer) of each argument
  std::size_t expected_arg_bytes[16] = {};  // sizes the test says the arguments have
  std::size_t live_allocations() const;
  // Graphs.
  bool log_launches = false;               // true: every launch that runs is appended to launch_log
  std::vector<LaunchRecord> launch_log;    // (off by default: logging allocates)
  std::atomic<int> captured_operations{0}; // launches, copies, memsets recorded by captures
  std::atomic<int> graph_launches{0};
  std::atomic<int> live_graphs{0};
  std::atomic<int> live_graph_execs{0};
  std::atomic<int> invalidations{0}; // captures invalidated by a forbidden call

  // ---- Driver ----
  std::string_view origin() const override { return "fake driver"; }
  cu::Result init(unsigned flags) override;
  cu::Result driver_get_version(int* version) override;
  cu::Result device_get_count(int* count) override;
  cu::Result device_get(cu::Device* device, int ordinal) override;
  cu::Result device_get_attribute(int* value, cu::DeviceAttribute attr, cu::Device device) override;
  cu::Result device_get_name(char* name, int length, cu::Device device) override;
  cu::Result primary_ctx_retain(cu::Context* ctx, cu::Device device) override;
  cu::Result primary_ctx_release(cu::Device device) override;
  cu::Result ctx_set_current(cu::Context ctx) override;
  cu::Result ctx_synchronize() override;
  cu::Result stream_create(cu::Stream* stream, unsigned flags) override;
  cu::Result stream_destroy(cu::Stream stream) override;
  cu::Result stream_synchronize(cu::Stream stream) override;
  cu::Result event_create(cu::Event* event, unsigned flags) override;
  cu::Result event_destroy(cu::Event event) override;
  cu::Result event_record(cu::Event event, cu::Stream stream) override;
  cu::Result event_synchronize(cu::Event event) override;
  cu::Result event_elapsed_time(float* ms, cu::Event start, cu::Event end) override;
  cu::Result mem_alloc(cu::DevicePtr* ptr, std::size_t bytes) override;
  cu::Result mem_free(cu::DevicePtr ptr) override;
  cu::Result memcpy_htod(cu::DevicePtr dst, const void* src, std::size_t bytes) override;
  cu::Result memcpy_dtoh(void* dst, cu::DevicePtr src, std::size_t bytes) override;
  cu::Result memcpy_dtod(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes) override;
  cu::Result memset_d8(cu::DevicePtr dst, unsigned char value, std::size_t count) override;
  cu::Result memset_d32(cu::DevicePtr dst, unsigned value, std::size_t count) override;
  cu::Result memcpy_dtod_async(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes,
                               cu::Stream stream) override;
  cu::Result memset_d8_async(cu::DevicePtr dst, unsigned char value, std::size_t count,
                             cu::Stream stream) override;
  cu::Result module_load_data_ex(cu::Module* module, const void* image, unsigned num_options,
                                 cu::JitOption* options, void** option_values) override;
  cu::Result module_unload(cu::Module module) override;
  cu::Result module_get_function(cu::Function* function, cu::Module module,
                                 const char* name) override;
  cu::Result func_get_attribute(int* value, cu::FunctionAttribute attr,
                                cu::Function function) override;
  cu::Result func_set_attribute(cu::Function function, cu::FunctionAttribute attr,
                                int value) override;
  cu::Result launch_kernel(cu::Function function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                           unsigned block_x, unsigned block_y, unsigned block_z,
                           unsigned shared_bytes, cu::Stream stream, void** params,
                           void** extra) override;
  cu::Result stream_begin_capture(cu::Stream stream, cu::StreamCaptureMode mode) override;
  cu::Result stream_end_capture(cu::Stream stream, cu::Graph* graph) override;
  cu::Result stream_is_capturing(cu::Stream stream, cu::StreamCaptureStatus* status) override;
  cu::Result graph_instantiate(cu::GraphExec* exec, cu::Graph graph,
                               unsigned long long flags) override;
  cu::Result graph_launch(cu::GraphExec exec, cu::Stream stream) override;
  cu::Result graph_exec_destroy(cu::GraphExec exec) override;
  cu::Result graph_destroy(cu::Graph graph) override;
  cu::Result get_error_name(cu::Result error, const char** name) override;
  cu::Result get_error_string(cu::Result error, const char** text) override;

private:
  // An operation recorded by a capture.
  struct Op {
    enum Kind { kKernel, kCopy, kMemset } kind = kKernel;
    LaunchRecord launch;   // kKernel
    cu::DevicePtr dst = 0; // kCopy, kMemset
    cu::DevicePtr src = 0; // kCopy
    std::size_t bytes = 0;
    unsigned char value = 0; // kMemset
  };
  struct Capture {
    cu::StreamCaptureMode mode = cu::StreamCaptureMode::kGlobal;
    std::thread::id thread;
    bool invalidated = false;
    std::vector<Op> ops;
  };

  // The injected failure for `call`, or kSuccess.
  cu::Result injected(const char* call);
  // Finds the allocation holding [ptr, ptr+bytes); nullptr if none.
  std::uint8_t* at(cu::DevicePtr ptr, std::size_t bytes);
  // The driver's rule for "potentially unsafe" calls (blocking copies, allocation): forbidden
  // when this thread has a capture in progress not begun relaxed, or another thread has a
  // global one; such a call invalidates those captures. True if forbidden.
  bool forbid_unsafe_locked();
  // The capture in progress on `stream`, or nullptr.
  Capture* capturing_locked(cu::Stream stream);
  // Runs a kernel launch: counts it, remembers its shape, logs it.
  void run_kernel_locked(const LaunchRecord& launch, const void* const* params);
  cu::Result copy_locked(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes);
  cu::Result set_locked(cu::DevicePtr dst, unsigned char value, std::size_t count);

  mutable std::mutex mutex_;
  std::map<std::string, cu::Result> failures_;
  std::map<cu::DevicePtr, std::vector<std::uint8_t>> memory_;
  cu::DevicePtr next_ptr_ = 0x10000;
  std::map<std::uintptr_t, std::string> modules_;                  // handle -> PTX text
  std::map<std::uintptr_t, std::vector<std::size_t>> param_sizes_; // function -> .param sizes
  std::map<std::uintptr_t, Capture> captures_;                     // stream -> capture
  std::map<std::uintptr_t, std::vector<Op>> graphs_;               // CUgraph -> its operations
  std::map<std::uintptr_t, std::vector<Op>> execs_;                // CUgraphExec -> same
  std::map<std::uintptr_t, bool> captured_events_; // event -> last recorded in a capture
  std::uintptr_t next_handle_ = 0x100;
  std::size_t elapsed_calls_ = 0;
};

} // namespace ptxkit::runtime::testing
