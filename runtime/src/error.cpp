// error.cpp: naming of error kinds and CUresults, and the Error built from a failed driver call.
//
// The driver names its own errors (cuGetErrorName/String), but it cannot when it is the stub
// library, or is not there at all; the table here covers that case so a message always carries
// the enumerator's name.
#include "ptxkit/runtime/error.h"

#include "ptxkit/runtime/driver.h"

#include <array>
#include <string>
#include <utility>

namespace ptxkit::runtime {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::kNoDriver:
    return "no-driver";
  case ErrorKind::kNoDevice:
    return "no-device";
  case ErrorKind::kDriverTooOld:
    return "driver-too-old";
  case ErrorKind::kDeviceUnsupported:
    return "device-unsupported";
  case ErrorKind::kDriver:
    return "driver";
  case ErrorKind::kJit:
    return "jit";
  case ErrorKind::kBadLaunch:
    return "bad-launch";
  case ErrorKind::kBadArgument:
    return "bad-argument";
  }
  return "unknown";
}

namespace cu {

std::string_view result_name(Result r) {
  static constexpr std::array<std::pair<Result, std::string_view>, 50> kNames{{
      {0, "CUDA_SUCCESS"},
      {1, "CUDA_ERROR_INVALID_VALUE"},
      {2, "CUDA_ERROR_OUT_OF_MEMORY"},
      {3, "CUDA_ERROR_NOT_INITIALIZED"},
      {4, "CUDA_ERROR_DEINITIALIZED"},
      {34, "CUDA_ERROR_STUB_LIBRARY"},
      {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
      {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
      {100, "CUDA_ERROR_NO_DEVICE"},
      {101, "CUDA_ERROR_INVALID_DEVICE"},
      {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
      {200, "CUDA_ERROR_INVALID_IMAGE"},
      {201, "CUDA_ERROR_INVALID_CONTEXT"},
      {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
      {214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
      {218, "CUDA_ERROR_INVALID_PTX"},
      {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
      {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
      {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"},
      {300, "CUDA_ERROR_INVALID_SOURCE"},
      {301, "CUDA_ERROR_FILE_NOT_FOUND"},
      {400, "CUDA_ERROR_INVALID_HANDLE"},
      {401, "CUDA_ERROR_ILLEGAL_STATE"},
      {500, "CUDA_ERROR_NOT_FOUND"},
      {600, "CUDA_ERROR_NOT_READY"},
      {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
      {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
      {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
      {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"},
      {710, "CUDA_ERROR_ASSERT"},
      {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
      {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
      {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
      {719, "CUDA_ERROR_LAUNCH_FAILED"},
      {800, "CUDA_ERROR_NOT_PERMITTED"},
      {801, "CUDA_ERROR_NOT_SUPPORTED"},
      {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
      {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
      {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
      {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
      {902, "CUDA_ERROR_STREAM_CAPTURE_MERGE"},
      {903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"},
      {904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"},
      {905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"},
      {906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"},
      {907, "CUDA_ERROR_CAPTURED_EVENT"},
      {908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"},
      {909, "CUDA_ERROR_TIMEOUT"},
      {910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"},
      {999, "CUDA_ERROR_UNKNOWN"},
  }};
  for (const auto& [code, name] : kNames)
    if (code == r) return name;
  return {};
}

} // namespace cu

ErrorKind kind_of(cu::Result r) {
  switch (r) {
  case cu::kErrorNoDevice:
  case cu::kErrorInvalidDevice:
    return ErrorKind::kNoDevice;
  case cu::kErrorCallRequiresNewerDriver:
  case cu::kErrorUnsupportedPtxVersion:
  case cu::kErrorSystemDriverMismatch:
    return ErrorKind::kDriverTooOld;
  case cu::kErrorStubLibrary:
  case cu::kErrorJitCompilerNotFound:
    return ErrorKind::kNoDriver;
  case cu::kErrorNoBinaryForGpu:
    return ErrorKind::kDeviceUnsupported;
  default:
    return ErrorKind::kDriver;
  }
}

Error driver_error(Driver& driver, cu::Result r, std::string_view call) {
  Error e;
  e.kind = kind_of(r);
  e.cu_result = r;
  const char* name = nullptr;
  const char* text = nullptr;
  if (driver.get_error_name(r, &name) != cu::kSuccess || name == nullptr) name = nullptr;
  if (driver.get_error_string(r, &text) != cu::kSuccess || text == nullptr) text = nullptr;
  e.cu_name = name != nullptr ? std::string(name) : std::string(cu::result_name(r));
  if (e.cu_name.empty()) e.cu_name = "CUresult " + std::to_string(r);
  e.message = std::string(call) + " failed: " + e.cu_name;
  if (text != nullptr) e.message += std::string(" (") + text + ")";
  switch (e.kind) {
  case ErrorKind::kNoDriver:
    if (r == cu::kErrorStubLibrary)
      e.message += ": " + std::string(driver.origin()) +
                   " is the CUDA toolkit's stub library, not an NVIDIA driver";
    break;
  case ErrorKind::kNoDevice:
    e.message += ": no CUDA device is visible to this process";
    break;
  case ErrorKind::kDriverTooOld:
    e.message += ": the installed NVIDIA driver is too old";
    break;
  default:
    break;
  }
  return e;
}

} // namespace ptxkit::runtime
