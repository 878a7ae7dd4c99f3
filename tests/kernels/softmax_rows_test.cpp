// softmax_rows_test.cpp: softmax_rows's reference (rows sum to 1, shift invariance, overflow-free
// large logits, -inf/NaN rules), its row geometry, launch contract and PTX modes.
#include "softmax_rows/softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(SoftmaxRowsReference, EveryRowSumsToOne) {
  SoftmaxRowsConfig c{.row_len = 1001, .rows = 3};
  HostTensors in = SoftmaxRows::make_inputs(c, 4);
  auto out = SoftmaxRows::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& y = out->f32.at("out");
  for (std::size_t r = 0; r < c.rows; ++r) {
    double sum = 0.0;
    float top = 0.0f;
    for (std::size_t j = 0; j < c.row_len; ++j) {
      EXPECT_GE(y[r * c.row_len + j], 0.0f);
      sum += y[r * c.row_len + j];
      top = std::max(top, y[r * c.row_len + j]);
    }
    EXPECT_NEAR(sum, 1.0, 1e-5) << r;
    EXPECT_GT(top, 1.0f / c.row_len); // not uniform: inputs spread over [-20, 20)
  }
}

TEST(SoftmaxRowsReference, AddingAConstantToARowChangesNothing) {
  SoftmaxRowsConfig c{.row_len = 64, .rows = 2};
  HostTensors in = SoftmaxRows::make_inputs(c, 8);
  std::vector<float> shifted = in.f32["x"];
  for (std::size_t j = 0; j < 64; ++j)
    shifted[j] += 1000.0f; // row 0: far past exp's range
  for (std::size_t j = 64; j < 128; ++j)
    shifted[j] -= 37.5f; // row 1: down
  auto a = softmax_reference(in.f32["x"], 2, 64);
  auto b = softmax_reference(shifted, 2, 64);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], 2e-5f * (1 + a[i] * 100)) << i;
}

TEST(SoftmaxRowsReference, LargeLogitsDoNotOverflow) {
  auto y = softmax_reference({1000.0f, 1001.0f}, 1, 2);
  const double e = std::exp(1.0);
  EXPECT_NEAR(y[0], 1.0 / (1.0 + e), 1e-7);
  EXPECT_NEAR(y[1], e / (1.0 + e), 1e-7);
}

TEST(SoftmaxRowsReference, SpecialValuesFollowTheDocumentedRules) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Row 0: -inf elements get 0. Row 1: NaN poisons the row. Row 2: only -inf -> NaN.
  std::vector<float> x{0.0f, -inf, 0.0f, -inf, 1.0f, nan, 2.0f, 3.0f, -inf, -inf, -inf, -inf};
  auto y = softmax_reference(x, 3, 4);
  EXPECT_FLOAT_EQ(y[0], 0.5f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_FLOAT_EQ(y[2], 0.5f);
  EXPECT_EQ(y[3], 0.0f);
  for (std::size_t j = 4; j < 12; ++j)
    EXPECT_TRUE(std::isnan(y[j])) << j;
  auto pinf = softmax_reference({1.0f, inf}, 1, 2);
  EXPECT_TRUE(std::isnan(pinf[0]) && std::isnan(pinf[1]));
}

TEST(SoftmaxRowsGeometry, PicksVectorUnitsBlockSizeAndMode) {
  auto g = softmax_geometry(896); // 224 .v4 units: 64 threads, 4 each, held in registers
  EXPECT_TRUE(g.vec4);
  EXPECT_EQ(g.units, 224u);
  EXPECT_EQ(g.threads, 64u);
  EXPECT_EQ(g.per_thread, 4u);
  EXPECT_TRUE(g.in_registers);
  g = softmax_geometry(1001); // scalar: 1001 units, 256 threads, the last unit partial
  EXPECT_FALSE(g.vec4);
  EXPECT_EQ(g.units, 1001u);
  EXPECT_EQ(g.threads, 256u);
  EXPECT_EQ(g.per_thread, 4u);
  EXPECT_TRUE(g.in_registers);
  g = softmax_geometry(151936); // a vocabulary: 1024 threads looping
  EXPECT_EQ(g.threads, 1024u);
  EXPECT_FALSE(g.in_registers);
  g = softmax_geometry(1);
  EXPECT_EQ(g.threads, 32u);
  EXPECT_EQ(g.per_thread, 1u);
  // Every geometry covers its row: threads * per_thread units >= units, and mode follows.
  for (std::uint32_t n : {1u, 3u, 4u, 5u, 127u, 128u, 129u, 4096u, 16384u, 16388u, 100003u}) {
    auto h = softmax_geometry(n);
    EXPECT_GE(std::uint64_t{h.threads} * h.per_thread, h.units) << n;
    EXPECT_EQ(h.in_registers, h.per_thread <= 4) << n;
    EXPECT_EQ(h.threads % 32, 0u) << n;
  }
}

TEST(SoftmaxRowsContract, OneBlockPerRowOnGridX) {
  auto d = SoftmaxRows::launch({.row_len = 2048, .rows = 48});
  EXPECT_EQ(d.grid[0], 48u);
  EXPECT_EQ(d.block[0], 128u);
  auto p = SoftmaxRows::params({.row_len = 2048, .rows = 48});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].elems, 48u * 2048u);
  EXPECT_EQ(p[1].kind, ParamKind::kOutput);
}

TEST(SoftmaxRowsPtx, LongRowsLoopAndShortRowsStayInRegisters) {
  const Kernel* k = KernelRegistry::find("softmax_rows");
  ASSERT_NE(k, nullptr);
  const auto& t = ptxgen::Target::all_supported().front();
  auto loop = k->generate(k->reference_config("qwen05b_vocab")->values, t);
  auto regs = k->generate(k->reference_config("qwen15b_coder_scores")->values, t);
  ASSERT_TRUE(loop && regs);
  EXPECT_NE(loop->text.find("$L__reduce_loop:"), std::string::npos);
  EXPECT_NE(loop->text.find("$L__write_loop:"), std::string::npos);
  EXPECT_EQ(regs->text.find("$L__reduce_loop:"), std::string::npos);
  EXPECT_NE(regs->text.find("ld.global.v4.f32"), std::string::npos);
  EXPECT_NE(regs->text.find("shfl.sync.bfly.b32"), std::string::npos);
}

} // namespace
} // namespace ptxkit::kernels
