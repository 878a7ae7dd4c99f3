// launch_test.cpp: every launch check, each with its message, and the launch path on the fake.
//
// A bad launch must be an error value, never a device fault: each refusal below is also checked
// not to have reached cuLaunchKernel.
#include "fake_driver.h"
#include "module_p.h"
#include "ptxkit/runtime/launch.h"
#include "ptxkit/runtime/module.h"
#include "test_ptx.h"

#include <gtest/gtest.h>
#include <vector>

namespace ptxkit::runtime {
namespace {

using testing::FakeDriver;

DeviceInfo h200() {
  DeviceInfo d;
  d.name = "H200";
  d.cc = {9, 0};
  d.max_threads_per_block = 1024;
  d.max_block = {1024, 1024, 64};
  d.max_grid = {2147483647u, 65535, 65535};
  d.max_shared_per_block = 49152;
  d.max_shared_per_block_optin = 232448;
  return d;
}

struct Check {
  KernelSignature sig = testing::vector_add_signature();
  DeviceInfo device = h200();
  FunctionLimits fn{1024, 0, 32, 0};
  std::vector<std::uint32_t> args{8, 8, 8, 4};
  LaunchDims dims{{4, 1, 1}, {256, 1, 1}, 0};

  std::string message(const LaunchContract* contract = nullptr) const {
    auto r = check_launch(sig, device, fn, contract, dims, args);
    if (r) return "(accepted)";
    EXPECT_EQ(r.error().kind, ErrorKind::kBadLaunch);
    return r.error().message;
  }
};

TEST(LaunchCheck, AcceptsAGoodLaunch) {
  EXPECT_EQ(Check{}.message(), "(accepted)");
}

TEST(LaunchCheck, ArgumentCount) {
  Check c;
  c.args = {8, 8, 8};
  EXPECT_EQ(c.message(), "launch of vadd: 3 argument(s) given, but the .entry takes 4");
}

TEST(LaunchCheck, ArgumentSize) {
  Check c;
  c.args = {8, 8, 8, 8}; // a size_t where the kernel takes .u32
  EXPECT_EQ(c.message(),
            "launch of vadd: argument 3 is 8 bytes, but .param .u32 vadd_n is 4 bytes");
}

TEST(LaunchCheck, EmptyLaunch) {
  Check c;
  c.dims.grid = {0, 1, 1};
  EXPECT_EQ(c.message(), "launch of vadd: empty launch (grid (0,1,1), block (256,1,1), 0 B "
                         "dynamic shared memory): every dimension must be at least 1");
}

TEST(LaunchCheck, ContractBlockGridAndSharedMemory) {
  Check c;
  LaunchContract contract;
  contract.block = Dim3{128, 1, 1};
  EXPECT_EQ(c.message(&contract),
            "launch of vadd: block (256,1,1) differs from the launch contract's block (128,1,1)");
  contract.block.reset();
  contract.grid = Dim3{8, 1, 1};
  EXPECT_EQ(c.message(&contract),
            "launch of vadd: grid (4,1,1) differs from the launch contract's grid (8,1,1)");
  contract.grid.reset();
  contract.dynamic_smem_bytes = 1024;
  EXPECT_EQ(c.message(&contract), "launch of vadd: 0 B of dynamic shared memory differs from "
                                  "the launch contract's 1024 B");
  contract.dynamic_smem_bytes.reset();
  contract.check = [](const LaunchDims& d) -> std::optional<std::string> {
    if (d.grid.x * d.block.x < 2048) return "grid.x * block.x must cover 2048 elements";
    return std::nullopt;
  };
  EXPECT_EQ(c.message(&contract),
            "launch of vadd: the launch contract refuses grid (4,1,1), block (256,1,1), 0 B "
            "dynamic shared memory: grid.x * block.x must cover 2048 elements");
  c.dims.grid.x = 8;
  EXPECT_EQ(c.message(&contract), "(accepted)");
}

TEST(LaunchCheck, Reqntid) {
  Check c;
  c.sig.maxntid.reset();
  c.sig.reqntid = Dim3{128, 1, 1};
  EXPECT_EQ(c.message(), "launch of vadd: block (256,1,1) does not match .reqntid 128,1,1");
  c.dims.block = {128, 1, 1};
  EXPECT_EQ(c.message(), "(accepted)");
}

TEST(LaunchCheck, Maxntid) {
  Check c;
  c.dims.block = {512, 1, 1};
  EXPECT_EQ(c.message(), "launch of vadd: block (512,1,1) has 512 threads, more than .maxntid "
                         "256,1,1 allows (256)");
  c.dims.block = {16, 16, 1}; // 256 threads in another shape is within .maxntid's count
  EXPECT_EQ(c.message(), "(accepted)");
}

TEST(LaunchCheck, DeviceBlockDimensionAndThreadLimits) {
  Check c;
  c.sig.maxntid.reset();
  c.dims.block = {1, 1, 65};
  EXPECT_EQ(c.message(), "launch of vadd: block.z = 65 exceeds the device's maximum 64");
  c.dims.block = {64, 32, 1};
  EXPECT_EQ(c.message(), "launch of vadd: block (64,32,1) has 2048 threads; the device allows "
                         "at most 1024 per block");
}

TEST(LaunchCheck, FunctionThreadLimitFromRegisters) {
  Check c;
  c.sig.maxntid.reset();
  c.fn.max_threads_per_block = 640;
  c.fn.num_registers = 96;
  c.dims.block = {1024, 1, 1};
  EXPECT_EQ(c.message(), "launch of vadd: block (1024,1,1) has 1024 threads; the compiled kernel "
                         "allows at most 640 (it uses 96 registers per thread)");
}

TEST(LaunchCheck, DeviceGridLimits) {
  Check c;
  c.dims.grid = {1, 65536, 1};
  EXPECT_EQ(c.message(), "launch of vadd: grid.y = 65536 exceeds the device's maximum 65535");
  c.dims.grid = {2147483647u, 1, 1};
  EXPECT_EQ(c.message(), "(accepted)");
}

TEST(LaunchCheck, SharedMemoryIncludingOptIn) {
  Check c;
  c.fn.static_smem_bytes = 8192;
  c.dims.dynamic_smem_bytes = 100000; // over the default 48 KiB but within the opt-in maximum
  EXPECT_EQ(c.message(), "(accepted)");
  c.dims.dynamic_smem_bytes = 232448 - 8192 + 1;
  EXPECT_EQ(c.message(), "launch of vadd: 224257 B dynamic + 8192 B static shared memory = "
                         "232449 B exceeds the device's maximum of 232448 B per block (with "
                         "opt-in)");
}

// ---- the launch path on the fake driver ----

struct Launcher {
  std::shared_ptr<FakeDriver> fake = std::make_shared<FakeDriver>();
  Context ctx = *Context::open(fake);
  Module module = *load_module_text(ctx, testing::vector_add_ptx(), "vadd.ptx",
                                    {testing::vector_add_signature()}, {});
  Function fn = *module.function("vadd");
  Stream stream = *Stream::create(ctx);
};

TEST(LaunchPath, PassesBufferPointersAndScalarsInOrder) {
  Launcher l;
  auto a = DeviceBuffer<float>::allocate(l.ctx, 1000);
  auto b = DeviceBuffer<float>::allocate(l.ctx, 1000);
  auto out = DeviceBuffer<float>::allocate(l.ctx, 1000);
  ASSERT_TRUE(a && b && out);
  const std::size_t sizes[] = {8, 8, 8, 4};
  std::copy(std::begin(sizes), std::end(sizes), l.fake->expected_arg_bytes);
  const std::uint32_t n = 1000;
  auto r = l.fn.launch(l.stream, {{4, 1, 1}, {256, 1, 1}, 0}, *a, *b, *out, n);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(l.fake->launches, 1);
  EXPECT_EQ(l.fake->last_args_u64, (std::vector<std::uint64_t>{a->device_ptr(), b->device_ptr(),
                                                               out->device_ptr(), 1000}));
  EXPECT_EQ(l.fake->last_grid[0], 4u);
  EXPECT_EQ(l.fake->last_block[0], 256u);
}

TEST(LaunchPath, BadLaunchesNeverReachTheDriver) {
  Launcher l;
  auto a = DeviceBuffer<float>::allocate(l.ctx, 16);
  ASSERT_TRUE(a);
  const std::size_t n = 16; // 8 bytes where .u32 is declared
  auto wrong_size = l.fn.launch(l.stream, {{1, 1, 1}, {16, 1, 1}, 0}, *a, *a, *a, n);
  ASSERT_FALSE(wrong_size);
  EXPECT_EQ(wrong_size.error().message,
            "launch of vadd: argument 3 is 8 bytes, but .param .u32 vadd_n is 4 bytes");
  auto too_few = l.fn.launch(l.stream, {{1, 1, 1}, {16, 1, 1}, 0}, *a, *a);
  ASSERT_FALSE(too_few);
  auto too_wide = l.fn.launch(l.stream, {{1, 1, 1}, {1024, 1, 1}, 0}, *a, *a, *a, 16u);
  ASSERT_FALSE(too_wide);
  EXPECT_NE(too_wide.error().message.find(".maxntid"), std::string::npos);
  LaunchContract contract;
  contract.block = Dim3{128, 1, 1};
  l.fn.set_contract(contract);
  auto off_contract = l.fn.launch(l.stream, {{1, 1, 1}, {64, 1, 1}, 0}, *a, *a, *a, 16u);
  ASSERT_FALSE(off_contract);
  EXPECT_NE(off_contract.error().message.find("launch contract"), std::string::npos);
  EXPECT_EQ(l.fake->launches, 0);
  ASSERT_TRUE(l.fn.launch(l.stream, {{1, 1, 1}, {128, 1, 1}, 0}, *a, *a, *a, 16u));
  EXPECT_EQ(l.fake->launches, 1);
}

TEST(LaunchPath, OptsIntoLargeDynamicSharedMemoryOnce) {
  Launcher l;
  auto a = DeviceBuffer<float>::allocate(l.ctx, 16);
  ASSERT_TRUE(a);
  ASSERT_TRUE(l.fn.launch(l.stream, {{1, 1, 1}, {32, 1, 1}, 4096}, *a, *a, *a, 16u));
  EXPECT_EQ(l.fake->set_attribute_calls, 0); // within the default 48 KiB
  ASSERT_TRUE(l.fn.launch(l.stream, {{1, 1, 1}, {32, 1, 1}, 100000}, *a, *a, *a, 16u));
  ASSERT_TRUE(l.fn.launch(l.stream, {{1, 1, 1}, {32, 1, 1}, 90000}, *a, *a, *a, 16u));
  EXPECT_EQ(l.fake->set_attribute_calls, 1);
  EXPECT_EQ(l.fake->last_set_attribute_value, 100000);
  EXPECT_EQ(l.fake->last_smem, 90000u);
}

TEST(LaunchPath, DriverLaunchFailuresAreReportedByName) {
  Launcher l;
  auto a = DeviceBuffer<float>::allocate(l.ctx, 16);
  ASSERT_TRUE(a);
  l.fake->fail_next("cuLaunchKernel", cu::kErrorLaunchFailed);
  auto r = l.fn.launch(l.stream, {{1, 1, 1}, {32, 1, 1}, 0}, *a, *a, *a, 16u);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kDriver);
  EXPECT_EQ(r.error().message,
            "cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)");
}

} // namespace
} // namespace ptxkit::runtime
