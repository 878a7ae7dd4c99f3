// error_test.cpp: CUresult -> Error mapping, the fallback names, Expected<T> behaviour.
//
// Every driver failure the runtime reports must name the call, the CUresult's enumerator and the
// driver's description, and fall into the right ErrorKind (the CLI's exit code depends on it).
#include "fake_driver.h"
#include "ptxkit/runtime/driver.h"
#include "ptxkit/runtime/error.h"

#include <gtest/gtest.h>

namespace ptxkit::runtime {
namespace {

TEST(DriverError, CarriesCallNameAndDriverDescription) {
  testing::FakeDriver d;
  const Error e = driver_error(d, cu::kErrorOutOfMemory, "cuMemAlloc(64 bytes)");
  EXPECT_EQ(e.kind, ErrorKind::kDriver);
  EXPECT_EQ(e.cu_result, 2);
  EXPECT_EQ(e.cu_name, "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(e.message, "cuMemAlloc(64 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  EXPECT_FALSE(e.is_unavailable());
}

TEST(DriverError, FallsBackToBuiltInNamesWhenTheDriverCannotName) {
  testing::FakeDriver d;
  d.can_name_errors = false;
  const Error e = driver_error(d, cu::kErrorLaunchOutOfResources, "cuLaunchKernel");
  EXPECT_EQ(e.cu_name, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
  EXPECT_EQ(e.message, "cuLaunchKernel failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
  const Error unknown = driver_error(d, 12345, "cuInit");
  EXPECT_EQ(unknown.cu_name, "CUresult 12345");
}

TEST(DriverError, UnavailableKindsAreDistinct) {
  EXPECT_EQ(kind_of(cu::kErrorNoDevice), ErrorKind::kNoDevice);
  EXPECT_EQ(kind_of(cu::kErrorCallRequiresNewerDriver), ErrorKind::kDriverTooOld);
  EXPECT_EQ(kind_of(cu::kErrorUnsupportedPtxVersion), ErrorKind::kDriverTooOld);
  EXPECT_EQ(kind_of(cu::kErrorStubLibrary), ErrorKind::kNoDriver);
  EXPECT_EQ(kind_of(cu::kErrorNoBinaryForGpu), ErrorKind::kDeviceUnsupported);
  EXPECT_EQ(kind_of(cu::kErrorOutOfMemory), ErrorKind::kDriver);
  EXPECT_EQ(kind_of(cu::kErrorLaunchFailed), ErrorKind::kDriver);

  testing::FakeDriver d;
  const Error no_dev = driver_error(d, cu::kErrorNoDevice, "cuInit");
  EXPECT_TRUE(no_dev.is_unavailable());
  EXPECT_NE(no_dev.message.find("no CUDA device is visible"), std::string::npos) << no_dev.message;
  const Error old = driver_error(d, cu::kErrorCallRequiresNewerDriver, "cuInit");
  EXPECT_TRUE(old.is_unavailable());
  EXPECT_NE(old.message.find("too old"), std::string::npos) << old.message;
  EXPECT_FALSE(make_error(ErrorKind::kBadLaunch, "x").is_unavailable());
  EXPECT_FALSE(make_error(ErrorKind::kJit, "x").is_unavailable());
}

TEST(DriverError, CheckPassesSuccessThrough) {
  testing::FakeDriver d;
  EXPECT_TRUE(check(d, cu::kSuccess, "cuInit").has_value());
  const auto r = check(d, cu::kErrorInvalidValue, "cuMemsetD8");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "cuMemsetD8 failed: CUDA_ERROR_INVALID_VALUE (invalid argument)");
}

TEST(ErrorKindNames, AreStable) {
  EXPECT_EQ(to_string(ErrorKind::kNoDriver), "no-driver");
  EXPECT_EQ(to_string(ErrorKind::kBadLaunch), "bad-launch");
  EXPECT_EQ(to_string(ErrorKind::kDeviceUnsupported), "device-unsupported");
}

Expected<int> half(int v) {
  if (v % 2 != 0) return fail(ErrorKind::kBadArgument, std::to_string(v) + " is odd");
  return v / 2;
}

Expected<int> quarter(int v) {
  auto h = half(v);
  PTXKIT_RT_TRY(h);
  return half(*h);
}

TEST(ExpectedType, HoldsValueOrErrorAndPropagates) {
  EXPECT_EQ(*quarter(8), 2);
  const auto r = quarter(6);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kBadArgument);
  EXPECT_EQ(r.error().message, "3 is odd");
  Expected<void> ok;
  EXPECT_TRUE(ok.has_value());
}

} // namespace
} // namespace ptxkit::runtime
