// cuda_types.h: the few CUDA driver API types and constants the runtime uses, declared here.
//
// The runtime loads libcuda.so.1 with dlopen and must build where no CUDA headers exist (CI has
// no GPU and need not have the toolkit), so it never includes <cuda.h>. The handles are opaque
// pointers and the enumerators carry the numeric values of the driver ABI, which NVIDIA keeps
// stable; tests/runtime/cuda_abi_test.cpp compares them with <cuda.h> where that header exists.
#pragma once

#include <cstdint>
#include <string_view>

namespace ptxkit::runtime::cu {

using Result = int;              // CUresult
using Device = int;              // CUdevice
using DevicePtr = std::uint64_t; // CUdeviceptr

struct ContextSt;
struct ModuleSt;
struct FunctionSt;
struct StreamSt;
struct EventSt;
struct GraphSt;
struct GraphExecSt;
using Context = ContextSt*;     // CUcontext
using Module = ModuleSt*;       // CUmodule
using Function = FunctionSt*;   // CUfunction
using Stream = StreamSt*;       // CUstream (nullptr: the legacy default stream)
using Event = EventSt*;         // CUevent
using Graph = GraphSt*;         // CUgraph: a captured graph, not yet executable
using GraphExec = GraphExecSt*; // CUgraphExec: an instantiated, launchable graph

// CUresult values the runtime treats specially (the rest are reported by name).
inline constexpr Result kSuccess = 0;
inline constexpr Result kErrorInvalidValue = 1;
inline constexpr Result kErrorOutOfMemory = 2;
inline constexpr Result kErrorNotInitialized = 3;
inline constexpr Result kErrorStubLibrary = 34;
inline constexpr Result kErrorCallRequiresNewerDriver = 36;
inline constexpr Result kErrorNoDevice = 100;
inline constexpr Result kErrorInvalidDevice = 101;
inline constexpr Result kErrorInvalidImage = 200;
inline constexpr Result kErrorInvalidContext = 201;
inline constexpr Result kErrorNoBinaryForGpu = 209;
inline constexpr Result kErrorInvalidPtx = 218;
inline constexpr Result kErrorJitCompilerNotFound = 221;
inline constexpr Result kErrorUnsupportedPtxVersion = 222;
inline constexpr Result kErrorInvalidHandle = 400;
inline constexpr Result kErrorIllegalState = 401;
inline constexpr Result kErrorNotFound = 500;
inline constexpr Result kErrorLaunchOutOfResources = 701;
inline constexpr Result kErrorLaunchFailed = 719;
inline constexpr Result kErrorSystemDriverMismatch = 803;
// What stream capture returns: an operation not permitted while a stream captures (and which
// invalidates the capture), a capture invalidated by such an operation, and misuse of the
// begin/end pairing, of captured events, of threads.
inline constexpr Result kErrorStreamCaptureUnsupported = 900;
inline constexpr Result kErrorStreamCaptureInvalidated = 901;
inline constexpr Result kErrorStreamCaptureMerge = 902;
inline constexpr Result kErrorStreamCaptureUnmatched = 903;
inline constexpr Result kErrorStreamCaptureUnjoined = 904;
inline constexpr Result kErrorStreamCaptureIsolation = 905;
inline constexpr Result kErrorStreamCaptureImplicit = 906;
inline constexpr Result kErrorCapturedEvent = 907;
inline constexpr Result kErrorStreamCaptureWrongThread = 908;
inline constexpr Result kErrorUnknown = 999;

// The CUresult's enumerator name ("CUDA_ERROR_OUT_OF_MEMORY"), or "" if this table lacks it.
// Used when the driver itself cannot name the error (no driver, the stub library).
std::string_view result_name(Result r);

// CUdevice_attribute values.
enum class DeviceAttribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxBlockDimX = 2,
  kMaxBlockDimY = 3,
  kMaxBlockDimZ = 4,
  kMaxGridDimX = 5,
  kMaxGridDimY = 6,
  kMaxGridDimZ = 7,
  kMaxSharedMemoryPerBlock = 8,
  kWarpSize = 10,
  kClockRate = 13,
  kMultiprocessorCount = 16,
  kMemoryClockRate = 36,
  kGlobalMemoryBusWidth = 37,
  kL2CacheSize = 38,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kMaxSharedMemoryPerMultiprocessor = 81,
  kMaxSharedMemoryPerBlockOptin = 97,
};

// CUfunction_attribute values.
enum class FunctionAttribute : int {
  kMaxThreadsPerBlock = 0,
  kSharedSizeBytes = 1,
  kConstSizeBytes = 2,
  kLocalSizeBytes = 3,
  kNumRegs = 4,
  kPtxVersion = 5,
  kBinaryVersion = 6,
  kMaxDynamicSharedSizeBytes = 8,
};

// CUstreamCaptureMode values: which threads' "potentially unsafe" calls (blocking copies,
// allocations, synchronizations) a capture forbids while it runs.
enum class StreamCaptureMode : int {
  kGlobal = 0,      // this thread's, and every thread's while any global capture runs
  kThreadLocal = 1, // this thread's only
  kRelaxed = 2,     // none (only the calls that conflict with capture itself)
};

// CUstreamCaptureStatus values (cuStreamIsCapturing).
enum class StreamCaptureStatus : int {
  kNone = 0,
  kActive = 1,
  kInvalidated = 2, // still capturing, but cuStreamEndCapture will return no graph
};

// CUjit_option values.
enum class JitOption : int {
  kMaxRegisters = 0,
  kWallTime = 2,
  kInfoLogBuffer = 3,
  kInfoLogBufferSizeBytes = 4,
  kErrorLogBuffer = 5,
  kErrorLogBufferSizeBytes = 6,
  kOptimizationLevel = 7,
  kGenerateDebugInfo = 11,
  kLogVerbose = 12,
  kGenerateLineInfo = 13,
};

} // namespace ptxkit::runtime::cu
