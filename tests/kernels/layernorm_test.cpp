// layernorm_test.cpp: LayerNorm's CPU reference (mean 0 / variance 1 before gamma and beta),
// limits, launch contract and the PTX shape that carries its meaning.
#include "kernel_test_util.h"
#include "layernorm/layernorm.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(LayerNormReference, UnitGammaZeroBetaGivesMeanZeroVarianceOne) {
  LayerNormConfig c{.hidden = 896, .eps = 1e-6f, .rows = 3};
  HostTensors in = LayerNorm::make_inputs(c, 11);
  in.f32["gamma"].assign(c.hidden, 1.0f);
  in.f32["beta"].assign(c.hidden, 0.0f);
  auto out = LayerNorm::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& y = out->f32.at("out");
  for (std::uint32_t r = 0; r < c.rows; ++r) {
    double sum = 0, sq = 0;
    for (std::uint32_t i = 0; i < c.hidden; ++i)
      sum += y[r * c.hidden + i];
    const double mean = sum / c.hidden;
    for (std::uint32_t i = 0; i < c.hidden; ++i)
      sq += (y[r * c.hidden + i] - mean) * (y[r * c.hidden + i] - mean);
    EXPECT_NEAR(mean, 0.0, 1e-5) << r;
    EXPECT_NEAR(sq / c.hidden, 1.0, 1e-4) << r;
  }
}

TEST(LayerNormReference, GammaAndBetaApplyAfterTheNormalization) {
  // out = norm * gamma + beta: with gamma = 2 and beta = 3 every output is 2 * norm + 3.
  const std::uint32_t hidden = 64;
  std::vector<float> x(hidden);
  for (std::uint32_t i = 0; i < hidden; ++i)
    x[i] = 10.0f + static_cast<float>(i % 5);
  auto plain = layernorm_reference(x, std::vector<float>(hidden, 1.0f),
                                   std::vector<float>(hidden, 0.0f), 1, hidden, 1e-5f);
  auto affine = layernorm_reference(x, std::vector<float>(hidden, 2.0f),
                                    std::vector<float>(hidden, 3.0f), 1, hidden, 1e-5f);
  for (std::uint32_t i = 0; i < hidden; ++i)
    EXPECT_NEAR(affine[i], 2.0f * plain[i] + 3.0f, 1e-5);
  // The offset of 10 is removed: the smallest element maps below zero.
  EXPECT_LT(plain[0], -1.0f);
}

TEST(LayerNormReference, ConstantRowGivesBeta) {
  const std::uint32_t hidden = 32;
  std::vector<float> x(hidden, 7.5f), gamma(hidden, 4.0f), beta(hidden);
  for (std::uint32_t i = 0; i < hidden; ++i)
    beta[i] = 0.25f * static_cast<float>(i);
  auto y = layernorm_reference(x, gamma, beta, 1, hidden, 1e-6f);
  for (std::uint32_t i = 0; i < hidden; ++i)
    EXPECT_FLOAT_EQ(y[i], beta[i]) << i;
}

TEST(LayerNormReference, RefusesInputsOfTheWrongShape) {
  LayerNormConfig c{.hidden = 8, .eps = 1e-6f, .rows = 2};
  HostTensors in = LayerNorm::make_inputs(c, 1);
  ASSERT_TRUE(LayerNorm::reference(c, in));
  in.f32["beta"].pop_back();
  EXPECT_FALSE(LayerNorm::reference(c, in));
  in.f32.erase("beta");
  EXPECT_FALSE(LayerNorm::reference(c, in));
}

TEST(LayerNormContract, OneBlockPerRowSizedToTheRow) {
  auto d = LayerNorm::launch(LayerNormConfig{.hidden = 896, .eps = 1e-6f, .rows = 65536});
  EXPECT_EQ(d.grid[0], 65536u); // rows on grid.x: more than 65535 rows in one launch
  EXPECT_EQ(d.block[0], 224u);  // 224 float4 chunks: one per thread, no idle warp
  EXPECT_EQ(LayerNorm::launch(LayerNormConfig{.hidden = 4096}).block[0], 256u);
  auto p = LayerNorm::params(LayerNormConfig{.hidden = 896, .eps = 1e-6f, .rows = 5});
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].elems, 5u * 896u);
  EXPECT_EQ(p[1].kind, ParamKind::kOutput);
  EXPECT_EQ(p[3].buffer, "beta");
}

