// rope_neox_test.cpp: rope_neox's CPU reference (rotation properties, known angles), limits,
// launch contract, the baked theta and the f16/bf16 heads (rounded once).
#include "rope_neox/rope_neox.h"

#include <cmath>
#include <cstdlib>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(RopeNeoxReference, RotationPreservesEveryPairNorm) {
  RopeNeoxConfig c{.head_dim = 64, .num_heads = 14, .theta = 1e6f};
  HostTensors in = RopeNeox::make_inputs(c, 11);
  in.u32["positions"][0] = 1234;
  auto out = RopeNeox::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& x = in.f32["x"];
  const auto& y = out->f32.at("out");
  const std::size_t half = c.head_dim / 2;
  bool some_pair_moved = false;
  for (std::size_t h = 0; h < c.num_heads; ++h)
    for (std::size_t i = 0; i < half; ++i) {
      std::size_t a = h * c.head_dim + i, b = a + half;
      double before = double{x[a]} * x[a] + double{x[b]} * x[b];
      double after = double{y[a]} * y[a] + double{y[b]} * y[b];
      EXPECT_NEAR(after, before, 1e-6) << "head " << h << " pair " << i;
      some_pair_moved |= std::abs(y[a] - x[a]) > 1e-3f;
    }
  EXPECT_TRUE(some_pair_moved); // a non-zero position really rotates
}

TEST(RopeNeoxReference, PositionZeroIsTheIdentity) {
  RopeNeoxConfig c{.head_dim = 128, .num_heads = 4, .theta = 1e4f};
  HostTensors in = RopeNeox::make_inputs(c, 3);
  in.u32["positions"][0] = 0;
  auto out = RopeNeox::reference(c, in);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->f32.at("out"), in.f32["x"]);
}

TEST(RopeNeoxReference, KnownAnglesOfTheHalfRotationLayout) {
  // head_dim 4: pairs (0, 2) and (1, 3); inv_freq = theta^0 = 1 and theta^(-1/2) = 0.01.
  RopeGeometry g{.head_dim = 4, .num_heads = 1, .theta = 1e4f};
  std::vector<float> x{1.0f, 1.0f, 0.0f, 0.0f};
  auto y = rope_reference(g, x, {3}, RopeDirection::kForward);
  ASSERT_EQ(y.size(), 4u);
  EXPECT_NEAR(y[0], std::cos(3.0), 1e-7); // pair 0 rotated by 3 rad
  EXPECT_NEAR(y[2], std::sin(3.0), 1e-7);
  EXPECT_NEAR(y[1], std::cos(0.03), 1e-7); // pair 1 rotated by 3 * 0.01 rad
  EXPECT_NEAR(y[3], std::sin(0.03), 1e-7);
  // theta changes the answer (the value a hand-written cache key forgot).
  auto y6 = rope_reference({.head_dim = 4, .num_heads = 1, .theta = 1e6f}, x, {3},
                           RopeDirection::kForward);
  EXPECT_NEAR(y6[3], std::sin(0.003), 1e-7);
}

TEST(RopeNeoxReference, RefusesInputsOfTheWrongShape) {
  RopeNeoxConfig c{};
  HostTensors in = RopeNeox::make_inputs(c, 1);
  in.f32["x"].pop_back();
  EXPECT_FALSE(RopeNeox::reference(c, in));
  in = RopeNeox::make_inputs(c, 1);
  in.u32.erase("positions");
  EXPECT_FALSE(RopeNeox::reference(c, in));
}

