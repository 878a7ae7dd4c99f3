// gemv_half_test.cpp: gemv_half's reference against a direct computation and its one rounding of
// y, the shape heuristics and limits, the launch contract's element types, and the 16-byte half
// loads (and no f32 loads of half buffers) in the PTX; batched, the reference per vector, the
// tolerance catching vectors mixed up, the contract's sizes and the loads of W read once.
#include "gemv_half/gemv_half.h"
#include "kernel_test_util.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>
#include <string>
#include <utility>

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

// Whether every element of `got` passes the kernel's tolerance against `want`.
bool within(const std::vector<float>& got, const std::vector<float>& want, const Tolerance& t) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(double{got[i]} - want[i]) <= t.abs + t.rel * std::fabs(double{want[i]})))
      return false;
  return true;
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

TEST(GemvHalfReference, BatchedIsBatchOneForEachVector) {
  // W = [[1, 2, 3], [4, 5, 6]], x = [[1, -1, 2], [0, 1, 0]] -> y = [[5, 11], [2, 5]].
  EXPECT_EQ(
      gemv_half_reference({.n = 2, .k = 3, .batch = 2}, {1, 2, 3, 4, 5, 6}, {1, -1, 2, 0, 1, 0}),
      (std::vector<float>{5, 11, 2, 5}));
  GemvHalfConfig c{.n = 13, .k = 203, .x_dtype = DType::kF16, .batch = 3};
  HostTensors in = GemvHalf::make_inputs(c, 4);
  const auto& w = in.f32.at("w");
  const auto& x = in.f32.at("x");
  ASSERT_EQ(x.size(), 3u * 203u);
  for (float v : x)
    ASSERT_EQ(round_to(DType::kF16, v), v);
  auto out = GemvHalf::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& y = out->f32.at("y");
  ASSERT_EQ(y.size(), 3u * 13u);
  GemvHalfConfig one = c;
  one.batch = 1;
  for (std::size_t m = 0; m < c.batch; ++m) {
    const std::vector<float> xm(x.begin() + m * c.k, x.begin() + (m + 1) * c.k);
    EXPECT_EQ(std::vector<float>(y.begin() + m * c.n, y.begin() + (m + 1) * c.n),
              gemv_half_reference(one, w, xm))
        << m;
  }
  HostTensors short_x = in;
  short_x.f32["x"].resize(c.k);
  EXPECT_FALSE(GemvHalf::reference(c, short_x));
}

