// dlopen_driver.cpp: the real Driver, resolving the CUDA driver API from libcuda.so.1 at run time.
//
// Linking against libcuda would make every ptxkit binary unusable (and every test unrunnable) on
// a machine without the NVIDIA driver, CI included. Resolving the entry points with dlsym keeps
// the dependency at run time, where its absence is an ordinary error value (kNoDriver) that
// `ptxkit run` reports with exit code 3. The versioned names (`_v2`) are the ones <cuda.h> maps
// the plain names to; each pointer type below spells the C signature with cuda_types.h's types,
// which have the driver ABI's sizes.
#include "ptxkit/runtime/driver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <string>

namespace ptxkit::runtime {
namespace {

using cu::Result;

struct Entry {
  Result (*init)(unsigned) = nullptr;
  Result (*driver_get_version)(int*) = nullptr;
  Result (*device_get_count)(int*) = nullptr;
  Result (*device_get)(cu::Device*, int) = nullptr;
  Result (*device_get_attribute)(int*, int, cu::Device) = nullptr;
  Result (*device_get_name)(char*, int, cu::Device) = nullptr;
  Result (*primary_ctx_retain)(cu::Context*, cu::Device) = nullptr;
  Result (*primary_ctx_release)(cu::Device) = nullptr;
  Result (*ctx_set_current)(cu::Context) = nullptr;
  Result (*ctx_synchronize)() = nullptr;
  Result (*stream_create)(cu::Stream*, unsigned) = nullptr;
  Result (*stream_destroy)(cu::Stream) = nullptr;
  Result (*stream_synchronize)(cu::Stream) = nullptr;
  Result (*event_create)(cu::Event*, unsigned) = nullptr;
  Result (*event_destroy)(cu::Event) = nullptr;
  Result (*event_record)(cu::Event, cu::Stream) = nullptr;
  Result (*event_synchronize)(cu::Event) = nullptr;
  Result (*event_elapsed_time)(float*, cu::Event, cu::Event) = nullptr;
  Result (*mem_alloc)(cu::DevicePtr*, std::size_t) = nullptr;
  Result (*mem_free)(cu::DevicePtr) = nullptr;
  Result (*memcpy_htod)(cu::DevicePtr, const void*, std::size_t) = nullptr;
  Result (*memcpy_dtoh)(void*, cu::DevicePtr, std::size_t) = nullptr;
  Result (*memcpy_dtod)(cu::DevicePtr, cu::DevicePtr, std::size_t) = nullptr;
  Result (*memset_d8)(cu::DevicePtr, unsigned char, std::size_t) = nullptr;
  Result (*memset_d32)(cu::DevicePtr, unsigned, std::size_t) = nullptr;
  Result (*memcpy_dtod_async)(cu::DevicePtr, cu::DevicePtr, std::size_t, cu::Stream) = nullptr;
  Result (*memset_d8_async)(cu::DevicePtr, unsigned char, std::size_t, cu::Stream) = nullptr;
  Result (*module_load_data_ex)(cu::Module*, const void*, unsigned, int*, void**) = nullptr;
  Result (*module_unload)(cu::Module) = nullptr;
  Result (*module_get_function)(cu::Function*, cu::Module, const char*) = nullptr;
  Result (*func_get_attribute)(int*, int, cu::Function) = nullptr;
  Result (*func_set_attribute)(cu::Function, int, int) = nullptr;
  Result (*launch_kernel)(cu::Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                          unsigned, cu::Stream, void**, void**) = nullptr;
  Result (*stream_begin_capture)(cu::Stream, int) = nullptr;
  Result (*stream_end_capture)(cu::Stream, cu::Graph*) = nullptr;
  Result (*stream_is_capturing)(cu::Stream, int*) = nullptr;
  Result (*graph_instantiate)(cu::GraphExec*, cu::Graph, unsigned long long) = nullptr;
  Result (*graph_launch)(cu::GraphExec, cu::Stream) = nullptr;
  Result (*graph_exec_destroy)(cu::GraphExec) = nullptr;
  Result (*graph_destroy)(cu::Graph) = nullptr;
  Result (*get_error_name)(Result, const char**) = nullptr;
  Result (*get_error_string)(Result, const char**) = nullptr;
};

static_assert(sizeof(cu::JitOption) == sizeof(int) && sizeof(cu::DeviceAttribute) == sizeof(int) &&
                  sizeof(cu::StreamCaptureMode) == sizeof(int) &&
                  sizeof(cu::StreamCaptureStatus) == sizeof(int),
              "the driver's enums are passed as int");

class DlopenDriver final : public Driver {
public:
  DlopenDriver(void* handle, std::string origin, Entry entry)
      : handle_(handle), origin_(std::move(origin)), e_(entry) {}
  ~DlopenDriver() override {
    // The library stays loaded: the driver keeps process-wide state (and threads) that other
    // parts of a program may share, and unloading libcuda while they run is undefined.
    (void)handle_;
  }

