// softmax_rows_test.cpp: softmax_rows's reference (rows sum to 1, shift invariance, overflow-free
// large logits, -inf/NaN rules), its row geometry (registers, on chip, loop), launch contract,
// PTX modes and the f16/bf16 rows (8 halves per access, the output rounded once).
#include "softmax_rows/softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <gtest/gtest.h>
#include <limits>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>
#include <string>
#include <tuple>
#include <vector>

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

SoftmaxGeometry geometry(std::uint32_t row_len, DType dtype = DType::kF32,
                         std::uint32_t smem_kib = 227) {
  return softmax_geometry({.row_len = row_len, .dtype = dtype, .smem_kib = smem_kib});
}

TEST(SoftmaxRowsGeometry, PicksVectorUnitsBlockSizeAndMode) {
  auto g = geometry(896); // 224 .v4 units: 64 threads, 4 each, held in registers
  EXPECT_EQ(g.unit_elems, 4u);
  EXPECT_EQ(g.units, 224u);
  EXPECT_EQ(g.threads, 64u);
  EXPECT_EQ(g.per_thread, 4u);
  EXPECT_EQ(g.mode, SoftmaxMode::kRegisters);
  EXPECT_EQ(g.smem_bytes, 0u);
  g = geometry(1001); // scalar: 1001 units, 256 threads, the last unit partial
  EXPECT_EQ(g.unit_elems, 1u);
  EXPECT_EQ(g.units, 1001u);
  EXPECT_EQ(g.threads, 256u);
  EXPECT_EQ(g.per_thread, 4u);
  EXPECT_EQ(g.mode, SoftmaxMode::kRegisters);
  g = geometry(151936); // an f32 vocabulary (594 KiB) does not fit one SM: 1024 threads looping
  EXPECT_EQ(g.threads, 1024u);
  EXPECT_EQ(g.mode, SoftmaxMode::kLoop);
  EXPECT_EQ(g.smem_bytes, 0u);
  g = geometry(1);
  EXPECT_EQ(g.threads, 32u);
  EXPECT_EQ(g.per_thread, 1u);
  // Every geometry covers its row: threads * per_thread units >= units, and mode follows.
  for (std::uint32_t n : {1u, 3u, 4u, 5u, 127u, 128u, 129u, 4096u, 16384u, 16388u, 100003u}) {
    auto h = geometry(n);
    EXPECT_GE(std::uint64_t{h.threads} * h.per_thread, h.units) << n;
    EXPECT_EQ(h.mode == SoftmaxMode::kRegisters, h.per_thread <= 4) << n;
    EXPECT_EQ(h.threads % 32, 0u) << n;
  }
}

TEST(SoftmaxRowsGeometry, ABf16VocabularyRowIsHeldOnChip) {
  // 18992 units of 8 halves: shared memory holds (232448 - 272) / 16 = 14511 of them, so each
  // thread keeps ceil(4481 / 1024) = 5 units (20 words) in registers and 13872 are staged.
  auto g = geometry(151936, DType::kBF16);
  EXPECT_EQ(g.mode, SoftmaxMode::kOnChip);
  EXPECT_EQ(g.threads, 1024u);
  EXPECT_EQ(g.unit_bytes, 16u);
  EXPECT_EQ(g.reg_units, 5u);
  EXPECT_EQ(g.smem_units, 13872u);
  EXPECT_EQ(g.stage_units, 14u); // the 14th is partial: 13872 = 13 * 1024 + 560
  EXPECT_EQ(g.smem_bytes, 221952u);
  EXPECT_LE(softmax_static_smem_bytes(g.threads) + g.smem_bytes, 227u * 1024);
  EXPECT_EQ(softmax_static_smem_bytes(1024), 272u); // 2 x 33 floats, to 16 bytes
  // The largest rows on chip, and one unit past them (registers would pass 24 words a thread).
  EXPECT_EQ(geometry(165240, DType::kBF16).mode, SoftmaxMode::kOnChip);
  EXPECT_EQ(geometry(165248, DType::kBF16).mode, SoftmaxMode::kLoop);
  EXPECT_EQ(geometry(82620).mode, SoftmaxMode::kOnChip);
  EXPECT_EQ(geometry(82624).mode, SoftmaxMode::kLoop);
  EXPECT_LE(softmax_static_smem_bytes(1024) + geometry(165240, DType::kBF16).smem_bytes,
            227u * 1024);
  // Single halves have no cp.async (2 bytes); smem_kib = 0 never stages; a small budget moves
  // the rest into registers (2 units a thread) and needs no opt-in.
  EXPECT_EQ(geometry(151937, DType::kBF16).mode, SoftmaxMode::kLoop);
  EXPECT_EQ(geometry(151936, DType::kBF16, 0).mode, SoftmaxMode::kLoop);
  EXPECT_EQ(geometry(32000, DType::kF32, 0).mode, SoftmaxMode::kLoop);
  auto small = geometry(40000, DType::kBF16, 48);
  EXPECT_EQ(small.mode, SoftmaxMode::kOnChip);
  EXPECT_EQ(small.reg_units, 2u);
  EXPECT_EQ(small.smem_bytes, 47232u);
  // An f32 row just past registers mode: all of it staged, no register units.
  auto f32 = geometry(16388);
  EXPECT_EQ(f32.mode, SoftmaxMode::kOnChip);
  EXPECT_EQ(f32.reg_units, 0u);
  EXPECT_EQ(f32.smem_bytes, 16388u * 4);
}

