// driver.h: the CUDA driver API as an interface, and the loader of the real one (libcuda.so.1).
//
// Everything above this interface (contexts, buffers, the module cache, launch checks) talks to
// the driver only through `Driver`, so the whole runtime is unit-tested without a GPU against a
// fake (tests/runtime/fake_driver.h). The methods mirror the driver's C entry points one to one
// and return the raw CUresult; `check()` turns a CUresult into an Error that carries the
// driver's own name and description of it.
#pragma once

#include "ptxkit/runtime/cuda_types.h"
#include "ptxkit/runtime/error.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace ptxkit::runtime {

class Driver {
public:
  virtual ~Driver() = default;

  // Where this driver came from ("libcuda.so.1", "fake driver"), for messages.
  virtual std::string_view origin() const = 0;

  virtual cu::Result init(unsigned flags) = 0;
  virtual cu::Result driver_get_version(int* version) = 0;
  virtual cu::Result device_get_count(int* count) = 0;
  virtual cu::Result device_get(cu::Device* device, int ordinal) = 0;
  virtual cu::Result device_get_attribute(int* value, cu::DeviceAttribute attr,
                                          cu::Device device) = 0;
  virtual cu::Result device_get_name(char* name, int length, cu::Device device) = 0;

  virtual cu::Result primary_ctx_retain(cu::Context* ctx, cu::Device device) = 0;
  virtual cu::Result primary_ctx_release(cu::Device device) = 0;
  virtual cu::Result ctx_set_current(cu::Context ctx) = 0;
  virtual cu::Result ctx_synchronize() = 0;

  virtual cu::Result stream_create(cu::Stream* stream, unsigned flags) = 0;
  virtual cu::Result stream_destroy(cu::Stream stream) = 0;
  virtual cu::Result stream_synchronize(cu::Stream stream) = 0;

  virtual cu::Result event_create(cu::Event* event, unsigned flags) = 0;
  virtual cu::Result event_destroy(cu::Event event) = 0;
  virtual cu::Result event_record(cu::Event event, cu::Stream stream) = 0;
  virtual cu::Result event_synchronize(cu::Event event) = 0;
  virtual cu::Result event_elapsed_time(float* ms, cu::Event start, cu::Event end) = 0;

  virtual cu::Result mem_alloc(cu::DevicePtr* ptr, std::size_t bytes) = 0;
  virtual cu::Result mem_free(cu::DevicePtr ptr) = 0;
  virtual cu::Result memcpy_htod(cu::DevicePtr dst, const void* src, std::size_t bytes) = 0;
  virtual cu::Result memcpy_dtoh(void* dst, cu::DevicePtr src, std::size_t bytes) = 0;
  virtual cu::Result memcpy_dtod(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes) = 0;
  virtual cu::Result memset_d8(cu::DevicePtr dst, unsigned char value, std::size_t count) = 0;
  virtual cu::Result memset_d32(cu::DevicePtr dst, unsigned value, std::size_t count) = 0;
  virtual cu::Result memcpy_dtod_async(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes,
                                       cu::Stream stream) = 0;
  virtual cu::Result memset_d8_async(cu::DevicePtr dst, unsigned char value, std::size_t count,
                                     cu::Stream stream) = 0;

  virtual cu::Result module_load_data_ex(cu::Module* module, const void* image,
                                         unsigned num_options, cu::JitOption* options,
                                         void** option_values) = 0;
  virtual cu::Result module_unload(cu::Module module) = 0;
  virtual cu::Result module_get_function(cu::Function* function, cu::Module module,
                                         const char* name) = 0;
  virtual cu::Result func_get_attribute(int* value, cu::FunctionAttribute attr,
                                        cu::Function function) = 0;
  virtual cu::Result func_set_attribute(cu::Function function, cu::FunctionAttribute attr,
                                        int value) = 0;
  virtual cu::Result launch_kernel(cu::Function function, unsigned grid_x, unsigned grid_y,
                                   unsigned grid_z, unsigned block_x, unsigned block_y,
                                   unsigned block_z, unsigned shared_bytes, cu::Stream stream,
                                   void** params, void** extra) = 0;

  // Stream capture and graphs (CUDA 10+; the runtime needs CUDA 12.0 anyway). While a stream
  // captures, the work enqueued on it is recorded into a graph instead of running; the graph is
  // instantiated once and then launched, each launch replaying all of it with one call.
  virtual cu::Result stream_begin_capture(cu::Stream stream, cu::StreamCaptureMode mode) = 0;
  virtual cu::Result stream_end_capture(cu::Stream stream, cu::Graph* graph) = 0;
  virtual cu::Result stream_is_capturing(cu::Stream stream, cu::StreamCaptureStatus* status) = 0;
  virtual cu::Result graph_instantiate(cu::GraphExec* exec, cu::Graph graph,
                                       unsigned long long flags) = 0;
  virtual cu::Result graph_launch(cu::GraphExec exec, cu::Stream stream) = 0;
  virtual cu::Result graph_exec_destroy(cu::GraphExec exec) = 0;
  virtual cu::Result graph_destroy(cu::Graph graph) = 0;

  virtual cu::Result get_error_name(cu::Result error, const char** name) = 0;
  virtual cu::Result get_error_string(cu::Result error, const char** text) = 0;
};

// The ErrorKind a failing CUresult maps to: no device, driver too old, no driver (the stub
// library), device unsupported (no binary for this GPU) or kDriver for everything else.
ErrorKind kind_of(cu::Result r);

// Builds the Error for `call` having returned `r`, e.g.
// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)". The name and description come
// from the driver (cuGetErrorName/String) and fall back to the built-in table when it cannot say.
Error driver_error(Driver& driver, cu::Result r, std::string_view call);

// Success, or the Error of driver_error().
inline Expected<void> check(Driver& driver, cu::Result r, std::string_view call) {
  if (r == cu::kSuccess) return {};
  return fail(driver_error(driver, r, call));
}

// dlopen()s the CUDA driver library: `path` if given, else $PTXKIT_LIBCUDA if set, else
// "libcuda.so.1". Fails with kNoDriver when the library cannot be opened or lacks an entry
// point the runtime needs (saying which), so a machine without the NVIDIA driver is told so.
Expected<std::shared_ptr<Driver>> load_cuda_driver(std::string path = {});

} // namespace ptxkit::runtime
