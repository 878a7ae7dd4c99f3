// qk_rmsnorm_test.cpp: per-head RMSNorm's CPU reference (each head on its own, constant heads),
// limits, launch contract and the vector width the PTX uses.
#include "kernel_test_util.h"
#include "qk_rmsnorm/qk_rmsnorm.h"
#include "rmsnorm/rmsnorm.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(QkRmsNormReference, ConstantHeadNormalizesToGamma) {
  const std::uint32_t hd = 64;
  std::vector<float> x(2 * hd, -3.0f), gamma(hd);
  for (std::uint32_t i = 0; i < hd; ++i)
    gamma[i] = 0.5f + 0.01f * static_cast<float>(i);
  for (std::uint32_t i = 0; i < hd; ++i)
    x[hd + i] = 0.5f; // second head: constant 0.5
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
  for (std::uint32_t i = 0; i < c.head_dim; ++i)
    x2[2 * c.head_dim + i] *= 100.0f; // head 2
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

TEST(QkRmsNormContract, OneBlockPerTokenHeadsOnLaneGroups) {
  auto d = QkRmsNorm::launch(QkRmsNormConfig{.head_dim = 64, .num_heads = 14, .tokens = 9});
  EXPECT_EQ(d.grid[0], 9u);
  EXPECT_EQ(d.block[0], 14u * 16u); // 16 lanes (one .v4 each) per head of 64
  auto p = QkRmsNorm::params(QkRmsNormConfig{.head_dim = 64, .num_heads = 14, .tokens = 9});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, 9u * 14u * 64u);
  EXPECT_EQ(p[2].elems, 64u); // one gamma for every head
  auto l128 = qk_rmsnorm_layout(128, 12);
  EXPECT_EQ(l128.lanes_per_head, 32u);
  EXPECT_EQ(l128.vector_width, 4u);
  EXPECT_EQ(l128.vectors_per_lane, 1u);
  EXPECT_FALSE(l128.phantom_lanes);
  auto l32 = qk_rmsnorm_layout(32, 3); // 3 heads of 8 lanes: a block of 32, 8 phantom lanes
  EXPECT_EQ(l32.lanes_per_head, 8u);
  EXPECT_EQ(l32.threads, 32u);
  EXPECT_TRUE(l32.phantom_lanes);
  auto l96 = qk_rmsnorm_layout(96, 5); // not a power of two: a warp per head, scalars
  EXPECT_EQ(l96.lanes_per_head, 32u);
  EXPECT_EQ(l96.vector_width, 1u);
  EXPECT_EQ(l96.vectors_per_lane, 3u);
  auto l256 = qk_rmsnorm_layout(256, 2);
  EXPECT_EQ(l256.vector_width, 4u);
  EXPECT_EQ(l256.vectors_per_lane, 2u);
  auto l192 = qk_rmsnorm_layout(192, 2);
  EXPECT_EQ(l192.vector_width, 2u);
  EXPECT_EQ(l192.vectors_per_lane, 3u);
}

TEST(QkRmsNormLimits, AHeadMustFitOneWarp) {
  const Kernel* k = KernelRegistry::find("qk_rmsnorm");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(config_from_assignments(*k, {"head_dim=48"}));  // not a multiple of 32
  EXPECT_FALSE(config_from_assignments(*k, {"head_dim=288"})); // more than 8 per lane
  EXPECT_FALSE(config_from_assignments(*k, {"num_heads=33"})); // more than 1024 threads
  EXPECT_FALSE(config_from_assignments(*k, {"eps=0"}));
  EXPECT_TRUE(config_from_assignments(*k, {"head_dim=96", "num_heads=32"}));
}

TEST(QkRmsNormPtx, VectorWidthAndReductionFollowHeadDim) {
  const Kernel* k = KernelRegistry::find("qk_rmsnorm");
  ASSERT_NE(k, nullptr);
  const auto& t = ptxgen::Target::all_supported().front();
  struct Case {
    std::vector<std::string> sets;
    const char* load;
    const char* first_bfly; // the widest butterfly step: half the lanes of a head
    bool guarded_store;
  };
  for (const Case& c : {Case{{"head_dim=128"}, "ld.global.v4.f32", ", 16, 31,", false},
                        Case{{"head_dim=64"}, "ld.global.v4.f32", ", 8, 31,", false},
                        Case{{"head_dim=32", "num_heads=3"}, "ld.global.v4.f32", ", 4, 31,", true},
                        Case{{"head_dim=96"}, "ld.global.f32", ", 16, 31,", false},
                        Case{{"head_dim=192"}, "ld.global.v2.f32", ", 16, 31,", false}}) {
    auto cfg = config_from_assignments(*k, c.sets);
    ASSERT_TRUE(cfg);
    auto ptx = k->generate(*cfg, t);
    ASSERT_TRUE(ptx) << ptx.error().to_string();
    const std::string& s = ptx->text;
    EXPECT_NE(s.find(c.load), std::string::npos) << c.sets[0];
    const auto bfly = s.find("shfl.sync.bfly.b32");
    ASSERT_NE(bfly, std::string::npos);
    EXPECT_NE(s.substr(bfly, s.find('\n', bfly) - bfly).find(c.first_bfly), std::string::npos)
        << c.sets[0];
    EXPECT_EQ(s.find("bar.sync"), std::string::npos); // a head is inside one warp: no barrier
    EXPECT_EQ(s.find("@%p") != std::string::npos, c.guarded_store) // only phantom lanes
        << c.sets[0];
  }
}