  std::string_view origin() const override { return origin_; }

  Result init(unsigned flags) override { return e_.init(flags); }
  Result driver_get_version(int* v) override { return e_.driver_get_version(v); }
  Result device_get_count(int* c) override { return e_.device_get_count(c); }
  Result device_get(cu::Device* d, int ordinal) override { return e_.device_get(d, ordinal); }
  Result device_get_attribute(int* v, cu::DeviceAttribute a, cu::Device d) override {
    return e_.device_get_attribute(v, static_cast<int>(a), d);
  }
  Result device_get_name(char* n, int len, cu::Device d) override {
    return e_.device_get_name(n, len, d);
  }
  Result primary_ctx_retain(cu::Context* c, cu::Device d) override {
    return e_.primary_ctx_retain(c, d);
  }
  Result primary_ctx_release(cu::Device d) override { return e_.primary_ctx_release(d); }
  Result ctx_set_current(cu::Context c) override { return e_.ctx_set_current(c); }
  Result ctx_synchronize() override { return e_.ctx_synchronize(); }
  Result stream_create(cu::Stream* s, unsigned f) override { return e_.stream_create(s, f); }
  Result stream_destroy(cu::Stream s) override { return e_.stream_destroy(s); }
  Result stream_synchronize(cu::Stream s) override { return e_.stream_synchronize(s); }
  Result event_create(cu::Event* ev, unsigned f) override { return e_.event_create(ev, f); }
  Result event_destroy(cu::Event ev) override { return e_.event_destroy(ev); }
  Result event_record(cu::Event ev, cu::Stream s) override { return e_.event_record(ev, s); }
  Result event_synchronize(cu::Event ev) override { return e_.event_synchronize(ev); }
  Result event_elapsed_time(float* ms, cu::Event a, cu::Event b) override {
    return e_.event_elapsed_time(ms, a, b);
  }
  Result mem_alloc(cu::DevicePtr* p, std::size_t n) override { return e_.mem_alloc(p, n); }
  Result mem_free(cu::DevicePtr p) override { return e_.mem_free(p); }
  Result memcpy_htod(cu::DevicePtr d, const void* s, std::size_t n) override {
    return e_.memcpy_htod(d, s, n);
  }
  Result memcpy_dtoh(void* d, cu::DevicePtr s, std::size_t n) override {
    return e_.memcpy_dtoh(d, s, n);
  }
  Result memcpy_dtod(cu::DevicePtr d, cu::DevicePtr s, std::size_t n) override {
    return e_.memcpy_dtod(d, s, n);
  }
  Result memset_d8(cu::DevicePtr d, unsigned char v, std::size_t n) override {
    return e_.memset_d8(d, v, n);
  }
  Result memset_d32(cu::DevicePtr d, unsigned v, std::size_t n) override {
    return e_.memset_d32(d, v, n);
  }
  Result memcpy_dtod_async(cu::DevicePtr d, cu::DevicePtr s, std::size_t n,
                           cu::Stream st) override {
    return e_.memcpy_dtod_async(d, s, n, st);
  }
  Result memset_d8_async(cu::DevicePtr d, unsigned char v, std::size_t n, cu::Stream st) override {
    return e_.memset_d8_async(d, v, n, st);
  }
  Result module_load_data_ex(cu::Module* m, const void* image, unsigned n, cu::JitOption* opts,
                             void** vals) override {
    return e_.module_load_data_ex(m, image, n, reinterpret_cast<int*>(opts), vals);
  }
  Result module_unload(cu::Module m) override { return e_.module_unload(m); }
  Result module_get_function(cu::Function* f, cu::Module m, const char* name) override {
    return e_.module_get_function(f, m, name);
  }
  Result func_get_attribute(int* v, cu::FunctionAttribute a, cu::Function f) override {
    return e_.func_get_attribute(v, static_cast<int>(a), f);
  }
  Result func_set_attribute(cu::Function f, cu::FunctionAttribute a, int v) override {
    return e_.func_set_attribute(f, static_cast<int>(a), v);
  }
  Result launch_kernel(cu::Function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned smem, cu::Stream s, void** params,
                       void** extra) override {
    return e_.launch_kernel(f, gx, gy, gz, bx, by, bz, smem, s, params, extra);
  }
  Result stream_begin_capture(cu::Stream s, cu::StreamCaptureMode mode) override {
    return e_.stream_begin_capture(s, static_cast<int>(mode));
  }
  Result stream_end_capture(cu::Stream s, cu::Graph* g) override {
    return e_.stream_end_capture(s, g);
  }
  Result stream_is_capturing(cu::Stream s, cu::StreamCaptureStatus* status) override {
    int v = 0;
    const Result r = e_.stream_is_capturing(s, &v);
    if (r == cu::kSuccess) *status = static_cast<cu::StreamCaptureStatus>(v);
    return r;
  }
  Result graph_instantiate(cu::GraphExec* x, cu::Graph g, unsigned long long flags) override {
    return e_.graph_instantiate(x, g, flags);
  }
  Result graph_launch(cu::GraphExec x, cu::Stream s) override { return e_.graph_launch(x, s); }
  Result graph_exec_destroy(cu::GraphExec x) override { return e_.graph_exec_destroy(x); }
  Result graph_destroy(cu::Graph g) override { return e_.graph_destroy(g); }
  Result get_error_name(Result r, const char** n) override { return e_.get_error_name(r, n); }
  Result get_error_string(Result r, const char** t) override { return e_.get_error_string(r, t); }

private:
  void* handle_;
  std::string origin_;
  Entry e_;
};

// Resolves `name` into `slot`; returns false (and records the name) when it is missing.
template <class Fn>
bool resolve(void* handle, const char* name, Fn& slot, std::string& missing) {
  void* sym = dlsym(handle, name);
  if (sym == nullptr) {
    if (!missing.empty()) missing += ", ";
    missing += name;
    return false;
  }
  slot = reinterpret_cast<Fn>(sym);
  return true;
}

} // namespace

Expected<std::shared_ptr<Driver>> load_cuda_driver(std::string path) {
  if (path.empty()) {
    const char* env = std::getenv("PTXKIT_LIBCUDA");
    path = (env != nullptr && *env != '\0') ? env : "libcuda.so.1";
  }
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return fail(ErrorKind::kNoDriver,
                "cannot load the CUDA driver library " + path + " (" +
                    (why != nullptr ? why : "unknown dlopen error") +
                    "): no NVIDIA driver is installed here, so no CUDA device can be used");
  }

