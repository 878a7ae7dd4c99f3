// residual_add_test.cpp: the residual add's reference, its grid for any length, and the scalar
// tail that only exists when n % 4 != 0.
#include "common/elementwise.h"
#include "kernel_test_util.h"
#include "residual_add/residual_add.h"

#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

std::string ptx_for(std::uint32_t n) {
  const Kernel* k = KernelRegistry::find("residual_add");
  EXPECT_NE(k, nullptr);
  auto cfg = config_from_assignments(*k, {"n=" + std::to_string(n)});
  EXPECT_TRUE(cfg);
  auto ptx = k->generate(*cfg, ptxgen::Target::all_supported().front());
  EXPECT_TRUE(ptx);
  return ptx ? ptx->text : std::string();
}

using test_util::count;

TEST(ResidualAddReference, AddsElementwise) {
  std::vector<float> a{1.0f, -2.0f, 0.5f, 1e30f, -0.0f}, b{2.0f, 2.0f, 0.25f, 1e30f, 0.0f};
  auto out = residual_add_reference(a, b);
  EXPECT_EQ(out, (std::vector<float>{3.0f, 0.0f, 0.75f, 2e30f, 0.0f}));
  ResidualAddConfig c{.n = 7};
  HostTensors in = ResidualAdd::make_inputs(c, 3);
  auto r = ResidualAdd::reference(c, in);
  ASSERT_TRUE(r);
  for (std::size_t i = 0; i < c.n; ++i)
    EXPECT_EQ(r->f32.at("out")[i], in.f32.at("a")[i] + in.f32.at("b")[i]);
  in.f32["b"].pop_back();
  EXPECT_FALSE(ResidualAdd::reference(c, in));
}

TEST(ResidualAddContract, OneThreadPerGroupForAnyLength) {
  EXPECT_EQ(elementwise::groups_with_tail(1), 1u);
  EXPECT_EQ(elementwise::groups_with_tail(4), 1u);
  EXPECT_EQ(elementwise::groups_with_tail(5), 2u);
  EXPECT_EQ(ResidualAdd::launch(ResidualAddConfig{.n = 1024}).grid[0], 1u);
  EXPECT_EQ(ResidualAdd::launch(ResidualAddConfig{.n = 1025}).grid[0], 2u); // the tail thread
  // 65536 x 896 elements: 14.7M threads, enough to fill 132 SMs many times over.
  EXPECT_EQ(ResidualAdd::launch(ResidualAddConfig{.n = 65536u * 896u}).grid[0], 57344u);
  // 2^31 elements: still within grid.x.
  EXPECT_EQ(ResidualAdd::launch(ResidualAddConfig{.n = 2147483648u}).grid[0], 2097152u);
  auto p = ResidualAdd::params(ResidualAddConfig{.n = 899});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, 899u); // the logical size, never padded
}

TEST(ResidualAddPtx, ScalarTailOnlyWhenNIsNotAMultipleOfFour) {
  const std::string even = ptx_for(896);
  EXPECT_EQ(count(even, "ld.global.v4.f32"), 2u);
  EXPECT_EQ(count(even, "ld.global.f32"), 0u);
  EXPECT_EQ(even.find("$L__tail"), std::string::npos); // no tail code at all
  const std::string odd = ptx_for(899);
  EXPECT_EQ(count(odd, "ld.global.f32"), 6u); // 3 tail elements, a and b
  EXPECT_EQ(count(odd, "st.global.f32"), 3u);
  EXPECT_NE(odd.find("setp.eq.u32"), std::string::npos); // only thread n/4 takes the tail
  EXPECT_NE(odd.find(", 898;"), std::string::npos);      // the last element, not 899
  EXPECT_EQ(odd.find(" 899;"), std::string::npos);
  EXPECT_EQ(count(ptx_for(1), "ld.global.v4.f32"), 2u); // n = 1: vector path emitted, never taken
}

TEST(ResidualAddLimits, AnyLengthUpTo2To31) {
  const Kernel* k = KernelRegistry::find("residual_add");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(config_from_assignments(*k, {"n=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"n=2147483649"}));
  EXPECT_TRUE(config_from_assignments(*k, {"n=3"}));
}

TEST(ResidualAddHalf, TheAddIsRoundedOnceToTheFormat) {
  ResidualAddConfig c{.n = 1000, .dtype = DType::kF16};
  HostTensors in = ResidualAdd::make_inputs(c, 2);
  for (const char* name : {"a", "b"})
    for (float v : in.f32.at(name))
      ASSERT_EQ(v, round_to(DType::kF16, v)) << name;
  auto out = ResidualAdd::reference(c, in);
  ASSERT_TRUE(out);
  auto f32 = residual_add_reference(in.f32.at("a"), in.f32.at("b"));
  std::size_t rounded = 0; // positive control
  for (std::size_t i = 0; i < f32.size(); ++i) {
    EXPECT_EQ(out->f32.at("out")[i], round_to(DType::kF16, f32[i])) << i;
    rounded += out->f32.at("out")[i] != f32[i];
  }
  EXPECT_GT(rounded, f32.size() / 8);
}

TEST(ResidualAddHalf, EightHalvesPerThreadThenSingleHalves) {
  ResidualAddConfig c{.n = 4099, .dtype = DType::kBF16};
  for (const ParamSpec& p : ResidualAdd::params(c))
    EXPECT_EQ(p.elem, ElemType::kBF16) << p.name;
  EXPECT_EQ(elementwise::groups_with_tail(4099, 8), 513u);
  EXPECT_EQ(ResidualAdd::launch(c).grid[0], 3u); // 513 threads of 256
  const Kernel* k = KernelRegistry::find("residual_add");
  ASSERT_NE(k, nullptr);
  auto bf = config_from_assignments(*k, {"dtype=bf16", "n=4099"});
  auto f32 = config_from_assignments(*k, {"n=4099"});
  ASSERT_TRUE(bf && f32);
  EXPECT_NE(cache_key(*k, *bf, "sm_90"), cache_key(*k, *f32, "sm_90"));
  auto ptx = k->generate(*bf, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx);
  const std::string& t = ptx->text;
  EXPECT_EQ(count(t, ".f32 {"), 0u);
  EXPECT_EQ(count(t, "ld.global.f32"), 0u);
  EXPECT_EQ(count(t, "ld.global.v4.b32"), 2u);
  EXPECT_EQ(count(t, "st.global.v4.b32"), 1u);
  EXPECT_EQ(count(t, "ld.global.b16"), 6u); // 3 tail elements of a and b
  EXPECT_EQ(count(t, "st.global.b16"), 3u);
  EXPECT_NE(t.find(", 4096;"), std::string::npos); // the first tail element, baked
  EXPECT_FALSE(config_from_assignments(*k, {"dtype=f8"}));
}

} // namespace
} // namespace ptxkit::kernels