using test_util::count;

TEST(QkRmsNormHalf, TheReferenceRoundsEachOutput) {
  QkRmsNormConfig c{.head_dim = 64, .num_heads = 14, .eps = 1e-6f, .tokens = 2};
  c.dtype = DType::kBF16;
  HostTensors in = QkRmsNorm::make_inputs(c, 3);
  for (float v : in.f32.at("x"))
    ASSERT_EQ(v, round_to(DType::kBF16, v));
  auto out = QkRmsNorm::reference(c, in);
  ASSERT_TRUE(out);
  // Positive control: unrounded, most outputs differ.
  auto f32 = qk_rmsnorm_reference(in.f32.at("x"), in.f32.at("gamma"), c.tokens, c.num_heads,
                                  c.head_dim, c.eps);
  std::size_t rounded = 0;
  for (std::size_t i = 0; i < f32.size(); ++i) {
    EXPECT_EQ(out->f32.at("out")[i], round_to(DType::kBF16, f32[i])) << i;
    rounded += out->f32.at("out")[i] != f32[i];
  }
  EXPECT_GT(rounded, f32.size() / 2);
  EXPECT_NE(QkRmsNorm::tolerance(c, in).why.find("bf16"), std::string_view::npos);
}

TEST(QkRmsNormHalf, EightHalvesPerLaneAndHalfBuffers) {
  QkRmsNormConfig c{.head_dim = 64, .num_heads = 14, .tokens = 9, .dtype = DType::kBF16};
  EXPECT_EQ(qk_rmsnorm_layout(c).lanes_per_head, 8u); // 64 halves: 8 lanes of 16 bytes
  EXPECT_EQ(qk_rmsnorm_layout(c).vector_width, 8u);
  EXPECT_EQ(QkRmsNorm::launch(c).block[0], 128u); // 112 lanes rounded up to a warp
  for (const ParamSpec& p : QkRmsNorm::params(c))
    EXPECT_EQ(p.elem, ElemType::kBF16) << p.name;
  auto l96 = qk_rmsnorm_layout(96, 2, 8); // a warp per head, single halves
  EXPECT_EQ(l96.vector_width, 1u);
  EXPECT_EQ(l96.vectors_per_lane, 3u);
  auto l256 = qk_rmsnorm_layout(256, 2, 8); // 32 lanes of 8
  EXPECT_EQ(l256.lanes_per_head, 32u);
  EXPECT_EQ(l256.vector_width, 8u);

  const Kernel* k = KernelRegistry::find("qk_rmsnorm");
  ASSERT_NE(k, nullptr);
  const auto& t = ptxgen::Target::all_supported().front();
  auto bf = config_from_assignments(*k, {"dtype=bf16"});
  auto f16 = config_from_assignments(*k, {"dtype=f16", "head_dim=96"});
  auto f32 = config_from_assignments(*k, {});
  ASSERT_TRUE(bf && f16 && f32);
  EXPECT_NE(cache_key(*k, *bf, "sm_90"), cache_key(*k, *f32, "sm_90"));
  auto ptx = k->generate(*bf, t);
  ASSERT_TRUE(ptx);
  EXPECT_EQ(count(ptx->text, ".f32 {"), 0u) << ptx->text;
  EXPECT_EQ(count(ptx->text, "ld.global.v4.b32"), 1u); // x (plain: out may alias it)
  EXPECT_EQ(count(ptx->text, "ld.global.nc.v4.b32"), 1u);
  EXPECT_EQ(count(ptx->text, "st.global.v4.b32"), 1u);
  auto h = k->generate(*f16, t);
  ASSERT_TRUE(h);
  EXPECT_EQ(count(h->text, "ld.global.b16"), 3u); // three single halves per lane
  EXPECT_EQ(count(h->text, "cvt.rn.f16.f32"), 3u);
  auto bad = config_from_assignments(*k, {"dtype=bf16", "head_dim=48"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("multiple of 32"), std::string::npos) << bad.error().message;
}

} // namespace
} // namespace ptxkit::kernels
