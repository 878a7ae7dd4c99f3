// cuda_abi_test.cpp: the runtime's own declarations of CUDA constants equal <cuda.h>'s.
//
// The runtime never includes <cuda.h> (it must build without the toolkit), so the values in
// cuda_types.h are typed in by hand; this test, built only where the header exists, proves them.
#include "ptxkit/runtime/cuda_types.h"

#include <cuda.h>
#include <gtest/gtest.h>
#include <type_traits>
#include <utility>

namespace ptxkit::runtime {
namespace {

#define PTXKIT_SAME(ours, theirs) EXPECT_EQ(static_cast<int>(ours), static_cast<int>(theirs))

TEST(CudaAbi, ResultCodes) {
  PTXKIT_SAME(cu::kErrorInvalidValue, CUDA_ERROR_INVALID_VALUE);
  PTXKIT_SAME(cu::kErrorOutOfMemory, CUDA_ERROR_OUT_OF_MEMORY);
  PTXKIT_SAME(cu::kErrorNotInitialized, CUDA_ERROR_NOT_INITIALIZED);
  PTXKIT_SAME(cu::kErrorStubLibrary, CUDA_ERROR_STUB_LIBRARY);
  PTXKIT_SAME(cu::kErrorCallRequiresNewerDriver, CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER);
  PTXKIT_SAME(cu::kErrorNoDevice, CUDA_ERROR_NO_DEVICE);
  PTXKIT_SAME(cu::kErrorInvalidDevice, CUDA_ERROR_INVALID_DEVICE);
  PTXKIT_SAME(cu::kErrorInvalidImage, CUDA_ERROR_INVALID_IMAGE);
  PTXKIT_SAME(cu::kErrorInvalidContext, CUDA_ERROR_INVALID_CONTEXT);
  PTXKIT_SAME(cu::kErrorNoBinaryForGpu, CUDA_ERROR_NO_BINARY_FOR_GPU);
  PTXKIT_SAME(cu::kErrorInvalidPtx, CUDA_ERROR_INVALID_PTX);
  PTXKIT_SAME(cu::kErrorJitCompilerNotFound, CUDA_ERROR_JIT_COMPILER_NOT_FOUND);
  PTXKIT_SAME(cu::kErrorUnsupportedPtxVersion, CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
  PTXKIT_SAME(cu::kErrorNotFound, CUDA_ERROR_NOT_FOUND);
  PTXKIT_SAME(cu::kErrorLaunchOutOfResources, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
  PTXKIT_SAME(cu::kErrorLaunchFailed, CUDA_ERROR_LAUNCH_FAILED);
  PTXKIT_SAME(cu::kErrorSystemDriverMismatch, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH);
  PTXKIT_SAME(cu::kErrorUnknown, CUDA_ERROR_UNKNOWN);
  PTXKIT_SAME(cu::kErrorInvalidHandle, CUDA_ERROR_INVALID_HANDLE);
  PTXKIT_SAME(cu::kErrorIllegalState, CUDA_ERROR_ILLEGAL_STATE);
  // The fallback names table must agree with the enumerators it claims to name.
  EXPECT_EQ(cu::result_name(CUDA_ERROR_ILLEGAL_ADDRESS), "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(cu::result_name(CUDA_ERROR_MISALIGNED_ADDRESS), "CUDA_ERROR_MISALIGNED_ADDRESS");
  EXPECT_EQ(cu::result_name(CUDA_ERROR_UNSUPPORTED_PTX_VERSION),
            "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
}

TEST(CudaAbi, StreamCaptureAndGraphs) {
  PTXKIT_SAME(cu::kErrorStreamCaptureUnsupported, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  PTXKIT_SAME(cu::kErrorStreamCaptureInvalidated, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  PTXKIT_SAME(cu::kErrorStreamCaptureMerge, CUDA_ERROR_STREAM_CAPTURE_MERGE);
  PTXKIT_SAME(cu::kErrorStreamCaptureUnmatched, CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
  PTXKIT_SAME(cu::kErrorStreamCaptureUnjoined, CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
  PTXKIT_SAME(cu::kErrorStreamCaptureIsolation, CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
  PTXKIT_SAME(cu::kErrorStreamCaptureImplicit, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  PTXKIT_SAME(cu::kErrorCapturedEvent, CUDA_ERROR_CAPTURED_EVENT);
  PTXKIT_SAME(cu::kErrorStreamCaptureWrongThread, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
  // Every capture result, and its neighbours, by the name the header gives it.
  for (const auto& [code, name] : {
           std::pair{CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
           std::pair{CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE"},
           std::pair{CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                     "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
           std::pair{CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                     "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
           std::pair{CUDA_ERROR_STREAM_CAPTURE_MERGE, "CUDA_ERROR_STREAM_CAPTURE_MERGE"},
           std::pair{CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"},
           std::pair{CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"},
           std::pair{CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"},
           std::pair{CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"},
           std::pair{CUDA_ERROR_CAPTURED_EVENT, "CUDA_ERROR_CAPTURED_EVENT"},
           std::pair{CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
                     "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"},
           std::pair{CUDA_ERROR_TIMEOUT, "CUDA_ERROR_TIMEOUT"},
           std::pair{CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"},
       })
    EXPECT_EQ(cu::result_name(code), name);

  using M = cu::StreamCaptureMode;
  PTXKIT_SAME(M::kGlobal, CU_STREAM_CAPTURE_MODE_GLOBAL);
  PTXKIT_SAME(M::kThreadLocal, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  PTXKIT_SAME(M::kRelaxed, CU_STREAM_CAPTURE_MODE_RELAXED);
  using S = cu::StreamCaptureStatus;
  PTXKIT_SAME(S::kNone, CU_STREAM_CAPTURE_STATUS_NONE);
  PTXKIT_SAME(S::kActive, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  PTXKIT_SAME(S::kInvalidated, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  static_assert(sizeof(cu::StreamCaptureMode) == sizeof(CUstreamCaptureMode));
  static_assert(sizeof(cu::StreamCaptureStatus) == sizeof(CUstreamCaptureStatus));
  static_assert(sizeof(cu::Graph) == sizeof(CUgraph));
  static_assert(sizeof(cu::GraphExec) == sizeof(CUgraphExec));

  // The symbols runtime/src/dlopen_driver.cpp resolves are the ones <cuda.h> maps the API names
  // to (a plain name may be an older ABI: cuGraphInstantiate is CUDA 10's five-argument call).
#define PTXKIT_SYMBOL_NAME(api) PTXKIT_SYMBOL_NAME_(api)
#define PTXKIT_SYMBOL_NAME_(symbol) #symbol
  EXPECT_STREQ(PTXKIT_SYMBOL_NAME(cuStreamBeginCapture), "cuStreamBeginCapture_v2");
  EXPECT_STREQ(PTXKIT_SYMBOL_NAME(cuStreamEndCapture), "cuStreamEndCapture");
  EXPECT_STREQ(PTXKIT_SYMBOL_NAME(cuStreamIsCapturing), "cuStreamIsCapturing");
  EXPECT_STREQ(PTXKIT_SYMBOL_NAME(cuGraphInstantiate), "cuGraphInstantiateWithFlags");
  EXPECT_STREQ(PTXKIT_SYMBOL_NAME(cuGraphLaunch), "cuGraphLaunch");
  EXPECT_STREQ(PTXKIT_SYMBOL_NAME(cuGraphExecDestroy), "cuGraphExecDestroy");
  EXPECT_STREQ(PTXKIT_SYMBOL_NAME(cuGraphDestroy), "cuGraphDestroy");
#undef PTXKIT_SYMBOL_NAME_
#undef PTXKIT_SYMBOL_NAME
  // And the C signatures the resolved pointers are called through.
  static_assert(
      std::is_same_v<decltype(&cuStreamBeginCapture), CUresult (*)(CUstream, CUstreamCaptureMode)>);
  static_assert(std::is_same_v<decltype(&cuStreamEndCapture), CUresult (*)(CUstream, CUgraph*)>);
  static_assert(std::is_same_v<decltype(&cuStreamIsCapturing),
                               CUresult (*)(CUstream, CUstreamCaptureStatus*)>);
  static_assert(std::is_same_v<decltype(&cuGraphInstantiate),
                               CUresult (*)(CUgraphExec*, CUgraph, unsigned long long)>);
  static_assert(std::is_same_v<decltype(&cuGraphLaunch), CUresult (*)(CUgraphExec, CUstream)>);
  static_assert(std::is_same_v<decltype(&cuGraphExecDestroy), CUresult (*)(CUgraphExec)>);
  static_assert(std::is_same_v<decltype(&cuGraphDestroy), CUresult (*)(CUgraph)>);
}

TEST(CudaAbi, DeviceAttributes) {
  using A = cu::DeviceAttribute;
  PTXKIT_SAME(A::kMaxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  PTXKIT_SAME(A::kMaxBlockDimX, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  PTXKIT_SAME(A::kMaxBlockDimY, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  PTXKIT_SAME(A::kMaxBlockDimZ, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  PTXKIT_SAME(A::kMaxGridDimX, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  PTXKIT_SAME(A::kMaxGridDimY, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  PTXKIT_SAME(A::kMaxGridDimZ, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  PTXKIT_SAME(A::kMaxSharedMemoryPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  PTXKIT_SAME(A::kWarpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  PTXKIT_SAME(A::kClockRate, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  PTXKIT_SAME(A::kMultiprocessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  PTXKIT_SAME(A::kMemoryClockRate, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  PTXKIT_SAME(A::kGlobalMemoryBusWidth, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  PTXKIT_SAME(A::kL2CacheSize, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  PTXKIT_SAME(A::kComputeCapabilityMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  PTXKIT_SAME(A::kComputeCapabilityMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  PTXKIT_SAME(A::kMaxSharedMemoryPerMultiprocessor,
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  PTXKIT_SAME(A::kMaxSharedMemoryPerBlockOptin,
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
}

TEST(CudaAbi, FunctionAttributesAndJitOptions) {
  using F = cu::FunctionAttribute;
  PTXKIT_SAME(F::kMaxThreadsPerBlock, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  PTXKIT_SAME(F::kSharedSizeBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  PTXKIT_SAME(F::kConstSizeBytes, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  PTXKIT_SAME(F::kLocalSizeBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  PTXKIT_SAME(F::kNumRegs, CU_FUNC_ATTRIBUTE_NUM_REGS);
  PTXKIT_SAME(F::kPtxVersion, CU_FUNC_ATTRIBUTE_PTX_VERSION);
  PTXKIT_SAME(F::kBinaryVersion, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  PTXKIT_SAME(F::kMaxDynamicSharedSizeBytes, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  using J = cu::JitOption;
  PTXKIT_SAME(J::kMaxRegisters, CU_JIT_MAX_REGISTERS);
  PTXKIT_SAME(J::kWallTime, CU_JIT_WALL_TIME);
  PTXKIT_SAME(J::kInfoLogBuffer, CU_JIT_INFO_LOG_BUFFER);
  PTXKIT_SAME(J::kInfoLogBufferSizeBytes, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
  PTXKIT_SAME(J::kErrorLogBuffer, CU_JIT_ERROR_LOG_BUFFER);
  PTXKIT_SAME(J::kErrorLogBufferSizeBytes, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
  PTXKIT_SAME(J::kOptimizationLevel, CU_JIT_OPTIMIZATION_LEVEL);
  PTXKIT_SAME(J::kGenerateDebugInfo, CU_JIT_GENERATE_DEBUG_INFO);
  PTXKIT_SAME(J::kLogVerbose, CU_JIT_LOG_VERBOSE);
  PTXKIT_SAME(J::kGenerateLineInfo, CU_JIT_GENERATE_LINE_INFO);
  static_assert(sizeof(cu::DevicePtr) == sizeof(CUdeviceptr));
  static_assert(sizeof(cu::Device) == sizeof(CUdevice));
  static_assert(sizeof(cu::Result) == sizeof(CUresult));
}

} // namespace
} // namespace ptxkit::runtime