TEST(GemvHalfTolerance, CatchesVectorsOfABatchMixedUp) {
  // An f32 loop in another order, rounded to bf16, passes; the mistakes a batched kernel can make
  // do not (positive controls): two vectors' results swapped, one vector's result written to
  // another's rows, every vector multiplied by x[0] (the batch offset dropped).
  GemvHalfConfig c{.n = 64, .k = 896, .batch = 4};
  HostTensors in = GemvHalf::make_inputs(c, 8);
  const auto& w = in.f32.at("w");
  const auto& x = in.f32.at("x");
  auto want = GemvHalf::reference(c, in)->f32.at("y");
  const Tolerance t = GemvHalf::tolerance(c, in);
  std::vector<float> f32_loop = test_util::gemv_reversed_f32(w, x, c.n, c.k, c.batch);
  round_all(DType::kBF16, f32_loop);
  EXPECT_TRUE(within(f32_loop, want, t));

  EXPECT_FALSE(within(test_util::with_vectors_swapped(want, c.n, 0, 1), want, t));
  EXPECT_FALSE(within(test_util::with_vector_copied(want, c.n, 2, 3), want, t));
  GemvHalfConfig one = c;
  one.batch = 1;
  const std::vector<float> x0_everywhere =
      gemv_half_reference(one, w, std::vector<float>(x.begin(), x.begin() + c.k));
  std::vector<float> no_offset(want.size());
  for (std::size_t m = 0; m < c.batch; ++m)
    std::copy(x0_everywhere.begin(), x0_everywhere.end(), no_offset.begin() + m * c.n);
  EXPECT_FALSE(within(no_offset, want, t));
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

TEST(GemvHalfShape, BatchedTakesTwoRowsAndAsManyStepsAsTheRegistersHold) {
  GemvHalfConfig b4{.n = 4096, .k = 4096, .batch = 4};
  EXPECT_EQ(b4.rows_per_warp(), 2u);
  EXPECT_EQ(b4.step_registers(), 2u * 4 + 4u * 4); // 2 rows' and 4 vectors' .v4.b32 units
  EXPECT_EQ(b4.unroll(), 4u);                      // 96 registers of loads beside 16 accumulators
  GemvHalfConfig b8{.n = 4096, .k = 4096, .batch = 8};
  EXPECT_EQ(b8.unroll(), 2u);
  GemvHalfConfig f32_x{.n = 4096, .k = 4096, .x_dtype = DType::kF32, .batch = 8};
  EXPECT_EQ(f32_x.step_registers(), 2u * 4 + 8u * 8);
  EXPECT_EQ(f32_x.unroll(), 1u);
  // The lm_head's 3.5 steps: one group of 4 at batch 4, as at batch 1.
  EXPECT_EQ((GemvHalfConfig{.n = 151936, .k = 896, .batch = 4}).unroll(), 4u);
  // Short rows keep 2 rows too; overrides stay overrides.
  EXPECT_EQ((GemvHalfConfig{.k = 64, .batch = 2}).rows_per_warp(), 2u);
  EXPECT_EQ((GemvHalfConfig{.k = 4096, .batch = 8, .unroll_override = 8}).unroll(), 8u);
  EXPECT_EQ((GemvHalfConfig{.k = 4096, .batch = 3, .rows_per_warp_override = 1}).rows_per_warp(),
            1u);
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
  // Batched: x and y hold batch vectors, W stays one matrix; warps take 2 rows.
  auto batched = GemvHalf::params({.n = 4864, .k = 896, .batch = 4});
  EXPECT_EQ(batched[0].elems, 4864u * 896u);
  EXPECT_EQ(batched[1].elems, 4u * 896u);
  EXPECT_EQ(batched[2].elems, 4u * 4864u);
  EXPECT_EQ(GemvHalf::launch({.n = 4097, .k = 4096, .batch = 4}).grid[0], 513u);
}

TEST(GemvHalfLimits, OutsideTheLimitsIsRefusedWithAMessage) {
  const Kernel* k = KernelRegistry::find("gemv_half");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(config_from_assignments(*k, {"k=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"n=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"rows_per_warp=8"}));
  EXPECT_TRUE(config_from_assignments(*k, {"k=1", "n=1"}));
  EXPECT_FALSE(config_from_assignments(*k, {"batch=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"batch=9"}));
  EXPECT_TRUE(config_from_assignments(*k, {"batch=8"}));
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
  EXPECT_NE(base, key({"batch=2"}));
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

TEST(GemvHalfPtx, BatchedReadsEachWeightOnceForAllVectors) {
  // 4096 x 4096 bf16 at batch 4: 2 rows, U = 4. The loop loads the 2 x 4 units of W first, then
  // step by step 4 vectors' x units; each W word's 2 halves go into 4 vectors' accumulators.
  const std::string text = generate({"n=4096", "k=4096", "batch=4"}).text;
  EXPECT_EQ(count(text, "ld.global.nc.v4.b32"), 8u + 4u * 4);
  const std::string before_fma = text.substr(0, text.find("fma.rn.f32"));
  EXPECT_EQ(count(before_fma, "ld.global.nc.v4.b32"), 8u + 4u); // W, then step 0's x
  EXPECT_EQ(count(text, "fma.rn.f32"), 4u * 2 * 8 * 4);         // steps x rows x halves x vectors
  // x's and y's vectors lie 4096 bf16 (8192 bytes) apart.
  EXPECT_EQ(count(text, "+8192]"), 4u + 2u);  // x: 4 steps of vector 1; y: 2 rows of vector 1
  EXPECT_EQ(count(text, "+24576]"), 4u + 2u); // vector 3
  EXPECT_EQ(count(text, "+32768]"), 0u);
  EXPECT_EQ(count(text, "st.global.b16"), 8u);
  EXPECT_EQ(count(text, "shfl.sync.bfly"), 8u * 5);
  EXPECT_NE(text.find(".minnctapersm 4"), std::string::npos);

  // The partial step zeroes every vector's x outside the row, as it does W's: 1001 x 900 f16
  // W with 8 f32 vectors (8-byte W units, 225 units: a partial step of 1 lane).
  const std::string ragged =
      generate({"n=1001", "k=900", "weight_dtype=f16", "x_dtype=f32", "y_dtype=f32", "batch=8"})
          .text;
  EXPECT_EQ(count(ragged, "selp.b32"), 2u * 2);   // 2 rows' W units of 2 words
  EXPECT_EQ(count(ragged, "selp.f32"), 8u * 4);   // 8 vectors' x units of 4 floats
  EXPECT_EQ(count(ragged, "st.global.f32"), 16u); // 2 rows x 8 vectors
}

} // namespace
} // namespace ptxkit::kernels
