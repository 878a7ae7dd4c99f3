// fused_residual_rmsnorm_test.cpp: the fused kernel's reference equals a separate residual add
// then RMSNorm; limits, launch contract, and the PTX writes both outputs.
#include "fused_residual_rmsnorm/fused_residual_rmsnorm.h"
#include "kernel_test_util.h"
#include "residual_add/residual_add.h"
#include "rmsnorm/rmsnorm.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(FusedResidualRmsNormReference, EqualsSeparateAddThenRmsNorm) {
  FusedResidualRmsNormConfig c{.hidden = 896, .eps = 1e-6f, .rows = 3};
  HostTensors in = FusedResidualRmsNorm::make_inputs(c, 21);
  auto fused = FusedResidualRmsNorm::reference(c, in);
  ASSERT_TRUE(fused) << fused.error().message;
  std::vector<float> sum = residual_add_reference(in.f32.at("x"), in.f32.at("residual"));
  std::vector<float> out = rmsnorm_reference(sum, in.f32.at("gamma"), c.rows, c.hidden, c.eps);
  EXPECT_EQ(fused->f32.at("sum"), sum);
  EXPECT_EQ(fused->f32.at("out"), out);
  // And it is not just x normalized: the residual matters.
  std::vector<float> x_only =
      rmsnorm_reference(in.f32.at("x"), in.f32.at("gamma"), c.rows, c.hidden, c.eps);
  EXPECT_NE(fused->f32.at("out"), x_only);
}

TEST(FusedResidualRmsNormReference, ConstantSumNormalizesToGamma) {
  const std::uint32_t hidden = 16;
  std::vector<float> x(hidden), r(hidden), gamma(hidden);
  for (std::uint32_t i = 0; i < hidden; ++i) {
    x[i] = static_cast<float>(i);
    r[i] = 2.0f - static_cast<float>(i); // x + r = 2 everywhere
    gamma[i] = 1.0f + static_cast<float>(i);
  }
  auto o = fused_residual_rmsnorm_reference(x, r, gamma, 1, hidden, 1e-5f);
  for (std::uint32_t i = 0; i < hidden; ++i) {
    EXPECT_EQ(o.sum[i], 2.0f);
    EXPECT_FLOAT_EQ(o.out[i], static_cast<float>(2.0 / std::sqrt(4.0 + 1e-5) * gamma[i]));
  }
}

TEST(FusedResidualRmsNormReference, RefusesInputsOfTheWrongShape) {
  FusedResidualRmsNormConfig c{.hidden = 8, .eps = 1e-6f, .rows = 2};
  HostTensors in = FusedResidualRmsNorm::make_inputs(c, 1);
  ASSERT_TRUE(FusedResidualRmsNorm::reference(c, in));
  in.f32["residual"].pop_back();
  EXPECT_FALSE(FusedResidualRmsNorm::reference(c, in));
}

TEST(FusedResidualRmsNormContract, TwoOutputsOneBlockPerRow) {
  FusedResidualRmsNormConfig c{.hidden = 4096, .eps = 1e-5f, .rows = 7};
  auto d = FusedResidualRmsNorm::launch(c);
  EXPECT_EQ(d.grid[0], 7u);
  EXPECT_EQ(d.block[0], 256u);
  auto p = FusedResidualRmsNorm::params(c);
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[3].buffer, "sum");
  EXPECT_EQ(p[3].kind, ParamKind::kOutput);
  EXPECT_EQ(p[4].buffer, "out");
  EXPECT_EQ(p[4].kind, ParamKind::kOutput);
}

TEST(FusedResidualRmsNormLimits, RefusesWhatTheVectorPathCannotCover) {
  const Kernel* k = KernelRegistry::find("fused_residual_rmsnorm");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(config_from_assignments(*k, {"hidden=6"}));
  EXPECT_FALSE(config_from_assignments(*k, {"eps=0"}));
  EXPECT_TRUE(config_from_assignments(*k, {"hidden=4"}));
}