// How many times thread tid's held and staged units name each row unit (the builder's mapping:
// held j -> j * threads + tid, staged k -> (reg_units + k) * threads + tid, in the row only).
std::vector<std::uint32_t> on_chip_cover(const SoftmaxGeometry& g, std::uint32_t staged_base) {
  std::vector<std::uint32_t> seen(g.units, 0);
  for (std::uint32_t tid = 0; tid < g.threads; ++tid) {
    for (std::uint32_t j = 0; j < g.reg_units; ++j)
      ++seen.at(j * g.threads + tid);
    for (std::uint32_t k = 0; k < g.stage_units; ++k) {
      const std::uint32_t slot = k * g.threads + tid;
      if (slot < g.smem_units) ++seen.at(staged_base + slot);
    }
  }
  return seen;
}

TEST(SoftmaxRowsGeometry, OnChipUnitsCoverTheRowExactlyOnce) {
  for (auto [n, dtype, kib] : {std::tuple{151936u, DType::kBF16, 227u},
                               {165240u, DType::kBF16, 227u},
                               {82620u, DType::kF32, 227u},
                               {32001u, DType::kF32, 227u},
                               {65540u, DType::kF16, 227u},
                               {40000u, DType::kBF16, 48u}}) {
    const SoftmaxGeometry g = geometry(n, dtype, kib);
    ASSERT_EQ(g.mode, SoftmaxMode::kOnChip) << n;
    EXPECT_LE(g.smem_units, g.stage_units * g.threads) << n;
    EXPECT_GE(g.smem_units, (g.stage_units - 1) * g.threads + 1) << n;
    const auto seen = on_chip_cover(g, g.reg_units * g.threads);
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](std::uint32_t c) { return c == 1; })) << n;
  }
  // The positive control: staged slots read from the row's start (the held units' offset
  // forgotten) read some units twice and leave the row's end unread, and the check says so.
  const SoftmaxGeometry g = geometry(151936, DType::kBF16);
  const auto wrong = on_chip_cover(g, 0);
  EXPECT_EQ(std::count(wrong.begin(), wrong.end(), 0u), std::ptrdiff_t{5 * 1024});
  EXPECT_FALSE(std::all_of(wrong.begin(), wrong.end(), [](std::uint32_t c) { return c == 1; }));
}

TEST(SoftmaxRowsContract, OneBlockPerRowOnGridX) {
  auto d = SoftmaxRows::launch({.row_len = 2048, .rows = 48});
  EXPECT_EQ(d.grid[0], 48u);
  EXPECT_EQ(d.block[0], 128u);
  EXPECT_EQ(d.dynamic_smem_bytes, 0u);
  auto p = SoftmaxRows::params({.row_len = 2048, .rows = 48});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].elems, 48u * 2048u);
  EXPECT_EQ(p[1].kind, ParamKind::kOutput);
}

