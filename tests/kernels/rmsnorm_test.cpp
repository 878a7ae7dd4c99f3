// rmsnorm_test.cpp: RMSNorm's CPU reference, limits, launch contract and generated PTX.
#include "kernel_test_util.h"
#include "rmsnorm/rmsnorm.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

std::string ptx_for(const std::vector<std::string>& sets) {
  return test_util::kernel_ptx("rmsnorm", sets);
}

using test_util::count;

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

TEST(RmsNormHalf, TheReferenceRoundsInputsAndEachOutputToTheFormat) {
  RmsNormConfig c{.hidden = 896, .eps = 1e-6f, .rows = 2, .dtype = DType::kBF16};
  HostTensors in = RmsNorm::make_inputs(c, 11);
  for (float v : in.f32.at("x"))
    ASSERT_EQ(v, round_to(DType::kBF16, v));
  for (float v : in.f32.at("gamma"))
    ASSERT_EQ(v, round_to(DType::kBF16, v));
  auto out = RmsNorm::reference(c, in);
  ASSERT_TRUE(out);
  const auto& y = out->f32.at("out");
  // The same arithmetic, unrounded: every output is a bf16 value and most differ from the f32
  // result (a positive control: without the final rounding this would find none).
  auto f32 = rmsnorm_reference(in.f32.at("x"), in.f32.at("gamma"), c.rows, c.hidden, c.eps);
  std::size_t rounded = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    ASSERT_EQ(y[i], round_to(DType::kBF16, y[i])) << i;
    EXPECT_EQ(y[i], round_to(DType::kBF16, f32[i])) << i;
    rounded += y[i] != f32[i];
  }
  EXPECT_GT(rounded, y.size() / 2);
  // f16 keeps more bits, but still rounds.
  c.dtype = DType::kF16;
  HostTensors h = RmsNorm::make_inputs(c, 11);
  auto hy = RmsNorm::reference(c, h);
  ASSERT_TRUE(hy);
  for (float v : hy->f32.at("out"))
    ASSERT_EQ(v, round_to(DType::kF16, v));
  EXPECT_GT(RmsNorm::tolerance(c, h).rel, 2 * 0x1p-11);
  EXPECT_NE(RmsNorm::tolerance(c, h).why.find("f16"), std::string_view::npos);
}

TEST(RmsNormHalf, TheContractDeclaresHalfBuffersAndTheBlockFollowsTheChunks) {
  RmsNormConfig c{.hidden = 896, .eps = 1e-6f, .rows = 3, .dtype = DType::kBF16};
  for (const ParamSpec& p : RmsNorm::params(c))
    EXPECT_EQ(p.elem, ElemType::kBF16) << p.name;
  EXPECT_EQ(RmsNorm::params(c)[0].elems, 3u * 896u);
  EXPECT_EQ(RmsNorm::launch(c).block[0], 128u); // 112 chunks of 8
  c.dtype = DType::kF16;
  c.hidden = 900; // not a multiple of 8: chunks of 4 halves (8-byte aligned rows)
  EXPECT_EQ(RmsNorm::chunk_width(c), 4u);
  EXPECT_EQ(RmsNorm::launch(c).block[0], 256u); // 225 chunks
}

TEST(RmsNormHalf, Bf16PtxReadsAndWritesHalvesInSixteenByteAccesses) {
  const std::string bf = ptx_for({"dtype=bf16"}); // hidden 896: one chunk of 8 per thread
  EXPECT_EQ(count(bf, "ld.global.f32"), 0u) << bf;
  EXPECT_EQ(count(bf, "ld.global.nc.v4.f32"), 0u);
  EXPECT_EQ(count(bf, "ld.global.nc.v4.b32"), 2u); // x and gamma, once each
  EXPECT_EQ(count(bf, "st.global.v4.b32"), 1u);
  EXPECT_EQ(count(bf, "cvt.rn.bf16x2.f32"), 4u);
  EXPECT_NE(bf.find(".reqntid 128, 1, 1"), std::string::npos);
  const std::string h = ptx_for({"dtype=f16", "hidden=900"});
  EXPECT_EQ(count(h, "ld.global.nc.v2.b32"), 2u);
  EXPECT_EQ(count(h, "cvt.rn.f16x2.f32"), 2u);
  // A row too long for registers loops over its chunks, still in halves.
  const std::string wide = ptx_for({"dtype=bf16", "hidden=16384"});
  EXPECT_NE(wide.find("scale_loop"), std::string::npos);
  EXPECT_EQ(count(wide, "ld.global.nc.v4.b32"), 3u); // x twice, gamma once
  EXPECT_EQ(count(wide, "ld.global.nc.v4.f32"), 0u);
}

TEST(RmsNormF32, TheRowIsReadOnceWhenItFitsInRegisters) {
  const std::string q = ptx_for({});              // 896: one chunk per thread
  EXPECT_EQ(count(q, "ld.global.nc.v4.f32"), 2u); // x and gamma
  EXPECT_EQ(q.find("scale_loop"), std::string::npos);
  const std::string l = ptx_for({"hidden=4096"}); // 4 chunks per thread
  EXPECT_EQ(count(l, "ld.global.nc.v4.f32"), 8u);
  const std::string wide = ptx_for({"hidden=65536"}); // 64 chunks per thread: looped, read twice
  EXPECT_EQ(count(wide, "ld.global.nc.v4.f32"), 3u);
}

TEST(RmsNormHalf, TheDtypeIsInTheKey) {
  const Kernel* k = KernelRegistry::find("rmsnorm");
  ASSERT_NE(k, nullptr);
  auto f32 = config_from_assignments(*k, {});
  auto bf = config_from_assignments(*k, {"dtype=bf16"});
  auto f16 = config_from_assignments(*k, {"dtype=f16"});
  ASSERT_TRUE(f32 && bf && f16);
  EXPECT_NE(cache_key(*k, *f32, "sm_90"), cache_key(*k, *bf, "sm_90"));
  EXPECT_NE(cache_key(*k, *bf, "sm_90"), cache_key(*k, *f16, "sm_90"));
  auto bad = config_from_assignments(*k, {"dtype=fp8"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bf16"), std::string::npos) << bad.error().message;
  auto odd = config_from_assignments(*k, {"dtype=bf16", "hidden=898"});
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("multiple of 4"), std::string::npos) << odd.error().message;
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
