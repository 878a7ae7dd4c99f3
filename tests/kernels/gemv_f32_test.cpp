// gemv_f32_test.cpp: gemv_f32's reference against hand-computed products and a naive loop,
// its launch contract, and the .v4 / scalar choice in the PTX.
#include "gemv_f32/gemv_f32.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(GemvF32Reference, HandComputedProducts) {
  // W = [[1, 2, 3], [4, 5, 6]], x = [1, -1, 2] -> y = [5, 11]; k = 3 (the scalar path's shape).
  auto y = gemv_reference({1, 2, 3, 4, 5, 6}, {1, -1, 2}, 2, 3);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[0], 5.0f);
  EXPECT_EQ(y[1], 11.0f);
  // The identity gives x back.
  std::vector<float> eye(16, 0.0f);
  for (int i = 0; i < 4; ++i)
    eye[i * 5] = 1.0f;
  EXPECT_EQ(gemv_reference(eye, {0.5f, -2.0f, 3.0f, 7.25f}, 4, 4),
            (std::vector<float>{0.5f, -2.0f, 3.0f, 7.25f}));
}

TEST(GemvF32Reference, AgreesWithANaiveFloatLoopAndAccumulatesInDouble) {
  GemvF32Config c{.n = 37, .k = 899};
  HostTensors in = GemvF32::make_inputs(c, 12);
  auto out = GemvF32::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& w = in.f32["w"];
  const auto& x = in.f32["x"];
  for (std::size_t r = 0; r < c.n; ++r) {
    float naive = 0.0f;
    for (std::size_t j = 0; j < c.k; ++j)
      naive += w[r * c.k + j] * x[j];
    EXPECT_NEAR(out->f32.at("y")[r], naive, 1e-3f) << r;
  }
  // Cancellation that f32 accumulation loses: 1e8 + 1 - 1e8 in double is 1.
  auto y = gemv_reference({1e8f, 1.0f, -1e8f}, {1.0f, 1.0f, 1.0f}, 1, 3);
  EXPECT_EQ(y[0], 1.0f);
}

TEST(GemvF32Contract, AWarpPerRowFourRowsPerBlock) {
  auto d = GemvF32::launch({.n = 4864, .k = 896});
  EXPECT_EQ(d.grid[0], 1216u);
  EXPECT_EQ(d.block[0], 128u);
  EXPECT_EQ(GemvF32::launch({.n = 897, .k = 896}).grid[0], 225u); // the last block partial
  auto p = GemvF32::params({.n = 4864, .k = 896});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, 4864u * 896u); // logical sizes: nothing padded
  EXPECT_EQ(p[1].elems, 896u);
  EXPECT_EQ(p[2].elems, 4864u);
  EXPECT_EQ(p[2].kind, ParamKind::kOutput);
}

TEST(GemvF32Limits, ZeroSizesAreRefused) {
  const Kernel* k = KernelRegistry::find("gemv_f32");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(config_from_assignments(*k, {"k=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"n=0"}));
  EXPECT_TRUE(config_from_assignments(*k, {"k=1", "n=1"}));
}

TEST(GemvF32Ptx, VectorLoadsOnlyWhenKIsAMultipleOfFour) {
  const Kernel* k = KernelRegistry::find("gemv_f32");
  ASSERT_NE(k, nullptr);
  const auto& t = ptxgen::Target::all_supported().front();
  auto vec = k->generate(*config_from_assignments(*k, {"k=896"}), t);
  auto scalar = k->generate(*config_from_assignments(*k, {"k=899"}), t);
  auto tiny = k->generate(*config_from_assignments(*k, {"k=3"}), t);
  ASSERT_TRUE(vec && scalar && tiny);
  EXPECT_NE(vec->text.find("ld.global.nc.v4.f32"), std::string::npos);
  EXPECT_EQ(scalar->text.find(".v4"), std::string::npos);
  EXPECT_NE(scalar->text.find("$L__main_loop:"), std::string::npos);
  EXPECT_EQ(tiny->text.find("$L__main_loop:"), std::string::npos); // 3 < 97 units: tail only
  EXPECT_NE(tiny->text.find("$L__tail_loop:"), std::string::npos);
}

} // namespace
} // namespace ptxkit::kernels
