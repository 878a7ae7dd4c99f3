// swiglu_test.cpp: SwiGLU's reference at known points, and the ex2/log2(e) form of the PTX.
#include "kernel_test_util.h"
#include "swiglu/swiglu.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(SwiGluReference, SiluAtKnownPoints) {
  EXPECT_EQ(silu_reference(0.0), 0.0);
  EXPECT_NEAR(silu_reference(1.0), 0.7310585786300049, 1e-15);
  EXPECT_NEAR(silu_reference(-1.0), -0.2689414213699951, 1e-15);
  EXPECT_NEAR(silu_reference(2.0), 1.7615941559557649, 1e-15);
  EXPECT_NEAR(silu_reference(30.0), 30.0, 1e-10); // silu(x) -> x for large x
  EXPECT_NEAR(silu_reference(-30.0), 0.0, 1e-10); // and -> 0 for very negative x
  // The minimum of silu is near x = -1.2785 with value -0.2784645.
  EXPECT_NEAR(silu_reference(-1.2784645), -0.2784645428, 1e-9);
}

TEST(SwiGluReference, GateTimesUp) {
  auto out = swiglu_reference({0.0f, 1.0f, -1.0f, 2.0f}, {5.0f, 2.0f, -4.0f, 0.0f});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_FLOAT_EQ(out[1], 1.4621171572600098f);
  EXPECT_FLOAT_EQ(out[2], 1.0757656854799804f);
  EXPECT_EQ(out[3], 0.0f);
  SwiGluConfig c{.n = 9};
  HostTensors in = SwiGlu::make_inputs(c, 2);
  ASSERT_TRUE(SwiGlu::reference(c, in));
  in.f32.erase("up");
  EXPECT_FALSE(SwiGlu::reference(c, in));
}

TEST(SwiGluPtx, ExpIsEx2OfMinusXTimesLog2e) {
  const Kernel* k = KernelRegistry::find("swiglu");
  ASSERT_NE(k, nullptr);
  auto cfg = config_from_assignments(*k, {"n=4866"});
  ASSERT_TRUE(cfg);
  auto ptx = k->generate(*cfg, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx) << ptx.error().to_string();
  const std::string& t = ptx->text;
  EXPECT_NE(t.find("0fBFB8AA3B"), std::string::npos); // -log2(e)
  EXPECT_NE(t.find("ex2.approx.f32"), std::string::npos);
  EXPECT_NE(t.find("div.full.f32"), std::string::npos);
  EXPECT_NE(t.find("ld.global.v4.f32"), std::string::npos);
  EXPECT_NE(t.find("ld.global.f32"), std::string::npos); // 2 tail elements
  auto d = SwiGlu::launch(SwiGluConfig{.n = 4866});
  EXPECT_EQ(d.grid[0] * d.block[0] >= 1217u, true); // 1216 groups + the tail thread
}

using test_util::count;

TEST(SwiGluHalf, TheOutputIsRoundedOnceToTheFormat) {
  SwiGluConfig c{.n = 4864, .dtype = DType::kBF16};
  HostTensors in = SwiGlu::make_inputs(c, 8);
  for (const char* name : {"gate", "up"})
    for (float v : in.f32.at(name))
      ASSERT_EQ(v, round_to(DType::kBF16, v)) << name;
  auto out = SwiGlu::reference(c, in);
  ASSERT_TRUE(out);
  auto f32 = swiglu_reference(in.f32.at("gate"), in.f32.at("up"));
  std::size_t rounded = 0; // positive control
  for (std::size_t i = 0; i < f32.size(); ++i) {
    EXPECT_EQ(out->f32.at("out")[i], round_to(DType::kBF16, f32[i])) << i;
    rounded += out->f32.at("out")[i] != f32[i];
  }
  EXPECT_GT(rounded, f32.size() / 2);
  EXPECT_NE(SwiGlu::tolerance(c, in).why.find("bf16"), std::string_view::npos);
  EXPECT_GT(SwiGlu::tolerance(c, in).rel, 2 * 0x1p-8);
}

TEST(SwiGluHalf, HalfLoadsAndStores) {
  SwiGluConfig c{.n = 11008, .dtype = DType::kF16};
  for (const ParamSpec& p : SwiGlu::params(c))
    EXPECT_EQ(p.elem, ElemType::kF16) << p.name;
  EXPECT_EQ(SwiGlu::launch(c).grid[0], 6u); // 1376 groups of 8
  const Kernel* k = KernelRegistry::find("swiglu");
  ASSERT_NE(k, nullptr);
  auto h = config_from_assignments(*k, {"dtype=f16", "n=11008"});
  auto f32 = config_from_assignments(*k, {"n=11008"});
  ASSERT_TRUE(h && f32);
  EXPECT_NE(cache_key(*k, *h, "sm_90"), cache_key(*k, *f32, "sm_90"));
  auto ptx = k->generate(*h, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx);
  const std::string& t = ptx->text;
  EXPECT_EQ(count(t, ".f32 {"), 0u);
  EXPECT_EQ(count(t, "ld.global.v4.b32"), 2u);
  EXPECT_EQ(count(t, "st.global.v4.b32"), 1u);
  EXPECT_EQ(count(t, "cvt.rn.f16x2.f32"), 4u);
  EXPECT_EQ(count(t, "ex2.approx.f32"), 8u);
  EXPECT_FALSE(config_from_assignments(*k, {"dtype=f16", "n=0"}));
}

} // namespace
} // namespace ptxkit::kernels
