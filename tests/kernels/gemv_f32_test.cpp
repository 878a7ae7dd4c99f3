// gemv_f32_test.cpp: gemv_f32's reference against hand-computed products and a naive loop,
// its launch contract, and the .v4 / scalar choice in the PTX; batched, the reference per vector,
// the tolerance catching vectors mixed up, the contract's sizes and the loads of W read once.
#include "gemv_f32/gemv_f32.h"
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

TEST(GemvF32Reference, HandComputedProducts) {
  // W = [[1, 2, 3], [4, 5, 6]], x = [1, -1, 2] -> y = [5, 11]; k = 3 (the scalar path's shape).
  auto y = gemv_reference({1, 2, 3, 4, 5, 6}, {1, -1, 2}, 2, 3);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[0], 5.0f);
  EXPECT_EQ(y[1], 11.0f);
  // The identity gives x back.
  std::vector<float> eye(16, 0.0f);
  for (int i = 0; i < 4; ++i)
    eye[i * 5] = 1.0f;
  EXPECT_EQ(gemv_reference(eye, {0.5f, -2.0f, 3.0f, 7.25f}, 4, 4),
            (std::vector<float>{0.5f, -2.0f, 3.0f, 7.25f}));
}

TEST(GemvF32Reference, AgreesWithANaiveFloatLoopAndAccumulatesInDouble) {
  GemvF32Config c{.n = 37, .k = 899};
  HostTensors in = GemvF32::make_inputs(c, 12);
  auto out = GemvF32::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& w = in.f32["w"];
  const auto& x = in.f32["x"];
  for (std::size_t r = 0; r < c.n; ++r) {
    float naive = 0.0f;
    for (std::size_t j = 0; j < c.k; ++j)
      naive += w[r * c.k + j] * x[j];
    EXPECT_NEAR(out->f32.at("y")[r], naive, 1e-3f) << r;
  }
  // Cancellation that f32 accumulation loses: 1e8 + 1 - 1e8 in double is 1.
  auto y = gemv_reference({1e8f, 1.0f, -1e8f}, {1.0f, 1.0f, 1.0f}, 1, 3);
  EXPECT_EQ(y[0], 1.0f);
}

TEST(GemvF32Reference, BatchedIsBatchOneForEachVector) {
  // W = [[1, 2, 3], [4, 5, 6]], x = [[1, -1, 2], [0, 1, 0]] -> y = [[5, 11], [2, 5]].
  EXPECT_EQ(gemv_reference({1, 2, 3, 4, 5, 6}, {1, -1, 2, 0, 1, 0}, 2, 3, 2),
            (std::vector<float>{5, 11, 2, 5}));
  GemvF32Config c{.n = 37, .k = 899, .batch = 5};
  HostTensors in = GemvF32::make_inputs(c, 21);
  const auto& w = in.f32.at("w");
  const auto& x = in.f32.at("x");
  ASSERT_EQ(x.size(), 5u * 899u);
  auto out = GemvF32::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& y = out->f32.at("y");
  ASSERT_EQ(y.size(), 5u * 37u);
  for (std::size_t m = 0; m < c.batch; ++m) {
    const std::vector<float> xm(x.begin() + m * c.k, x.begin() + (m + 1) * c.k);
    const std::vector<float> ym = gemv_reference(w, xm, c.n, c.k);
    EXPECT_EQ(std::vector<float>(y.begin() + m * c.n, y.begin() + (m + 1) * c.n), ym) << m;
  }
  // A batch-1 x is refused for a batch-5 config.
  HostTensors short_x = in;
  short_x.f32["x"].resize(c.k);
  EXPECT_FALSE(GemvF32::reference(c, short_x));
}