TEST(FusedResidualRmsNormPtx, StoresTheSumAndTheOutputPerChunk) {
  const Kernel* k = KernelRegistry::find("fused_residual_rmsnorm");
  ASSERT_NE(k, nullptr);
  auto ptx =
      k->generate(k->reference_config("llama")->values, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx) << ptx.error().to_string();
  std::size_t stores = 0;
  for (std::size_t at = ptx->text.find("st.global.v4.f32"); at != std::string::npos;
       at = ptx->text.find("st.global.v4.f32", at + 1))
    ++stores;
  EXPECT_EQ(stores, 8u); // 1024 chunks / 256 threads = 4 per thread, sum and out each
  EXPECT_EQ(ptx->text.find("ld.global.nc.v4.f32 {%f1,"), std::string::npos)
      << "x and residual must use plain loads (sum may alias them)";
}

using test_util::count;

TEST(FusedResidualRmsNormHalf, TheReferenceRoundsTheSumAndTheOutput) {
  FusedResidualRmsNormConfig c{.hidden = 896, .eps = 1e-6f, .rows = 2, .dtype = DType::kBF16};
  HostTensors in = FusedResidualRmsNorm::make_inputs(c, 5);
  for (const char* name : {"x", "residual", "gamma"})
    for (float v : in.f32.at(name))
      ASSERT_EQ(v, round_to(DType::kBF16, v)) << name;
  auto out = FusedResidualRmsNorm::reference(c, in);
  ASSERT_TRUE(out);
  // Positive control: the same arithmetic unrounded differs in most elements of both outputs.
  auto f32 = fused_residual_rmsnorm_reference(in.f32.at("x"), in.f32.at("residual"),
                                              in.f32.at("gamma"), c.rows, c.hidden, c.eps);
  std::size_t rounded_sum = 0, rounded_out = 0;
  for (std::size_t i = 0; i < f32.sum.size(); ++i) {
    EXPECT_EQ(out->f32.at("sum")[i], round_to(DType::kBF16, f32.sum[i])) << i;
    EXPECT_EQ(out->f32.at("out")[i], round_to(DType::kBF16, f32.out[i])) << i;
    rounded_sum += out->f32.at("sum")[i] != f32.sum[i];
    rounded_out += out->f32.at("out")[i] != f32.out[i];
  }
  EXPECT_GT(rounded_sum, f32.sum.size() / 4);
  EXPECT_GT(rounded_out, f32.out.size() / 2);
  EXPECT_NE(FusedResidualRmsNorm::tolerance(c, in).why.find("bf16"), std::string_view::npos);
}

TEST(FusedResidualRmsNormHalf, HalfBuffersSixteenByteChunks) {
  FusedResidualRmsNormConfig c{.hidden = 896, .eps = 1e-6f, .rows = 3, .dtype = DType::kF16};
  for (const ParamSpec& p : FusedResidualRmsNorm::params(c))
    EXPECT_EQ(p.elem, ElemType::kF16) << p.name;
  EXPECT_EQ(FusedResidualRmsNorm::launch(c).block[0], 128u); // 112 chunks of 8 halves
  const Kernel* k = KernelRegistry::find("fused_residual_rmsnorm");
  ASSERT_NE(k, nullptr);
  auto bf = config_from_assignments(*k, {"dtype=bf16"});
  auto f32 = config_from_assignments(*k, {});
  ASSERT_TRUE(bf && f32);
  EXPECT_NE(cache_key(*k, *bf, "sm_90"), cache_key(*k, *f32, "sm_90"));
  auto ptx = k->generate(*bf, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx);
  EXPECT_EQ(count(ptx->text, ".f32 {"), 0u) << "no f32 vector access of a half buffer";
  EXPECT_EQ(count(ptx->text, "ld.global.v4.b32"), 2u);    // x, residual (plain: sum may alias)
  EXPECT_EQ(count(ptx->text, "ld.global.nc.v4.b32"), 1u); // gamma
  EXPECT_EQ(count(ptx->text, "st.global.v4.b32"), 2u);    // sum, out
  EXPECT_EQ(count(ptx->text, "cvt.rn.bf16x2.f32"), 8u);
  auto odd = config_from_assignments(*k, {"dtype=bf16", "hidden=16388"});
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("16384"), std::string::npos) << odd.error().message;
}

} // namespace
} // namespace ptxkit::kernels
