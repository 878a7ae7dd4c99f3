// embedded_load_test.cpp: PTX embedded in the program (ptxkit_generate_ptx(... EMBED) in this
// folder's CMakeLists.txt generates, verifies and validates it at build time) loads through
// load_embedded with no file I/O, is verified on load, and every launch is held to the embedded
// launch contract.
#include "embedded_kernels.h"
#include "fake_driver.h"
#include "ptxkit/runtime/embedded.h"

#include <gtest/gtest.h>
#include <string>

namespace ptxkit::runtime {
namespace {

using testing::FakeDriver;

struct Fixture {
  std::shared_ptr<FakeDriver> fake = std::make_shared<FakeDriver>();
  Context ctx = *Context::open(fake);
  KernelCache cache{ctx};
  Stream stream = *Stream::create(ctx);
};

TEST(EmbeddedLoad, TheHeaderHoldsKeyContractAndParameters) {
  const EmbeddedKernel& k = embedded_test::residual_add_n_4099_sm_90;
  EXPECT_EQ(k.kernel, "residual_add");
  EXPECT_EQ(k.config, "n=4099,dtype=f32");
  EXPECT_EQ(k.target, "sm_90");
  EXPECT_TRUE(k.key.starts_with("residual_add-")) << k.key;
  EXPECT_NE(k.ptx.find(".visible .entry residual_add("), std::string_view::npos);
  EXPECT_EQ(k.block, (Dim3{256, 1, 1}));
  EXPECT_EQ(k.grid, (Dim3{5, 1, 1})); // ceil(ceil(4099 / 4) / 256)
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_EQ(k.params[2].kind, "output");
  EXPECT_EQ(k.params[2].elems, 4099u);
  // Every kernel at every arch, kernels in the order given, then archs.
  ASSERT_EQ(std::size(embedded_test::all), 4u);
  EXPECT_EQ(embedded_test::all[1], &embedded_test::residual_add_n_4099_sm_80);
  EXPECT_EQ(embedded_test::all[3], &embedded_test::rmsnorm_hidden_4096_sm_80);
  EXPECT_EQ(embedded_test::rmsnorm_hidden_4096_sm_80.target, "sm_80");
}

TEST(EmbeddedLoad, LoadsVerifiedAndLaunchesOnlyWithTheContract) {
  Fixture f;
  const EmbeddedKernel& k = embedded_test::residual_add_n_4099_sm_90;
  auto fn = load_embedded(f.cache, k);
  ASSERT_TRUE(fn) << fn.error().message;
  EXPECT_EQ(f.fake->loads, 1);
  auto a = DeviceBuffer<float>::allocate(f.ctx, 4099);
  auto b = DeviceBuffer<float>::allocate(f.ctx, 4099);
  auto out = DeviceBuffer<float>::allocate(f.ctx, 4099);
  ASSERT_TRUE(a && b && out);
  ASSERT_TRUE(fn->launch(f.stream, k.launch_dims(), *a, *b, *out));
  EXPECT_EQ(f.fake->last_grid[0], 5u);
  // One block short of the contract's grid: refused before it reaches the driver.
  const int launches = f.fake->launches;
  auto short_grid = fn->launch(f.stream, {{4, 1, 1}, k.block, 0}, *a, *b, *out);
  ASSERT_FALSE(short_grid);
  EXPECT_EQ(short_grid.error().kind, ErrorKind::kBadLaunch) << short_grid.error().message;
  EXPECT_EQ(f.fake->launches, launches);
  // The same embedded kernel again is a cache hit, not a second JIT compilation.
  ASSERT_TRUE(load_embedded(f.cache, k));
  EXPECT_EQ(f.fake->loads, 1);
}

TEST(EmbeddedLoad, TextThatFailsVerificationIsRefusedWithTheFindings) {
  Fixture f;
  EmbeddedKernel k = embedded_test::residual_add_n_4099_sm_90;
  // The same kernel with its first instruction's source register never defined.
  std::string broken(k.ptx);
  const std::size_t at = broken.find("ld.param.u64 %rd1");
  ASSERT_NE(at, std::string::npos);
  broken.erase(at, broken.find('\n', at) - at + 1);
  k.ptx = broken;
  auto fn = load_embedded(f.cache, k);
  ASSERT_FALSE(fn);
  EXPECT_EQ(fn.error().kind, ErrorKind::kBadArgument);
  EXPECT_NE(fn.error().message.find("undefined-register"), std::string::npos) << fn.error().message;
  EXPECT_EQ(f.fake->loads, 0);
}

} // namespace
} // namespace ptxkit::runtime