TEST(SoftmaxRowsContract, AnOnChipRowAsksForItsSharedMemory) {
  auto d = SoftmaxRows::launch({.row_len = 151936, .rows = 1024, .dtype = DType::kBF16});
  EXPECT_EQ(d.grid[0], 1024u);
  EXPECT_EQ(d.block[0], 1024u);
  EXPECT_EQ(d.dynamic_smem_bytes, 221952u); // past 48 KiB: the runtime opts in
  EXPECT_EQ(SoftmaxRows::launch({.row_len = 151936, .rows = 4}).dynamic_smem_bytes, 0u);
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

TEST(SoftmaxRowsPtx, OnChipRowsAreCopiedIntoSharedMemoryOnce) {
  const Kernel* k = KernelRegistry::find("softmax_rows");
  ASSERT_NE(k, nullptr);
  const auto t = *ptxgen::Target::parse("sm_90");
  auto chip = k->generate(k->reference_config("qwen05b_vocab_bf16")->values, t);
  auto ragged = k->generate(k->reference_config("ragged_on_chip_f16")->values, t);
  auto looped = k->generate(k->reference_config("llama_vocab")->values, t);
  ASSERT_TRUE(chip && ragged && looped);
  const std::string& c = chip->text;
  EXPECT_NE(c.find(".extern .shared .align 16 .b32 softmax_rows_row_stage[];"), std::string::npos);
  EXPECT_NE(c.find(".reqntid 1024, 1, 1"), std::string::npos);
  // No loop: the row is read once (5 held units, 14 staged, the last one guarded).
  EXPECT_EQ(c.find("loop:"), std::string::npos);
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count(c, "ld.global.v4.b32"), 5u);
  EXPECT_EQ(count(c, "cp.async.cg.shared.global"), 14u);
  EXPECT_EQ(count(c, "cp.async.commit_group"), 7u);
  EXPECT_EQ(count(c, "cp.async.wait_group"), 7u);
  EXPECT_NE(c.find("cp.async.wait_group 0;"), std::string::npos);
  EXPECT_EQ(count(c, "st.global.v4.b32"), 19u);
  EXPECT_NE(c.find("ex2.approx.ftz.f32"), std::string::npos);
  // 8-byte units go through cp.async.ca (the .cg form moves 16 bytes only).
  EXPECT_NE(ragged->text.find("cp.async.ca.shared.global"), std::string::npos);
  EXPECT_NE(ragged->text.find("ld.shared.v2.b32"), std::string::npos);
  // The control: smem_kib = 0 keeps the looped form, which stages nothing.
  EXPECT_NE(looped->text.find("$L__reduce_loop:"), std::string::npos);
  EXPECT_EQ(looped->text.find("cp.async"), std::string::npos);
  EXPECT_EQ(looped->text.find(".extern"), std::string::npos);
}

TEST(SoftmaxRowsHalf, HalfRowsUseTheWidestAlignedAccess) {
  auto g = geometry(151936, DType::kBF16); // 8 halves (16 bytes) per unit
  EXPECT_EQ(g.unit_elems, 8u);
  EXPECT_EQ(g.units, 18992u);
  EXPECT_EQ(g.mode, SoftmaxMode::kOnChip);
  EXPECT_EQ(geometry(2052, DType::kF16).unit_elems, 4u);
  EXPECT_EQ(geometry(2050, DType::kF16).unit_elems, 2u);
  EXPECT_EQ(geometry(2051, DType::kBF16).unit_elems, 1u);
  EXPECT_EQ(geometry(2048, DType::kF32).unit_elems, 4u);
  EXPECT_EQ(geometry(2050, DType::kF32).unit_elems, 1u); // f32 keeps .v4 or scalar
  // 32768 halves still fit in registers (4096 units of 8, 1024 threads x 4).
  EXPECT_EQ(geometry(32768, DType::kBF16).mode, SoftmaxMode::kRegisters);
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
