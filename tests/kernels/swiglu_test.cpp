// swiglu_test.cpp: SwiGLU's reference at known points, and the ex2/log2(e) form of the PTX.
#include "swiglu/swiglu.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
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

} // namespace
} // namespace ptxkit::kernels
