// softmax_rows_test.cpp: softmax_rows's reference (rows sum to 1, shift invariance, overflow-free
// large logits, -inf/NaN rules), its row geometry, launch contract, PTX modes and the f16/bf16
// rows (8 halves per access, the output rounded once).
#include "softmax_rows/softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
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
  EXPECT_EQ(g.unit_elems, 4u);
  EXPECT_EQ(g.units, 224u);
  EXPECT_EQ(g.threads, 64u);
  EXPECT_EQ(g.per_thread, 4u);
  EXPECT_TRUE(g.in_registers);
  g = softmax_geometry(1001); // scalar: 1001 units, 256 threads, the last unit partial
  EXPECT_EQ(g.unit_elems, 1u);
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

TEST(SoftmaxRowsHalf, HalfRowsUseTheWidestAlignedAccess) {
  auto g = softmax_geometry(151936, DType::kBF16); // 8 halves (16 bytes) per unit
  EXPECT_EQ(g.unit_elems, 8u);
  EXPECT_EQ(g.units, 18992u);
  EXPECT_FALSE(g.in_registers);
  EXPECT_EQ(softmax_geometry(2052, DType::kF16).unit_elems, 4u);
  EXPECT_EQ(softmax_geometry(2050, DType::kF16).unit_elems, 2u);
  EXPECT_EQ(softmax_geometry(2051, DType::kBF16).unit_elems, 1u);
  EXPECT_EQ(softmax_geometry(2048, DType::kF32).unit_elems, 4u);
  EXPECT_EQ(softmax_geometry(2050, DType::kF32).unit_elems, 1u); // f32 keeps .v4 or scalar
  // 32768 halves still fit in registers (4096 units of 8, 1024 threads x 4).
  EXPECT_TRUE(softmax_geometry(32768, DType::kBF16).in_registers);
  auto p = SoftmaxRows::params({.row_len = 2048, .rows = 2, .dtype = DType::kBF16});
  EXPECT_EQ(p[0].elem, ElemType::kBF16);
  EXPECT_EQ(p[1].elem, ElemType::kBF16);
}

TEST(SoftmaxRowsHalf, TheReferenceRoundsEachProbabilityOnce) {
  SoftmaxRowsConfig c{.row_len = 1000, .rows = 2, .dtype = DType::kBF16};
  HostTensors in = SoftmaxRows::make_inputs(c, 5);
  for (float x : in.f32.at("x"))
    ASSERT_EQ(round_to(DType::kBF16, x), x);
  auto half = SoftmaxRows::reference(c, in);
  ASSERT_TRUE(half);
  // The control: the same inputs without the final rounding.
  const std::vector<float> exact = softmax_reference(in.f32.at("x"), 2, 1000);
  const auto& y = half->f32.at("out");
  std::size_t differ = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    ASSERT_EQ(y[i], round_to(DType::kBF16, exact[i])) << i;
    differ += y[i] != exact[i];
  }
  EXPECT_GT(differ, y.size() / 2);
  EXPECT_EQ(SoftmaxRows::tolerance(c, in).rel, 2e-5 + 0x1p-7);
  EXPECT_NE(SoftmaxRows::tolerance(c, in).why.find("bf16"), std::string_view::npos);
  c.dtype = DType::kF16;
  EXPECT_EQ(SoftmaxRows::tolerance(c, in).abs, 0x1p-24); // one f16 subnormal step
}

TEST(SoftmaxRowsHalf, Bf16RowsAreReadAsWordsAndStoredRounded) {
  const Kernel* k = KernelRegistry::find("softmax_rows");
  ASSERT_NE(k, nullptr);
  for (const char* tag : {"qwen05b_vocab_bf16", "qwen15b_coder_scores_f16"}) {
    const ReferenceConfig* rc = k->reference_config(tag);
    ASSERT_NE(rc, nullptr) << tag;
    auto ptx = k->generate(rc->values, *ptxgen::Target::parse("sm_90"));
    ASSERT_TRUE(ptx) << ptx.error().to_string();
    const std::string& t = ptx->text;
    EXPECT_NE(t.find("ld.global.v4.b32"), std::string::npos) << tag; // 8 halves, plain (in place)
    EXPECT_NE(t.find("st.global.v4.b32"), std::string::npos) << tag;
    EXPECT_EQ(t.find("ld.global.v4.f32"), std::string::npos) << tag;
    EXPECT_EQ(t.find("ld.global.f32"), std::string::npos) << tag;
    const bool bf16 = std::string(tag).find("bf16") != std::string::npos;
    EXPECT_NE(t.find(bf16 ? "cvt.rn.bf16x2.f32" : "cvt.rn.f16x2.f32"), std::string::npos) << tag;
  }
}

TEST(SoftmaxRowsHalf, TheDtypeIsInTheKeyAndItsNamesAreChecked) {
  const Kernel* k = KernelRegistry::find("softmax_rows");
  ASSERT_NE(k, nullptr);
  auto f32 = config_from_assignments(*k, {});
  auto bf16 = config_from_assignments(*k, {"dtype=bf16"});
  ASSERT_TRUE(f32 && bf16);
  EXPECT_NE(cache_key(*k, *f32, "sm_90"), cache_key(*k, *bf16, "sm_90"));
  auto bad = config_from_assignments(*k, {"dtype=half"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("dtype"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(config_from_assignments(*k, {"dtype=bf16", "row_len=0"}));
}

} // namespace
} // namespace ptxkit::kernels