  Entry e;
  std::string missing;
  resolve(handle, "cuInit", e.init, missing);
  resolve(handle, "cuDriverGetVersion", e.driver_get_version, missing);
  resolve(handle, "cuDeviceGetCount", e.device_get_count, missing);
  resolve(handle, "cuDeviceGet", e.device_get, missing);
  resolve(handle, "cuDeviceGetAttribute", e.device_get_attribute, missing);
  resolve(handle, "cuDeviceGetName", e.device_get_name, missing);
  resolve(handle, "cuDevicePrimaryCtxRetain", e.primary_ctx_retain, missing);
  resolve(handle, "cuDevicePrimaryCtxRelease_v2", e.primary_ctx_release, missing);
  resolve(handle, "cuCtxSetCurrent", e.ctx_set_current, missing);
  resolve(handle, "cuCtxSynchronize", e.ctx_synchronize, missing);
  resolve(handle, "cuStreamCreate", e.stream_create, missing);
  resolve(handle, "cuStreamDestroy_v2", e.stream_destroy, missing);
  resolve(handle, "cuStreamSynchronize", e.stream_synchronize, missing);
  resolve(handle, "cuEventCreate", e.event_create, missing);
  resolve(handle, "cuEventDestroy_v2", e.event_destroy, missing);
  resolve(handle, "cuEventRecord", e.event_record, missing);
  resolve(handle, "cuEventSynchronize", e.event_synchronize, missing);
  // cuEventElapsedTime_v2 arrived with CUDA 12.8; older drivers have only the first version,
  // which has the same signature and meaning.
  std::string no_v2;
  if (!resolve(handle, "cuEventElapsedTime_v2", e.event_elapsed_time, no_v2))
    resolve(handle, "cuEventElapsedTime", e.event_elapsed_time, missing);
  resolve(handle, "cuMemAlloc_v2", e.mem_alloc, missing);
  resolve(handle, "cuMemFree_v2", e.mem_free, missing);
  resolve(handle, "cuMemcpyHtoD_v2", e.memcpy_htod, missing);
  resolve(handle, "cuMemcpyDtoH_v2", e.memcpy_dtoh, missing);
  resolve(handle, "cuMemcpyDtoD_v2", e.memcpy_dtod, missing);
  resolve(handle, "cuMemsetD8_v2", e.memset_d8, missing);
  resolve(handle, "cuMemsetD32_v2", e.memset_d32, missing);
  resolve(handle, "cuMemcpyDtoDAsync_v2", e.memcpy_dtod_async, missing);
  resolve(handle, "cuMemsetD8Async", e.memset_d8_async, missing);
  resolve(handle, "cuModuleLoadDataEx", e.module_load_data_ex, missing);
  resolve(handle, "cuModuleUnload", e.module_unload, missing);
  resolve(handle, "cuModuleGetFunction", e.module_get_function, missing);
  resolve(handle, "cuFuncGetAttribute", e.func_get_attribute, missing);
  resolve(handle, "cuFuncSetAttribute", e.func_set_attribute, missing);
  resolve(handle, "cuLaunchKernel", e.launch_kernel, missing);
  // Graphs. cuStreamBeginCapture_v2 is what <cuda.h> maps cuStreamBeginCapture to (the first
  // version took no mode); cuGraphInstantiateWithFlags is what it maps cuGraphInstantiate to
  // (the unversioned symbol is CUDA 10's five-argument signature). All exist in CUDA 12.0, so a
  // driver without them is too old like one without any other entry point.
  resolve(handle, "cuStreamBeginCapture_v2", e.stream_begin_capture, missing);
  resolve(handle, "cuStreamEndCapture", e.stream_end_capture, missing);
  resolve(handle, "cuStreamIsCapturing", e.stream_is_capturing, missing);
  resolve(handle, "cuGraphInstantiateWithFlags", e.graph_instantiate, missing);
  resolve(handle, "cuGraphLaunch", e.graph_launch, missing);
  resolve(handle, "cuGraphExecDestroy", e.graph_exec_destroy, missing);
  resolve(handle, "cuGraphDestroy", e.graph_destroy, missing);
  resolve(handle, "cuGetErrorName", e.get_error_name, missing);
  resolve(handle, "cuGetErrorString", e.get_error_string, missing);

  if (!missing.empty()) {
    const bool not_cuda = e.init == nullptr;
    dlclose(handle);
    if (not_cuda)
      return fail(ErrorKind::kNoDriver,
                  path + " is not the CUDA driver library (it has no cuInit)");
    return fail(ErrorKind::kDriverTooOld, "the CUDA driver " + path +
                                              " lacks entry points ptxkit needs (" + missing +
                                              "): install a CUDA 12.0 or newer driver");
  }
  return std::shared_ptr<Driver>(std::make_shared<DlopenDriver>(handle, path, e));
}

} // namespace ptxkit::runtime