TEST(RopeNeoxContract, ThreadsCoverTheRowInGroupsOfFourPairs) {
  // Qwen Q: 14 heads * 32 pairs = 448 pairs = 112 .v4 groups -> one block of 128.
  auto q = RopeNeox::launch({.head_dim = 64, .num_heads = 14, .theta = 1e6f});
  EXPECT_EQ(q.grid[0], 1u);
  EXPECT_EQ(q.block[0], 128u);
  // Qwen K: 2 heads -> 16 groups -> one warp.
  EXPECT_EQ(RopeNeox::launch({.head_dim = 64, .num_heads = 2, .theta = 1e6f}).block[0], 32u);
  // Llama: 32 heads * 64 pairs / 4 = 512 groups -> 4 blocks of 128.
  auto l = RopeNeox::launch({.head_dim = 128, .num_heads = 32, .theta = 1e4f});
  EXPECT_EQ(l.grid[0], 4u);
  // head_dim 6: 3 pairs per head, not a multiple of 4 -> one pair per thread.
  RopeGeometry odd{.head_dim = 6, .num_heads = 3, .theta = 1e4f};
  EXPECT_EQ(rope_pairs_per_thread(odd), 1u);
  EXPECT_EQ(rope_groups_per_row(odd), 9u);
  auto p = RopeNeox::params({.head_dim = 64, .num_heads = 14, .theta = 1e6f});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, 14u * 64u);
  EXPECT_EQ(p[1].kind, ParamKind::kOutput);
  EXPECT_EQ(p[2].elem, ElemType::kU32);
  EXPECT_EQ(p[2].elems, 1u); // the position is one u32 in device memory
}

TEST(RopeNeoxLimits, OddHeadDimAndBadThetaAreRefused) {
  const Kernel* k = KernelRegistry::find("rope_neox");
  ASSERT_NE(k, nullptr);
  auto odd = config_from_assignments(*k, {"head_dim=63"});
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("head_dim"), std::string::npos) << odd.error().message;
  EXPECT_FALSE(config_from_assignments(*k, {"theta=1"}));
  EXPECT_FALSE(config_from_assignments(*k, {"theta=0.5"}));
  EXPECT_FALSE(config_from_assignments(*k, {"num_heads=0"}));
  EXPECT_TRUE(config_from_assignments(*k, {"head_dim=6", "theta=500000"}));
}

TEST(RopeNeoxPtx, ThetaReachesThePtxAsBakedF64PowersOfItsOwnField) {
  const Kernel* k = KernelRegistry::find("rope_neox");
  ASSERT_NE(k, nullptr);
  const auto& t = ptxgen::Target::all_supported().front();
  for (const char* tag : {"qwen05b_q", "llama"}) {
    const ReferenceConfig* rc = k->reference_config(tag);
    auto ptx = k->generate(rc->values, t);
    ASSERT_TRUE(ptx) << ptx.error().to_string();
    const double theta = std::string(tag) == "llama" ? 1e4 : 1e6;
    const double d = std::string(tag) == "llama" ? 128 : 64;
    // r^4 = theta^(-8/d) is the power of bit 2 of the first pair's index (pairs come in fours).
    bool r4_seen = false;
    std::size_t theta_immediates = 0;
    for (const auto& b : ptx->baked) {
      if (b.field != "theta") continue;
      ++theta_immediates;
      r4_seen |=
          std::abs(std::strtod(b.value.c_str(), nullptr) / std::pow(theta, -8.0 / d) - 1) < 1e-15;
    }
    EXPECT_TRUE(r4_seen) << tag;
    EXPECT_GE(theta_immediates, 4u) << tag; // bits 2.. of the pair index, and r, r^2, r^3
    EXPECT_NE(ptx->text.find("cvt.rn.f64.u32"), std::string::npos);   // the position, in f64
    EXPECT_NE(ptx->text.find("ld.global.v4.f32"), std::string::npos); // .v4 path
    // One ulp of theta is a different kernel (a different key).
    ConfigValues nudged = rc->values;
    nudged[static_cast<std::size_t>(k->field_index("theta"))] =
        FieldValue{std::nextafter(static_cast<float>(theta), 2e9f)};
    auto other = k->generate(nudged, t);
    ASSERT_TRUE(other);
    EXPECT_NE(other->text, ptx->text) << tag;
  }
}

