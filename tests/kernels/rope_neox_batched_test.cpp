// rope_neox_batched_test.cpp: rope_neox_batched's reference (per-token agreement with the
// one-position kernel, the relative-position property), launch contract and exempt num_tokens.
#include "rope_neox/rope_neox.h"
#include "rope_neox_batched/rope_neox_batched.h"

#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <ptxkit/kernels/registry.h>
#include <set>

namespace ptxkit::kernels {
namespace {

TEST(RopeNeoxBatchedReference, EachTokenMatchesTheOnePositionKernelAtItsPosition) {
  RopeNeoxBatchedConfig c{.head_dim = 64, .num_heads = 2, .theta = 1e6f, .num_tokens = 5};
  HostTensors in = RopeNeoxBatched::make_inputs(c, 21);
  auto out = RopeNeoxBatched::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const std::size_t row = std::size_t{c.num_heads} * c.head_dim;
  std::set<std::uint32_t> distinct(in.u32["positions"].begin(), in.u32["positions"].end());
  EXPECT_GT(distinct.size(), 1u); // the tokens really sit at different positions
  for (std::size_t t = 0; t < c.num_tokens; ++t) {
    HostTensors one;
    one.f32["x"].assign(in.f32["x"].begin() + t * row, in.f32["x"].begin() + (t + 1) * row);
    one.u32["positions"] = {in.u32["positions"][t]};
    auto single = RopeNeox::reference({.head_dim = 64, .num_heads = 2, .theta = 1e6f}, one);
    ASSERT_TRUE(single);
    std::vector<float> slice(out->f32.at("out").begin() + t * row,
                             out->f32.at("out").begin() + (t + 1) * row);
    EXPECT_EQ(slice, single->f32.at("out")) << "token " << t;
  }
}

TEST(RopeNeoxBatchedReference, ScoresDependOnlyOnTheRelativePosition) {
  // <R(m) q, R(n) k> is a function of m - n: the property RoPE exists for.
  RopeGeometry g{.head_dim = 128, .num_heads = 1, .theta = 1e4f};
  InputRng rng(5);
  std::vector<float> q = rng.uniform_vector(128, -1.0f, 1.0f),
                     k = rng.uniform_vector(128, -1.0f, 1.0f);
  auto score = [&](std::uint32_t m, std::uint32_t n) {
    auto rq = rope_reference(g, q, {m}, RopeDirection::kForward);
    auto rk = rope_reference(g, k, {n}, RopeDirection::kForward);
    return std::inner_product(rq.begin(), rq.end(), rk.begin(), 0.0);
  };
  EXPECT_NEAR(score(10, 3), score(107, 100), 1e-5);
  EXPECT_NEAR(score(2000, 1990), score(15, 5), 1e-5);
  EXPECT_GT(std::abs(score(10, 3) - score(10, 4)), 1e-3); // and it does depend on m - n
}

TEST(RopeNeoxBatchedContract, TokensAreGridYAndNotBaked) {
  RopeNeoxBatchedConfig c{.head_dim = 64, .num_heads = 14, .theta = 1e6f, .num_tokens = 2048};
  auto d = RopeNeoxBatched::launch(c);
  EXPECT_EQ(d.grid[0], 1u);
  EXPECT_EQ(d.grid[1], 2048u);
  EXPECT_EQ(d.block[0], 128u);
  auto p = RopeNeoxBatched::params(c);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, 2048u * 14u * 64u);
  EXPECT_EQ(p[2].name, "positions");
  EXPECT_EQ(p[2].elems, 2048u);
  const Kernel* k = KernelRegistry::find("rope_neox_batched");
  ASSERT_NE(k, nullptr);
  const auto& f = k->fields()[static_cast<std::size_t>(k->field_index("num_tokens"))];
  EXPECT_FALSE(f.spec.baked);
  EXPECT_TRUE(k->fields()[static_cast<std::size_t>(k->field_index("theta"))].spec.baked);
}

TEST(RopeNeoxBatchedPtx, TheTokenIsCtaidYAndItsPositionComesFromTheBuffer) {
  const Kernel* k = KernelRegistry::find("rope_neox_batched");
  ASSERT_NE(k, nullptr);
  auto ptx = k->generate(k->defaults(), ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx) << ptx.error().to_string();
  EXPECT_NE(ptx->text.find("%ctaid.y"), std::string::npos);
  EXPECT_NE(ptx->text.find(".param .u64 positions"), std::string::npos);
  EXPECT_NE(ptx->text.find("ld.global.nc.u32"), std::string::npos);
}

TEST(RopeNeoxBatchedHalf, TheBf16TwinsShareTheContractAndRoundOnce) {
  for (const auto& rc : RopeNeoxBatched::reference_configs()) {
    const bool half = rc.config.dtype != DType::kF32;
    EXPECT_EQ(half, rc.tag.find("16") != std::string::npos) << rc.tag;
    const auto p = RopeNeoxBatched::params(rc.config);
    EXPECT_EQ(p[0].elem, elem_type(rc.config.dtype)) << rc.tag;
    EXPECT_EQ(p[1].elem, elem_type(rc.config.dtype)) << rc.tag;
    EXPECT_EQ(p[2].elem, ElemType::kU32) << rc.tag;
  }
  RopeNeoxBatchedConfig c{.head_dim = 64, .num_heads = 2, .num_tokens = 8, .dtype = DType::kBF16};
  HostTensors in = RopeNeoxBatched::make_inputs(c, 2);
  auto out = RopeNeoxBatched::reference(c, in);
  ASSERT_TRUE(out);
  for (float y : out->f32.at("out"))
    EXPECT_EQ(round_to(DType::kBF16, y), y);
  const Kernel* k = KernelRegistry::find("rope_neox_backward");
  ASSERT_NE(k, nullptr);
  auto ptx =
      k->generate(k->reference_config("qwen05b_q_bf16")->values, *ptxgen::Target::parse("sm_90"));
  ASSERT_TRUE(ptx) << ptx.error().to_string();
  EXPECT_NE(ptx->text.find("cvt.rn.bf16x2.f32"), std::string::npos);
  EXPECT_EQ(ptx->text.find("ld.global.v4.f32"), std::string::npos);
}

} // namespace
} // namespace ptxkit::kernels
