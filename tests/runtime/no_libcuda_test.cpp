// no_libcuda_test.cpp: the real dlopen path where there is no NVIDIA driver.
//
// These run the actual loader, not the fake: a missing library, a library that is not the
// driver, and the CUDA toolkit's stub libcuda (whose every call returns
// CUDA_ERROR_STUB_LIBRARY) must each be an "unavailable" error, which the CLI turns into exit
// code 3 with the message shown here.
#include "ptxkit/runtime/context.h"
#include "ptxkit/runtime/driver.h"

#include <cstdlib>
#include <gtest/gtest.h>

namespace ptxkit::runtime {
namespace {

TEST(NoLibcuda, MissingLibraryIsNoDriver) {
  auto d = load_cuda_driver("/nonexistent/ptxkit-test/libcuda.so.1");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().kind, ErrorKind::kNoDriver);
  EXPECT_TRUE(d.error().is_unavailable());
  EXPECT_NE(d.error().message.find("cannot load the CUDA driver library "
                                   "/nonexistent/ptxkit-test/libcuda.so.1"),
            std::string::npos)
      << d.error().message;
  EXPECT_NE(d.error().message.find("no NVIDIA driver is installed here"), std::string::npos);
}

TEST(NoLibcuda, OpenDefaultHonoursPtxkitLibcuda) {
  ASSERT_EQ(setenv("PTXKIT_LIBCUDA", "/nonexistent/ptxkit-test/libcuda.so.1", 1), 0);
  auto ctx = Context::open_default();
  unsetenv("PTXKIT_LIBCUDA");
  ASSERT_FALSE(ctx);
  EXPECT_EQ(ctx.error().kind, ErrorKind::kNoDriver);
}

TEST(NoLibcuda, ALibraryWithoutCuInitIsNotTheDriver) {
  auto d = load_cuda_driver("libm.so.6");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().kind, ErrorKind::kNoDriver);
  EXPECT_EQ(d.error().message, "libm.so.6 is not the CUDA driver library (it has no cuInit)");
}

#ifdef PTXKIT_CUDA_STUB_LIBCUDA
TEST(NoLibcuda, TheToolkitStubResolvesEveryEntryPointButIsNoDriver) {
  auto d = load_cuda_driver(PTXKIT_CUDA_STUB_LIBCUDA);
  ASSERT_TRUE(d) << d.error().message; // every symbol the runtime needs was found
  auto ctx = Context::open(*d);
  ASSERT_FALSE(ctx);
  EXPECT_EQ(ctx.error().kind, ErrorKind::kNoDriver);
  EXPECT_TRUE(ctx.error().is_unavailable());
  EXPECT_EQ(ctx.error().cu_result, cu::kErrorStubLibrary);
  EXPECT_NE(ctx.error().message.find("cuInit failed: CUDA_ERROR_STUB_LIBRARY"), std::string::npos)
      << ctx.error().message;
  EXPECT_NE(ctx.error().message.find("is the CUDA toolkit's stub library, not an NVIDIA driver"),
            std::string::npos)
      << ctx.error().message;
}
#endif

} // namespace
} // namespace ptxkit::runtime
