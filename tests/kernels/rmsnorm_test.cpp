// rmsnorm_test.cpp: RMSNorm's CPU reference, limits, launch contract and generated PTX.
#include "rmsnorm/rmsnorm.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(RmsNormReference, ConstantRowNormalizesToGamma) {
  // x = c everywhere: mean(x^2) = c^2, so out = c / sqrt(c^2 + eps) * gamma.
  const std::uint32_t hidden = 64;
  const float c = -3.0f, eps = 1e-5f;
  std::vector<float> x(2 * hidden, c), gamma(hidden);
  for (std::uint32_t i = 0; i < hidden; ++i)
    gamma[i] = 0.5f + 0.01f * static_cast<float>(i);
  for (std::uint32_t i = 0; i < hidden; ++i)
    x[hidden + i] = 2.0f; // second row: constant 2
  auto out = rmsnorm_reference(x, gamma, 2, hidden, eps);
  ASSERT_EQ(out.size(), x.size());
  const double s0 = c / std::sqrt(double{c} * c + eps), s1 = 2.0 / std::sqrt(4.0 + eps);
  for (std::uint32_t i = 0; i < hidden; ++i) {
    EXPECT_FLOAT_EQ(out[i], static_cast<float>(s0 * gamma[i])) << i;
    EXPECT_FLOAT_EQ(out[hidden + i], static_cast<float>(s1 * gamma[i])) << i;
  }
  // The eps is visible: with a tiny row it dominates.
  std::vector<float> tiny(hidden, 1e-3f), ones(hidden, 1.0f);
  float small_eps = rmsnorm_reference(tiny, ones, 1, hidden, 1e-6f)[0];
  float big_eps = rmsnorm_reference(tiny, ones, 1, hidden, 1e-5f)[0];
  EXPECT_NEAR(small_eps, 1e-3 / std::sqrt(1e-6 + 1e-6), 1e-6);
  EXPECT_NEAR(big_eps, 1e-3 / std::sqrt(1e-6 + 1e-5), 1e-6);
  EXPECT_GT(small_eps, 2.0f * big_eps);
}

TEST(RmsNormReference, OutputRowsHaveUnitRmsWithUnitGamma) {
  RmsNormConfig c{.hidden = 256, .eps = 1e-6f, .rows = 3};
  HostTensors in = RmsNorm::make_inputs(c, 7);
  in.f32["gamma"].assign(c.hidden, 1.0f);
  auto out = RmsNorm::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& y = out->f32.at("out");
  for (std::uint32_t r = 0; r < c.rows; ++r) {
    double ss = 0;
    for (std::uint32_t i = 0; i < c.hidden; ++i)
      ss += double{y[r * c.hidden + i]} * y[r * c.hidden + i];
    EXPECT_NEAR(std::sqrt(ss / c.hidden), 1.0, 1e-4) << r;
  }
}

TEST(RmsNormReference, RefusesInputsOfTheWrongShape) {
  RmsNormConfig c{.hidden = 8, .eps = 1e-6f, .rows = 2};
  HostTensors in = RmsNorm::make_inputs(c, 1);
  in.f32["x"].pop_back();
  EXPECT_FALSE(RmsNorm::reference(c, in));
  in.f32.erase("gamma");
  EXPECT_FALSE(RmsNorm::reference(c, in));
}

TEST(RmsNormContract, LaunchIsOneBlockPerRowSizedToTheRow) {
  auto d = RmsNorm::launch(RmsNormConfig{.hidden = 896, .eps = 1e-6f, .rows = 5});
  EXPECT_EQ(d.grid[0], 5u); // rows on grid.x: more than 65535 in one launch
  EXPECT_EQ(d.grid[1], 1u);
  EXPECT_EQ(d.block[0], 224u); // 224 chunks: 7 warps, none idle
  EXPECT_EQ(RmsNorm::launch(RmsNormConfig{.hidden = 4096, .rows = 1}).block[0], 256u);
  EXPECT_EQ(RmsNorm::launch(RmsNormConfig{.hidden = 4, .rows = 1}).block[0], 32u);
  EXPECT_EQ(RmsNorm::launch(RmsNormConfig{.hidden = 900, .rows = 1}).block[0], 256u); // 225
  EXPECT_EQ(RmsNorm::launch(RmsNormConfig{.hidden = 896, .rows = 65536}).grid[0], 65536u);
  auto p = RmsNorm::params(RmsNormConfig{.hidden = 896, .eps = 1e-6f, .rows = 5});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, 5u * 896u); // the logical size: nothing padded
  EXPECT_EQ(p[1].kind, ParamKind::kOutput);
}

TEST(RmsNormLimits, AHiddenSizeTheVectorPathCannotCoverIsRefused) {
  const Kernel* k = KernelRegistry::find("rmsnorm");
  ASSERT_NE(k, nullptr);
  auto odd = config_from_assignments(*k, {"hidden=898"});
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("'hidden' = 898"), std::string::npos) << odd.error().message;
  EXPECT_NE(odd.error().message.find("multiple of 4"), std::string::npos);
  EXPECT_FALSE(config_from_assignments(*k, {"eps=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"eps=-1e-6"}));
  EXPECT_FALSE(config_from_assignments(*k, {"rows=0"}));
  EXPECT_TRUE(config_from_assignments(*k, {"rows=65536"}));
  EXPECT_FALSE(config_from_assignments(*k, {"rows=2147483648"}));
  EXPECT_TRUE(config_from_assignments(*k, {"hidden=4", "eps=1e-5"}));
}

} // namespace
} // namespace ptxkit::kernels