TEST(LayerNormLimits, RefusesWhatTheVectorPathCannotCover) {
  const Kernel* k = KernelRegistry::find("layernorm");
  ASSERT_NE(k, nullptr);
  auto odd = config_from_assignments(*k, {"hidden=898"});
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("multiple of 4"), std::string::npos);
  EXPECT_FALSE(config_from_assignments(*k, {"hidden=16388"}));
  EXPECT_FALSE(config_from_assignments(*k, {"eps=0"}));
  EXPECT_TRUE(config_from_assignments(*k, {"hidden=900", "eps=1e-5"}));
}

TEST(LayerNormPtx, TwoBlockReductionsBroadcastAndEpsBaked) {
  const Kernel* k = KernelRegistry::find("layernorm");
  ASSERT_NE(k, nullptr);
  auto cfg = config_from_assignments(*k, {"hidden=900", "eps=1e-5"});
  ASSERT_TRUE(cfg);
  auto ptx = k->generate(*cfg, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx) << ptx.error().to_string();
  const std::string& t = ptx->text;
  // Two all-lanes reductions (5 butterfly steps each), no shfl.down anywhere.
  std::size_t bfly = 0;
  for (std::size_t at = t.find("shfl.sync.bfly"); at != std::string::npos;
       at = t.find("shfl.sync.bfly", at + 1))
    ++bfly;
  EXPECT_EQ(bfly, 10u);
  EXPECT_EQ(t.find("shfl.sync.down"), std::string::npos);
  // 225 chunks on 256 threads: the chunk guard and the clamp to the last chunk (224).
  EXPECT_NE(t.find("setp.lt.u32"), std::string::npos);
  EXPECT_NE(t.find(", 225;"), std::string::npos);
  EXPECT_NE(t.find(", 224;"), std::string::npos);
  EXPECT_NE(t.find("0f3727C5AC"), std::string::npos); // eps = 1e-5
}

using test_util::count;

TEST(LayerNormHalf, TheReferenceRoundsEachOutput) {
  LayerNormConfig c{.hidden = 896, .eps = 1e-6f, .rows = 2, .dtype = DType::kF16};
  HostTensors in = LayerNorm::make_inputs(c, 9);
  for (const char* name : {"x", "gamma", "beta"})
    for (float v : in.f32.at(name))
      ASSERT_EQ(v, round_to(DType::kF16, v)) << name;
  auto out = LayerNorm::reference(c, in);
  ASSERT_TRUE(out);
  // Positive control: unrounded, most outputs differ.
  auto f32 = layernorm_reference(in.f32.at("x"), in.f32.at("gamma"), in.f32.at("beta"), c.rows,
                                 c.hidden, c.eps);
  std::size_t rounded = 0;
  for (std::size_t i = 0; i < f32.size(); ++i) {
    EXPECT_EQ(out->f32.at("out")[i], round_to(DType::kF16, f32[i])) << i;
    rounded += out->f32.at("out")[i] != f32[i];
  }
  EXPECT_GT(rounded, f32.size() / 2);
  EXPECT_NE(LayerNorm::tolerance(c, in).why.find("f16"), std::string_view::npos);
}

TEST(LayerNormHalf, HalfBuffersSixteenByteChunks) {
  LayerNormConfig c{.hidden = 4096, .eps = 1e-5f, .rows = 3, .dtype = DType::kBF16};
  for (const ParamSpec& p : LayerNorm::params(c))
    EXPECT_EQ(p.elem, ElemType::kBF16) << p.name;
  EXPECT_EQ(LayerNorm::launch(c).block[0], 256u); // 512 chunks of 8: two per thread
  c.hidden = 900;                                 // not a multiple of 8: chunks of 4 halves
  EXPECT_EQ(LayerNorm::chunk_width(c), 4u);
  const Kernel* k = KernelRegistry::find("layernorm");
  ASSERT_NE(k, nullptr);
  auto bf = config_from_assignments(*k, {"dtype=bf16", "hidden=4096"});
  auto f32 = config_from_assignments(*k, {"hidden=4096"});
  ASSERT_TRUE(bf && f32);
  EXPECT_NE(cache_key(*k, *bf, "sm_90"), cache_key(*k, *f32, "sm_90"));
  auto ptx = k->generate(*bf, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx);
  EXPECT_EQ(count(ptx->text, ".f32 {"), 0u);
  EXPECT_EQ(count(ptx->text, "ld.global.v4.b32"), 2u);    // x (plain: out may alias it)
  EXPECT_EQ(count(ptx->text, "ld.global.nc.v4.b32"), 4u); // gamma and beta
  EXPECT_EQ(count(ptx->text, "st.global.v4.b32"), 2u);
  auto bad = config_from_assignments(*k, {"dtype=f16", "hidden=8194"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("multiple of 4"), std::string::npos) << bad.error().message;
}

} // namespace
} // namespace ptxkit::kernels