TEST(RopeNeoxHalf, TheReferenceRoundsEachOutputOnceToTheFormat) {
  RopeNeoxConfig c{.head_dim = 64, .num_heads = 14, .theta = 1e6f, .dtype = DType::kBF16};
  HostTensors in = RopeNeox::make_inputs(c, 11);
  for (float x : in.f32.at("x"))
    ASSERT_EQ(round_to(DType::kBF16, x), x); // inputs are bf16 values
  in.u32["positions"][0] = 1234;
  auto half = RopeNeox::reference(c, in);
  ASSERT_TRUE(half);
  // The control: the same (bf16) inputs rotated without the final rounding.
  RopeNeoxConfig f32 = c;
  f32.dtype = DType::kF32;
  auto exact = RopeNeox::reference(f32, in);
  ASSERT_TRUE(exact);
  std::size_t differ = 0;
  const auto& y = half->f32.at("out");
  const auto& e = exact->f32.at("out");
  for (std::size_t i = 0; i < y.size(); ++i) {
    ASSERT_EQ(y[i], round_to(DType::kBF16, e[i])) << i;
    differ += y[i] != e[i];
  }
  EXPECT_GT(differ, y.size() / 2); // the rounding is real: most rotated values are not bf16
  const Tolerance t = RopeNeox::tolerance(c, in);
  EXPECT_EQ(t.rel, 0x1p-7);
  EXPECT_NE(t.why.find("bf16"), std::string_view::npos);
  EXPECT_EQ(RopeNeox::tolerance(f32, in).rel, 0.0);
  EXPECT_NE(RopeNeox::tolerance({.dtype = DType::kF16}, in).why.find("f16"),
            std::string_view::npos);
}

std::string rope_ptx(const std::vector<std::string>& sets) {
  const Kernel* k = KernelRegistry::find("rope_neox");
  EXPECT_NE(k, nullptr);
  auto c = config_from_assignments(*k, sets);
  EXPECT_TRUE(c) << c.error().message;
  auto ptx = k->generate(*c, *ptxgen::Target::parse("sm_90"));
  EXPECT_TRUE(ptx) << ptx.error().to_string();
  return ptx ? ptx->text : std::string();
}

TEST(RopeNeoxHalf, HalfHeadsAreReadAsWordsAndRoundedOnStore) {
  const std::string bf16 = rope_ptx({"dtype=bf16"});
  EXPECT_NE(bf16.find("ld.global.v2.b32"), std::string::npos) << bf16; // 4 halves, plain (in place)
  EXPECT_NE(bf16.find("cvt.rn.bf16x2.f32"), std::string::npos) << bf16;
  EXPECT_NE(bf16.find("st.global.v2.b32"), std::string::npos) << bf16;
  EXPECT_EQ(bf16.find("ld.global.v4.f32"), std::string::npos) << bf16;
  EXPECT_EQ(bf16.find("st.global.v4.f32"), std::string::npos) << bf16;
  // head_dim 6: one pair per thread, one half each.
  const std::string f16 = rope_ptx({"dtype=f16", "head_dim=6"});
  EXPECT_NE(f16.find("ld.global.b16"), std::string::npos) << f16;
  EXPECT_NE(f16.find("cvt.f32.f16"), std::string::npos) << f16;
  EXPECT_NE(f16.find("cvt.rn.f16.f32"), std::string::npos) << f16;
  EXPECT_NE(f16.find("st.global.b16"), std::string::npos) << f16;
  EXPECT_EQ(f16.find("ld.global.f32"), std::string::npos) << f16;
  // The half contract: x and out are 2-byte buffers, the position stays u32.
  auto p = RopeNeox::params({.dtype = DType::kBF16});
  EXPECT_EQ(p[0].elem, ElemType::kBF16);
  EXPECT_EQ(p[1].elem, ElemType::kBF16);
  EXPECT_EQ(p[2].elem, ElemType::kU32);
}

TEST(RopeNeoxHalf, TheDtypeIsInTheKeyAndOnlyItsNamesAreAccepted) {
  const Kernel* k = KernelRegistry::find("rope_neox");
  ASSERT_NE(k, nullptr);
  auto f32 = config_from_assignments(*k, {});
  auto bf16 = config_from_assignments(*k, {"dtype=bf16"});
  auto f16 = config_from_assignments(*k, {"dtype=f16"});
  ASSERT_TRUE(f32 && bf16 && f16);
  EXPECT_NE(cache_key(*k, *f32, "sm_90"), cache_key(*k, *bf16, "sm_90"));
  EXPECT_NE(cache_key(*k, *f16, "sm_90"), cache_key(*k, *bf16, "sm_90"));
  auto bad = config_from_assignments(*k, {"dtype=f64"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("dtype"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(config_from_assignments(*k, {"dtype=bf16", "head_dim=63"}));
}

} // namespace
} // namespace ptxkit::kernels
