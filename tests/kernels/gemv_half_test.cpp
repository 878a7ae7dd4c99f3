// gemv_half_test.cpp: gemv_half's reference against a direct computation and its one rounding of
// y, the shape heuristics and limits, the launch contract's element types, and the 16-byte half
// loads (and no f32 loads of half buffers) in the PTX.
#include "gemv_half/gemv_half.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>
#include <string>

namespace ptxkit::kernels {
namespace {

GeneratedPtx generate(const std::vector<std::string>& sets) {
  const Kernel* k = KernelRegistry::find("gemv_half");
  EXPECT_NE(k, nullptr);
  auto c = config_from_assignments(*k, sets);
  EXPECT_TRUE(c) << c.error().message;
  auto ptx = k->generate(*c, ptxgen::Target::all_supported().front());
  EXPECT_TRUE(ptx) << ptx.error().message;
  return *ptx;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(GemvHalfReference, InputsAreHalvesAndTheSumIsDirect) {
  GemvHalfConfig c{.n = 13, .k = 203, .y_dtype = DType::kF32};
  HostTensors in = GemvHalf::make_inputs(c, 5);
  const auto& w = in.f32.at("w");
  const auto& x = in.f32.at("x");
  for (float v : w)
    ASSERT_EQ(round_to(DType::kBF16, v), v);
  for (float v : x)
    ASSERT_EQ(round_to(DType::kBF16, v), v);
  auto out = GemvHalf::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  for (std::size_t r = 0; r < c.n; ++r) {
    long double direct = 0;
    for (std::size_t j = 0; j < c.k; ++j)
      direct += static_cast<long double>(w[r * c.k + j]) * x[j];
    EXPECT_EQ(out->f32.at("y")[r], static_cast<float>(direct)) << r;
  }
  // Hand-computed: W = [[1, 2, 3], [4, 5, 6]], x = [1, -1, 2] -> y = [5, 11].
  EXPECT_EQ(gemv_half_reference({.n = 2, .k = 3}, {1, 2, 3, 4, 5, 6}, {1, -1, 2}),
            (std::vector<float>{5, 11}));
}

TEST(GemvHalfReference, RoundsYToItsFormat) {
  // 1 + 3 * 2^-9 lies between the bf16 neighbours 1 and 1 + 2^-7, nearer the second: the
  // positive control (an unrounded y would be 1.005859375).
  const std::vector<float> w = {1.0f, 0x1p-8f, 0x1p-9f};
  const std::vector<float> x = {1.0f, 1.0f, 1.0f};
  EXPECT_EQ(gemv_half_reference({.n = 1, .k = 3, .y_dtype = DType::kBF16}, w, x)[0],
            1.0f + 0x1p-7f);
  // f16 holds it exactly; f32 y is the sum itself.
  EXPECT_EQ(gemv_half_reference({.n = 1, .k = 3, .y_dtype = DType::kF16}, w, x)[0],
            1.0f + 3 * 0x1p-9f);
  EXPECT_EQ(gemv_half_reference({.n = 1, .k = 3, .y_dtype = DType::kF32}, w, x)[0],
            1.0f + 3 * 0x1p-9f);
  // f16 rounds at its own precision: 1 + 3 * 2^-12 goes to 1 + 2^-10.
  EXPECT_EQ(gemv_half_reference({.n = 1, .k = 2, .y_dtype = DType::kF16}, {1.0f, 3 * 0x1p-12f},
                                {1.0f, 1.0f})[0],
            1.0f + 0x1p-10f);
  // Every output of a bf16 config is a bf16 value.
  GemvHalfConfig c{.n = 64, .k = 896};
  auto out = GemvHalf::reference(c, GemvHalf::make_inputs(c, 3));
  ASSERT_TRUE(out);
  for (float v : out->f32.at("y"))
    ASSERT_EQ(round_to(DType::kBF16, v), v);
}

TEST(GemvHalfTolerance, AddsTheOutputRoundingOfItsFormat) {
  GemvHalfConfig c{.n = 1, .k = 4096};
  const HostTensors none;
  auto bf = GemvHalf::tolerance(c, none);
  c.y_dtype = DType::kF16;
  auto f16 = GemvHalf::tolerance(c, none);
  c.y_dtype = DType::kF32;
  auto f32 = GemvHalf::tolerance(c, none);
  EXPECT_DOUBLE_EQ(bf.abs, 4e-7 * 4096);
  EXPECT_DOUBLE_EQ(bf.rel - f32.rel, 2 * 0x1p-8);
  EXPECT_DOUBLE_EQ(f16.rel - f32.rel, 2 * 0x1p-11);
  EXPECT_NE(std::string(bf.why).find("bf16"), std::string::npos);
  EXPECT_NE(std::string(f16.why).find("f16"), std::string::npos);
}

TEST(GemvHalfShape, RowsPerWarpAndUnrollFollowTheRowLength) {
  GemvHalfConfig lm_head{.n = 151936, .k = 896}; // 112 units: 3.5 steps
  EXPECT_EQ(lm_head.unit_width(), 8u);
  EXPECT_EQ(lm_head.steps(), 4u);
  EXPECT_EQ(lm_head.rows_per_warp(), 2u);
  EXPECT_EQ(lm_head.unroll(), 4u);
  GemvHalfConfig llama{.n = 4096, .k = 4096}; // 16 steps
  EXPECT_EQ(llama.rows_per_warp(), 1u);
  EXPECT_EQ(llama.unroll(), 8u);
  GemvHalfConfig tiny{.n = 5, .k = 64};
  EXPECT_EQ(tiny.rows_per_warp(), 4u);
  EXPECT_EQ(tiny.unroll(), 1u); // never more steps than the row has
  EXPECT_EQ((GemvHalfConfig{.k = 900}).unit_width(), 4u);
  EXPECT_EQ((GemvHalfConfig{.k = 902}).unit_width(), 2u);
  EXPECT_EQ((GemvHalfConfig{.k = 901}).unit_width(), 1u);
  EXPECT_EQ((GemvHalfConfig{.k = 4096, .rows_per_warp_override = 4}).unroll(), 2u);
  EXPECT_EQ((GemvHalfConfig{.k = 4096, .unroll_override = 2}).unroll(), 2u);
}

TEST(GemvHalfContract, ElementTypesAndSizesFollowTheDtypes) {
  GemvHalfConfig c{.n = 151936, .k = 896};
  auto d = GemvHalf::launch(c);
  EXPECT_EQ(d.grid[0], 151936u / 8); // 4 warps of 2 rows
  EXPECT_EQ(d.block[0], 128u);
  EXPECT_EQ(GemvHalf::launch({.n = 4097, .k = 4096}).grid[0], 1025u); // the last block partial
  auto p = GemvHalf::params(c);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elem, ElemType::kBF16);
  EXPECT_EQ(p[0].elems, 151936u * 896u);
  EXPECT_EQ(p[1].elem, ElemType::kBF16);
  EXPECT_EQ(p[1].elems, 896u);
  EXPECT_EQ(p[2].elem, ElemType::kBF16);
  EXPECT_EQ(p[2].elems, 151936u);
  EXPECT_EQ(p[2].kind, ParamKind::kOutput);
  auto mixed = GemvHalf::params({.n = 3,
                                 .k = 5,
                                 .weight_dtype = DType::kF16,
                                 .x_dtype = DType::kF32,
                                 .y_dtype = DType::kF16});
  EXPECT_EQ(mixed[0].elem, ElemType::kF16);
  EXPECT_EQ(mixed[1].elem, ElemType::kF32);
  EXPECT_EQ(mixed[2].elem, ElemType::kF16);
}

TEST(GemvHalfLimits, OutsideTheLimitsIsRefusedWithAMessage) {
  const Kernel* k = KernelRegistry::find("gemv_half");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(config_from_assignments(*k, {"k=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"n=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"rows_per_warp=8"}));
  EXPECT_TRUE(config_from_assignments(*k, {"k=1", "n=1"}));
  for (const char* bad : {"weight_dtype=f32", "rows_per_warp=3", "unroll=3"}) {
    auto c = config_from_assignments(*k, {bad}); // inside the field limits; validate() refuses
    ASSERT_FALSE(c) << bad;
    EXPECT_FALSE(c.error().message.empty()) << bad;
  }
  GemvHalfConfig f32_weights{.weight_dtype = DType::kF32};
  auto v = GemvHalf::validate(f32_weights);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("gemv_f32"), std::string::npos);
}

TEST(GemvHalfKey, EveryDtypeFieldChangesTheKey) {
  const Kernel* k = KernelRegistry::find("gemv_half");
  ASSERT_NE(k, nullptr);
  auto key = [&](std::vector<std::string> sets) {
    return cache_key(*k, *config_from_assignments(*k, sets), "sm_90");
  };
  const auto base = key({});
  EXPECT_NE(base, key({"weight_dtype=f16"}));
  EXPECT_NE(base, key({"x_dtype=f32"}));
  EXPECT_NE(base, key({"y_dtype=f16"}));
  EXPECT_NE(key({"x_dtype=f16"}), key({"y_dtype=f16"}));
}

TEST(GemvHalfPtx, SixteenByteHalfLoadsAndNoF32LoadsOfHalfBuffers) {
  const std::string bf16 = generate({"n=4096", "k=4096"}).text;
  // 8 steps in flight: 8 weight and 8 x loads of .v4.b32 in the main loop.
  EXPECT_EQ(count(bf16, "ld.global.nc.v4.b32"), 16u);
  EXPECT_EQ(bf16.find("ld.global.nc.f32"), std::string::npos);
  EXPECT_EQ(bf16.find("ld.global.nc.v4.f32"), std::string::npos);
  EXPECT_EQ(bf16.find("st.global.f32"), std::string::npos);
  EXPECT_NE(bf16.find("st.global.b16"), std::string::npos); // y: one bf16 per row
  EXPECT_NE(bf16.find("shfl.sync.bfly"), std::string::npos);
  EXPECT_NE(bf16.find("$L__main_loop:"), std::string::npos);

  // A batch's loads all come before its first fma (the words are widened at their fmas), and
  // ptxas is given the occupancy bound that lets it keep them there.
  const std::size_t first_fma = bf16.find("fma.rn.f32");
  ASSERT_NE(first_fma, std::string::npos);
  EXPECT_EQ(count(bf16.substr(0, first_fma), "ld.global.nc.v4.b32"), 16u);
  EXPECT_NE(bf16.find(".minnctapersm 4"), std::string::npos);

  // The lm_head: 2 rows of 3.5 steps, all in one batch (no loop): 4 x and 8 W loads.
  const std::string lm = generate({"n=151936", "k=896"}).text;
  EXPECT_EQ(count(lm, "ld.global.nc.v4.b32"), 12u);
  EXPECT_EQ(count(lm.substr(0, lm.find("fma.rn.f32")), "ld.global.nc.v4.b32"), 12u);
  EXPECT_EQ(lm.find("$L__main_loop:"), std::string::npos);
  EXPECT_EQ(count(lm, "st.global.b16"), 2u);

  // f16 weights widen with cvt; f32 x is read as floats, f32 y stored as one.
  const std::string f16 = generate({"weight_dtype=f16", "x_dtype=f32", "y_dtype=f32"}).text;
  EXPECT_NE(f16.find("cvt.f32.f16"), std::string::npos);
  EXPECT_NE(f16.find("ld.global.nc.v4.f32"), std::string::npos);
  EXPECT_NE(f16.find("st.global.f32"), std::string::npos);

  // Narrower units when k is not a multiple of 8.
  EXPECT_NE(generate({"k=900"}).text.find("ld.global.nc.v2.b32"), std::string::npos);
  EXPECT_NE(generate({"k=901"}).text.find("ld.global.nc.b16"), std::string::npos);
}

} // namespace
} // namespace ptxkit::kernels
