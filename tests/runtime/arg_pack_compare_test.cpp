// arg_pack_compare_test.cpp: run-time argument lists and result comparison.
//
// ArgPack must hand the launch exactly the bytes and sizes of each argument in order (the launch
// checks compare those sizes with the .entry); compare() must fail unwritten (NaN-poisoned)
// elements and anything outside |got - want| <= abs + rel * |want|.
#include "fake_driver.h"
#include "module_p.h"
#include "ptxkit/runtime/arg_pack.h"
#include "ptxkit/runtime/compare.h"
#include "test_ptx.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <vector>

namespace ptxkit::runtime {
namespace {

TEST(ArgPack, KeepsBytesAndSizesInOrder) {
  ArgPack p;
  p.pointer(0x1000).value(std::uint32_t{7}).value(2.5f);
  struct Cfg {
    std::uint64_t a, b, c;
  } cfg{1, 2, 3};
  p.value(cfg);
  for (int i = 0; i < 100; ++i)
    p.value(std::uint16_t(i)); // many slots: addresses stay valid
  ASSERT_EQ(p.size(), 104u);
  const auto refs = p.refs();
  EXPECT_EQ(refs[0].size, 8u);
  EXPECT_EQ(*static_cast<const std::uint64_t*>(refs[0].ptr), 0x1000u);
  EXPECT_EQ(refs[1].size, 4u);
  EXPECT_EQ(*static_cast<const std::uint32_t*>(refs[1].ptr), 7u);
  EXPECT_EQ(*static_cast<const float*>(refs[2].ptr), 2.5f);
  EXPECT_EQ(refs[3].size, 24u);
  EXPECT_EQ(static_cast<const std::uint64_t*>(refs[3].ptr)[2], 3u);
  EXPECT_EQ(*static_cast<const std::uint16_t*>(refs[103].ptr), 99);
}

TEST(ArgPack, LaunchesThroughLaunchArgsWithTheChecks) {
  auto fake = std::make_shared<testing::FakeDriver>();
  auto ctx = Context::open(fake);
  ASSERT_TRUE(ctx);
  auto m = load_module_text(*ctx, testing::vector_add_ptx(), "vadd.ptx",
                            {testing::vector_add_signature()}, {});
  ASSERT_TRUE(m);
  auto fn = m->function("vadd");
  auto stream = Stream::create(*ctx);
  auto buf = DeviceBuffer<float>::allocate(*ctx, 8);
  ASSERT_TRUE(fn && stream && buf);
  ArgPack good;
  good.buffer(*buf).buffer(*buf).buffer(*buf).value(std::uint32_t{8});
  ASSERT_TRUE(fn->launch_args(*stream, {{1, 1, 1}, {8, 1, 1}, 0}, good.refs()));
  ArgPack bad;
  bad.buffer(*buf).buffer(*buf).buffer(*buf).value(std::uint64_t{8});
  auto r = fn->launch_args(*stream, {{1, 1, 1}, {8, 1, 1}, 0}, bad.refs());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "launch of vadd: argument 3 is 8 bytes, but .param .u32 vadd_n is 4 bytes");
  EXPECT_EQ(fake->launches, 1);
}

TEST(Compare, WithinAndOutsideTolerance) {
  const std::vector<float> want{1.0f, -2.0f, 100.0f, 0.0f};
  const std::vector<float> got{1.0f, -2.0f + 1e-6f, 100.005f, 1e-7f};
  const auto c = compare(got, want, {1e-6, 1e-4});
  EXPECT_TRUE(c.ok()) << c.summary();
  EXPECT_EQ(c.elements, 4u);
  EXPECT_NEAR(c.max_abs_error, 0.005, 1e-5);
  EXPECT_NEAR(c.max_rel_error, 5e-5, 1e-6); // the zero reference does not count
  const auto strict = compare(got, want, {1e-6, 1e-6});
  EXPECT_FALSE(strict.ok());
  EXPECT_EQ(strict.failures, 1u);
  EXPECT_EQ(strict.worst_index, 2u);
}

TEST(Compare, UnwrittenNaNElementsAlwaysFail) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> want{1.0f, 2.0f, 3.0f};
  const std::vector<float> got{1.0f, nan, 3.0f};
  const auto c = compare(got, want, {1e30, 1e30});
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.failures, 1u);
  EXPECT_EQ(c.nan_count, 1u);
  EXPECT_EQ(c.worst_index, 1u);
  EXPECT_EQ(c.summary(), "3 elements: max abs 0, max rel 0, 1 out of tolerance (1 NaN/inf), "
                         "worst at 1");
  const std::vector<float> inf_both{std::numeric_limits<float>::infinity()};
  EXPECT_TRUE(compare(inf_both, inf_both, {}).ok()); // the reference's own inf is matched
}

TEST(Compare, SizesAndIntegers) {
  const std::vector<float> a{1.0f, 2.0f};
  const std::vector<float> b{1.0f};
  EXPECT_FALSE(compare(a, b, {}).ok());
  EXPECT_TRUE(compare(a, b, {}).size_mismatch);
  const std::vector<std::uint32_t> x{1, 2, 3, 4}, y{1, 2, 7, 4};
  const auto c = compare(x, y);
  EXPECT_EQ(c.failures, 1u);
  EXPECT_EQ(c.worst_index, 2u);
  EXPECT_EQ(c.max_abs_error, 4.0);
  EXPECT_TRUE(compare(x, x).ok());
}

} // namespace
} // namespace ptxkit::runtime