TEST(GemvF32Tolerance, CatchesVectorsOfABatchMixedUp) {
  // An f32 loop in another order passes; the mistakes a batched kernel can make do not
  // (positive controls): two vectors' results swapped, one vector's result written to another's
  // rows, every vector multiplied by x[0] (the batch offset dropped).
  GemvF32Config c{.n = 64, .k = 896, .batch = 4};
  HostTensors in = GemvF32::make_inputs(c, 8);
  const auto& w = in.f32.at("w");
  const auto& x = in.f32.at("x");
  auto want = GemvF32::reference(c, in)->f32.at("y");
  const Tolerance t = GemvF32::tolerance(c, in);
  const std::vector<float> f32_loop = test_util::gemv_reversed_f32(w, x, c.n, c.k, c.batch);
  EXPECT_TRUE(within(f32_loop, want, t));

  EXPECT_FALSE(within(test_util::with_vectors_swapped(want, c.n, 0, 1), want, t));
  EXPECT_FALSE(within(test_util::with_vector_copied(want, c.n, 2, 3), want, t));
  const std::vector<float> x0_everywhere =
      gemv_reference(w, std::vector<float>(x.begin(), x.begin() + c.k), c.n, c.k);
  std::vector<float> no_offset(want.size());
  for (std::size_t m = 0; m < c.batch; ++m)
    std::copy(x0_everywhere.begin(), x0_everywhere.end(), no_offset.begin() + m * c.n);
  EXPECT_FALSE(within(no_offset, want, t));
}

TEST(GemvF32Contract, AWarpPerRowFourRowsPerBlock) {
  auto d = GemvF32::launch({.n = 4864, .k = 896});
  EXPECT_EQ(d.grid[0], 1216u);
  EXPECT_EQ(d.block[0], 128u);
  EXPECT_EQ(GemvF32::launch({.n = 897, .k = 896}).grid[0], 225u); // the last block partial
  auto p = GemvF32::params({.n = 4864, .k = 896});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, 4864u * 896u); // logical sizes: nothing padded
  EXPECT_EQ(p[1].elems, 896u);
  EXPECT_EQ(p[2].elems, 4864u);
  EXPECT_EQ(p[2].kind, ParamKind::kOutput);
}

TEST(GemvF32Contract, BatchedBuffersScaleWithBatchAndWarpsTakeTwoRows) {
  auto p = GemvF32::params({.n = 4864, .k = 896, .batch = 4});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, 4864u * 896u); // W once, whatever the batch
  EXPECT_EQ(p[1].elems, 4u * 896u);
  EXPECT_EQ(p[2].elems, 4u * 4864u);
  EXPECT_EQ(GemvF32::launch({.n = 4864, .k = 896, .batch = 4}).grid[0], 608u); // 8 rows a block
  EXPECT_EQ(GemvF32::launch({.n = 897, .k = 896, .batch = 2}).grid[0], 113u);  // a partial block
  EXPECT_EQ(GemvF32::launch({.n = 897, .k = 896, .batch = 2}).block[0], 128u);
  EXPECT_EQ(GemvF32::rows_per_warp(1), 1u);
  EXPECT_EQ(GemvF32::rows_per_warp(8), 2u);
  // The loads of an iteration fit the registers: 2 W and 4 x units of 4 floats per unit at
  // batch 4 (U = 4), 2 W and 8 x at batch 8 (U = 2); scalar units are small enough for 8.
  EXPECT_EQ(GemvF32::batched_unroll(1024, true, 4), 4u);
  EXPECT_EQ(GemvF32::batched_unroll(1024, true, 8), 2u);
  EXPECT_EQ(GemvF32::batched_unroll(899, false, 8), 8u);
}

