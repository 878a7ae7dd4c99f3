// qk_rmsnorm_test.cpp: per-head RMSNorm's CPU reference (each head on its own, constant heads),
// limits, launch contract and the vector width the PTX uses.
#include "qk_rmsnorm/qk_rmsnorm.h"
#include "rmsnorm/rmsnorm.h"

#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>

#include <gtest/gtest.h>

#include <cmath>

namespace ptxkit::kernels {
namespace {

TEST(QkRmsNormReference, ConstantHeadNormalizesToGamma) {
  const std::uint32_t hd = 64;
  std::vector<float> x(2 * hd, -3.0f), gamma(hd);
  for (std::uint32_t i = 0; i < hd; ++i) gamma[i] = 0.5f + 0.01f * static_cast<float>(i);
  for (std::uint32_t i = 0; i < hd; ++i) x[hd + i] = 0.5f;  // second head: constant 0.5
  auto y = qk_rmsnorm_reference(x, gamma, 1, 2, hd, 1e-6f);
  const double s0 = -3.0 / std::sqrt(9.0 + 1e-6), s1 = 0.5 / std::sqrt(0.25 + 1e-6);
  for (std::uint32_t i = 0; i < hd; ++i) {
    EXPECT_FLOAT_EQ(y[i], static_cast<float>(s0 * gamma[i])) << i;
    EXPECT_FLOAT_EQ(y[hd + i], static_cast<float>(s1 * gamma[i])) << i;
  }
}

TEST(QkRmsNormReference, EachHeadIsNormalizedOnItsOwn) {
  // Equal to a plain RMSNorm over rows of head_dim; scaling one head changes no other head.
  QkRmsNormConfig c{.head_dim = 128, .num_heads = 3, .eps = 1e-5f, .tokens = 2};
  HostTensors in = QkRmsNorm::make_inputs(c, 5);
  const auto& x = in.f32.at("x");
  const auto& g = in.f32.at("gamma");
  auto y = qk_rmsnorm_reference(x, g, c.tokens, c.num_heads, c.head_dim, c.eps);
  EXPECT_EQ(y, rmsnorm_reference(x, g, c.tokens * c.num_heads, c.head_dim, c.eps));
  std::vector<float> x2 = x;
  for (std::uint32_t i = 0; i < c.head_dim; ++i) x2[2 * c.head_dim + i] *= 100.0f;  // head 2
  auto y2 = qk_rmsnorm_reference(x2, g, c.tokens, c.num_heads, c.head_dim, c.eps);
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (i / c.head_dim == 2) continue;
    EXPECT_EQ(y[i], y2[i]) << i;
  }
  // Scale invariance of the scaled head itself (eps is negligible here).
  for (std::uint32_t i = 0; i < c.head_dim; ++i)
    EXPECT_NEAR(y2[2 * c.head_dim + i], y[2 * c.head_dim + i], 1e-4) << i;
}

TEST(QkRmsNormReference, RefusesInputsOfTheWrongShape) {
  QkRmsNormConfig c{.head_dim = 64, .num_heads = 2, .eps = 1e-6f, .tokens = 2};
  HostTensors in = QkRmsNorm::make_inputs(c, 1);
  ASSERT_TRUE(QkRmsNorm::reference(c, in));
  in.f32["gamma"].push_back(1.0f);
  EXPECT_FALSE(QkRmsNorm::reference(c, in));
}

TEST(QkRmsNormContract, OneBlockPerTokenOneWarpPerHead) {
  auto d = QkRmsNorm::launch(QkRmsNormConfig{.head_dim = 64, .num_heads = 14, .tokens = 9});
  EXPECT_EQ(d.grid[0], 9u);
  EXPECT_EQ(d.block[0], 14u * 32u);
  auto p = QkRmsNorm::params(QkRmsNormConfig{.head_dim = 64, .num_heads = 14, .tokens = 9});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, 9u * 14u * 64u);
  EXPECT_EQ(p[2].elems, 64u);  // one gamma for every head
  EXPECT_EQ(qk_rmsnorm_vector_width(128), 4u);
  EXPECT_EQ(qk_rmsnorm_vector_width(64), 2u);
  EXPECT_EQ(qk_rmsnorm_vector_width(96), 1u);
  EXPECT_EQ(qk_rmsnorm_vector_width(256), 4u);
}

TEST(QkRmsNormLimits, AHeadMustFitOneWarp) {
  const Kernel* k = KernelRegistry::find("qk_rmsnorm");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(config_from_assignments(*k, {"head_dim=48"}));   // not a multiple of 32
  EXPECT_FALSE(config_from_assignments(*k, {"head_dim=288"}));  // more than 8 per lane
  EXPECT_FALSE(config_from_assignments(*k, {"num_heads=33"}));  // more than 1024 threads
  EXPECT_FALSE(config_from_assignments(*k, {"eps=0"}));
  EXPECT_TRUE(config_from_assignments(*k, {"head_dim=96", "num_heads=32"}));
}

TEST(QkRmsNormPtx, VectorWidthFollowsHeadDim) {
  const Kernel* k = KernelRegistry::find("qk_rmsnorm");
  ASSERT_NE(k, nullptr);
  const auto& t = ptxgen::Target::all_supported().front();
  for (auto [hd, want] : {std::pair{"128", "ld.global.v4.f32"}, std::pair{"64", "ld.global.v2.f32"},
                          std::pair{"96", "ld.global.f32"}}) {
    auto cfg = config_from_assignments(*k, {std::string("head_dim=") + hd});
    ASSERT_TRUE(cfg);
    auto ptx = k->generate(*cfg, t);
    ASSERT_TRUE(ptx) << ptx.error().to_string();
    EXPECT_NE(ptx->text.find(want), std::string::npos) << hd;
    EXPECT_NE(ptx->text.find("shfl.sync.bfly.b32"), std::string::npos);
    EXPECT_EQ(ptx->text.find("bar.sync"), std::string::npos);  // a head is one warp: no barrier
  }
}

}  // namespace
}  // namespace ptxkit::kernels