TEST(GemvF32Limits, ZeroSizesAreRefused) {
  const Kernel* k = KernelRegistry::find("gemv_f32");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(config_from_assignments(*k, {"k=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"n=0"}));
  EXPECT_TRUE(config_from_assignments(*k, {"k=1", "n=1"}));
  EXPECT_FALSE(config_from_assignments(*k, {"batch=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"batch=9"}));
  EXPECT_TRUE(config_from_assignments(*k, {"batch=8", "n=1", "k=1"}));
  // batch is baked: it changes the key.
  EXPECT_NE(cache_key(*k, *config_from_assignments(*k, {}), "sm_90"),
            cache_key(*k, *config_from_assignments(*k, {"batch=4"}), "sm_90"));
}

TEST(GemvF32Ptx, VectorLoadsOnlyWhenKIsAMultipleOfFour) {
  const Kernel* k = KernelRegistry::find("gemv_f32");
  ASSERT_NE(k, nullptr);
  const auto& t = ptxgen::Target::all_supported().front();
  auto vec = k->generate(*config_from_assignments(*k, {"k=896"}), t);
  auto scalar = k->generate(*config_from_assignments(*k, {"k=899"}), t);
  auto tiny = k->generate(*config_from_assignments(*k, {"k=3"}), t);
  ASSERT_TRUE(vec && scalar && tiny);
  EXPECT_NE(vec->text.find("ld.global.nc.v4.f32"), std::string::npos);
  EXPECT_EQ(scalar->text.find(".v4"), std::string::npos);
  EXPECT_NE(scalar->text.find("$L__main_loop:"), std::string::npos);
  EXPECT_EQ(tiny->text.find("$L__main_loop:"), std::string::npos); // 3 < 97 units: tail only
  EXPECT_NE(tiny->text.find("$L__tail_loop:"), std::string::npos);
}

TEST(GemvF32Ptx, BatchedReadsEachWeightOnceForAllVectors) {
  const Kernel* k = KernelRegistry::find("gemv_f32");
  ASSERT_NE(k, nullptr);
  const auto& t = ptxgen::Target::all_supported().front();
  auto one = k->generate(*config_from_assignments(*k, {}), t);
  auto four = k->generate(*config_from_assignments(*k, {"batch=4"}), t);
  ASSERT_TRUE(one && four);
  EXPECT_EQ(one->text.find(".minnctapersm"), std::string::npos);
  EXPECT_NE(four->text.find(".minnctapersm 4"), std::string::npos);
  // 896 x 896, 224 units, U = 4: the main loop loads 2 rows x 4 units of W first, then per unit
  // the 4 vectors' x and its fmas; the tail 2 of W and 4 of x. Each loaded unit of W goes into
  // 4 vectors' accumulators: 16 fmas.
  const std::string& text = four->text;
  const std::size_t loop = text.find("$L__main_loop:");
  const std::size_t tail = text.find("$L__tail_loop:");
  ASSERT_NE(loop, std::string::npos);
  ASSERT_NE(tail, std::string::npos);
  const std::string main_loop = text.substr(loop, tail - loop);
  EXPECT_EQ(count(main_loop, "ld.global.nc.v4.f32"), 24u);
  EXPECT_EQ(count(main_loop.substr(0, main_loop.find("fma.rn.f32")), "ld.global.nc.v4.f32"),
            8u + 4u); // W, then unit 0's x
  EXPECT_EQ(count(main_loop, "fma.rn.f32"), 2u * 4 * 4 * 4);
  EXPECT_EQ(count(text, "ld.global.nc.v4.f32"), 30u);
  // x's vectors and y's lie k and n floats apart: 896 * 4 bytes.
  EXPECT_EQ(count(text, "+3584]"), 5u + 2u);   // x: 5 loads of vector 1; y: 2 rows of vector 1
  EXPECT_EQ(count(text, "+10752]"), 5u + 2u);  // vector 3
  EXPECT_EQ(count(text, "+14336]"), 0u);       // no vector 4
  EXPECT_EQ(count(text, "st.global.f32"), 8u); // 2 rows x 4 vectors
  EXPECT_EQ(count(text, "shfl.sync.bfly"), 8u * 5);
}

} // namespace
} // namespace ptxkit::kernels
