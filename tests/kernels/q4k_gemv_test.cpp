// q4k_gemv_test.cpp: the Q4_K codec against values computed by hand (f16, the 6-bit scale/min
// packing, ggml's nibble order), the GEMV reference's treatment of the padded last super-block
// (cols not a multiple of 256: x is never read past cols), limits and launch contract; with
// batch > 1, each vector against the batch-1 reference and where its x and y lie.
#include "kernel_test_util.h"
#include "q4k_gemv/q4k_gemv.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

// ggml's packing of 8 six-bit (scale, min) pairs into 12 bytes (the inverse of
// get_scale_min_k4), as quantize_row_q4_K writes it.
std::array<std::uint8_t, 12> pack_scales(const std::array<std::uint8_t, 8>& sc,
                                         const std::array<std::uint8_t, 8>& m) {
  std::array<std::uint8_t, 12> s{};
  for (int j = 0; j < 4; ++j) {
    s[j] = static_cast<std::uint8_t>((sc[j] & 63) | ((sc[j + 4] >> 4) << 6));
    s[j + 4] = static_cast<std::uint8_t>((m[j] & 63) | ((m[j + 4] >> 4) << 6));
    s[j + 8] = static_cast<std::uint8_t>((sc[j + 4] & 15) | ((m[j + 4] & 15) << 4));
  }
  return s;
}

// A block with d = 0.5, dmin = 0.25, sub-block j's scale sc[j] and min m[j], and quant
// q(v) = (v * 7 + 3) % 16 for value v.
struct HandBlock {
  std::array<std::uint8_t, 8> sc{1, 2, 3, 4, 33, 47, 60, 63};
  std::array<std::uint8_t, 8> m{2, 0, 5, 63, 16, 31, 1, 48};
  std::array<std::uint8_t, 144> bytes{};
  static int q(int v) { return (v * 7 + 3) % 16; }
  HandBlock() {
    bytes[0] = 0x00, bytes[1] = 0x38; // d = 0.5 (f16 0x3800)
    bytes[2] = 0x00, bytes[3] = 0x34; // dmin = 0.25 (f16 0x3400)
    auto s = pack_scales(sc, m);
    std::memcpy(bytes.data() + 4, s.data(), 12);
    for (int g = 0; g < 4; ++g)
      for (int l = 0; l < 32; ++l)
        bytes[static_cast<std::size_t>(16 + 32 * g + l)] =
            static_cast<std::uint8_t>(q(64 * g + l) | (q(64 * g + 32 + l) << 4));
  }
};

TEST(Q4kCodec, HalfConversionsAreExact) {
  EXPECT_EQ(q4k_half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(q4k_half_to_float(0x3800), 0.5f);
  EXPECT_EQ(q4k_half_to_float(0xC000), -2.0f);
  EXPECT_EQ(q4k_half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(q4k_half_to_float(0x0001), std::ldexp(1.0f, -24)); // smallest subnormal
  EXPECT_EQ(q4k_float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(q4k_float_to_half(0.1f), 0x2E66);                         // nearest
  EXPECT_EQ(q4k_float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00); // tie to even
  EXPECT_EQ(q4k_float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(q4k_float_to_half(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(q4k_float_to_half(70000.0f), 0x7C00);
  for (std::uint32_t h = 0; h < 0x7C00; h += 37)
    EXPECT_EQ(q4k_float_to_half(q4k_half_to_float(static_cast<std::uint16_t>(h))), h);
}

TEST(Q4kCodec, ScaleMinUnpackingRecoversEveryPackedPair) {
  HandBlock hb;
  for (int j = 0; j < 8; ++j) {
    std::uint8_t sc, m;
    q4k_scale_min(j, hb.bytes.data() + 4, sc, m);
    EXPECT_EQ(sc, hb.sc[static_cast<std::size_t>(j)]) << "sub-block " << j;
    EXPECT_EQ(m, hb.m[static_cast<std::size_t>(j)]) << "sub-block " << j;
  }
}

TEST(Q4kCodec, DequantizingAHandBuiltBlockGivesTheHandComputedValues) {
  HandBlock hb;
  auto y = q4k_dequantize_block(hb.bytes.data());
  // Spot values worked out by hand: value = 0.5 * sc * q - 0.25 * m.
  EXPECT_DOUBLE_EQ(y[0], 0.5 * 1 * 3 - 0.25 * 2);      // sub-block 0, q(0) = 3
  EXPECT_DOUBLE_EQ(y[1], 0.5 * 1 * 10 - 0.25 * 2);     // q(1) = 10
  EXPECT_DOUBLE_EQ(y[32], 0.5 * 2 * 3 - 0.25 * 0);     // sub-block 1 (high nibbles), q(32) = 3
  EXPECT_DOUBLE_EQ(y[100], 0.5 * 4 * 15 - 0.25 * 63);  // sub-block 3, q(100) = 703 % 16 = 15
  EXPECT_DOUBLE_EQ(y[200], 0.5 * 60 * 11 - 0.25 * 1);  // sub-block 6, q(200) = 1403 % 16 = 11
  EXPECT_DOUBLE_EQ(y[255], 0.5 * 63 * 12 - 0.25 * 48); // sub-block 7, q(255) = 1788 % 16 = 12
}

TEST(Q4kCodec, EveryValueFollowsGgmlsNibbleOrder) {
  HandBlock hb;
  auto y = q4k_dequantize_block(hb.bytes.data());
  for (int v = 0; v < 256; ++v) {
    const int sub = v / 32; // 0..7: low nibbles of group v/64 are sub-block 2g, high 2g+1
    const double want = 0.5 * hb.sc[static_cast<std::size_t>(sub)] * HandBlock::q(v) -
                        0.25 * hb.m[static_cast<std::size_t>(sub)];
    EXPECT_DOUBLE_EQ(y[static_cast<std::size_t>(v)], want) << "value " << v;
  }
}

TEST(Q4kGemvReference, ColsNotAMultipleOf256IgnoresThePadding) {
  // cols = 300: two super-blocks per row, values 300..511 are padding.
  Q4kGemvConfig c{.rows = 3, .cols = 300};
  ASSERT_EQ(c.row_words(), 72u);
  HostTensors in = Q4kGemv::make_inputs(c, 12);
  auto y = Q4kGemv::reference(c, in)->f32.at("y");
  // Same weights with the padding's quants rewritten: y must not move.
  HostTensors scrambled = in;
  auto* bytes = reinterpret_cast<std::uint8_t*>(scrambled.u32["w_q4k"].data());
  for (std::size_t r = 0; r < c.rows; ++r)
    for (int v = 300 - 256; v < 256; ++v) { // values of super-block 1 at or past cols
      const int g = v / 64, l = v % 32;
      std::uint8_t& b = bytes[r * 288 + 144 + 16 + static_cast<std::size_t>(32 * g + l)];
      b = (v % 64) < 32 ? static_cast<std::uint8_t>((b & 0xF0) | 0x0F)
                        : static_cast<std::uint8_t>((b & 0x0F) | 0xF0);
    }
  auto y2 = Q4kGemv::reference(c, scrambled)->f32.at("y");
  for (std::size_t r = 0; r < c.rows; ++r)
    EXPECT_EQ(y[r], y2[r]);
  // And it equals the 512-column GEMV (same packed rows) on x padded with zeros.
  Q4kGemvConfig wide{.rows = 3, .cols = 512};
  HostTensors padded = in;
  padded.f32["x"].resize(512, 0.0f);
  auto y3 = Q4kGemv::reference(wide, padded)->f32.at("y");
  for (std::size_t r = 0; r < c.rows; ++r)
    EXPECT_NEAR(y[r], y3[r], 1e-5);
  // ...while a nonzero x past cols would have changed it (the padding is not all zero).
  padded.f32["x"][400] = 1.0f;
  auto y4 = Q4kGemv::reference(wide, padded)->f32.at("y");
  bool moved = false;
  for (std::size_t r = 0; r < c.rows; ++r)
    moved |= std::fabs(y4[r] - y3[r]) > 1e-6;
  EXPECT_TRUE(moved);
}

TEST(Q4kGemvReference, OneHandBuiltBlockTimesAUnitVectorPicksItsValue) {
  Q4kGemvConfig c{.rows = 1, .cols = 256};
  HandBlock hb;
  HostTensors in;
  in.u32["w_q4k"].resize(36);
  std::memcpy(in.u32["w_q4k"].data(), hb.bytes.data(), 144);
  in.f32["x"].assign(256, 0.0f);
  in.f32["x"][200] = 2.0f;
  auto y = Q4kGemv::reference(c, in)->f32.at("y");
  EXPECT_FLOAT_EQ(y[0], 2.0f * (0.5f * 60 * 11 - 0.25f * 1));
}

TEST(Q4kGemvLimits, ColsMustBeAMultipleOfFourAndBuffersMatch) {
  const Kernel* k = KernelRegistry::find("q4k_gemv");
  ASSERT_NE(k, nullptr);
  auto odd = config_from_assignments(*k, {"cols=30"});
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("'cols' = 30"), std::string::npos);
  EXPECT_NE(odd.error().message.find("multiple of 4"), std::string::npos) << odd.error().message;
  EXPECT_TRUE(config_from_assignments(*k, {"cols=4", "rows=1"}));
  Q4kGemvConfig c{.rows = 2, .cols = 260};
  HostTensors in = Q4kGemv::make_inputs(c, 1);
  in.f32["x"].push_back(0.0f);
  auto out = Q4kGemv::reference(c, in);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("cols = 260"), std::string::npos);
}

TEST(Q4kGemvContract, RowBatchesPerWarpGridCapAndPaddedRowStride) {
  Q4kGemvConfig c{.rows = 4864, .cols = 896};
  EXPECT_EQ(c.rows_per_warp(), 4u); // one step per row: x stays in registers, 4 rows a batch
  auto d = Q4kGemv::launch(c);
  EXPECT_EQ(d.grid[0], 152u); // 4864 / (8 warps * 4 rows)
  EXPECT_EQ(d.block[0], 256u);
  auto p = Q4kGemv::params(c);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elem, ElemType::kU32);
  EXPECT_EQ(p[0].elems, 4864u * 4u * 36u); // 4 super-blocks (1024 values) of 144 bytes per row
  EXPECT_EQ(p[1].elems, 896u);             // x: its logical size, never padded
  EXPECT_EQ(p[2].kind, ParamKind::kOutput);
  EXPECT_EQ(Q4kGemv::launch(Q4kGemvConfig{.rows = 33, .cols = 4}).grid[0], 2u);
  // Several steps per row: 8 rows share each x slice, and the steps are split over 2 warps when
  // 14336 rows alone would not give 2 blocks of 64 rows per SM.
  Q4kGemvConfig ffn{.rows = 14336, .cols = 4096};
  EXPECT_EQ(ffn.rows_per_warp(), 8u);
  EXPECT_EQ(ffn.step_split(), 2u);
  EXPECT_EQ(Q4kGemv::launch(ffn).grid[0], 448u); // 14336 / (8 rows * 8 warps / 2)
  // A short, wide matrix splits its 14 steps over all 8 warps; a tall one does not split.
  EXPECT_EQ((Q4kGemvConfig{.rows = 4096, .cols = 14336}).step_split(), 8u);
  EXPECT_EQ((Q4kGemvConfig{.rows = 32000, .cols = 4096}).step_split(), 1u);
  EXPECT_EQ((Q4kGemvConfig{.rows = 896, .cols = 896}).step_split(), 1u); // one step
  // Blocks stride over row batches: the grid is capped.
  EXPECT_EQ(Q4kGemv::launch(Q4kGemvConfig{.rows = 151936, .cols = 896}).grid[0],
            Q4kGemv::kMaxBlocks);
}

// ---- x_format = q8_1 ----

std::string q4k_ptx(const std::vector<std::string>& sets) {
  return test_util::kernel_ptx("q4k_gemv", sets);
}

TEST(Q4kGemvQ8_1Reference, AHandBuiltBlockAgainstOneQuantizedValue) {
  // x = 2 at value 200 (sub-block 6, Q8_1 block 6: amax 2, q = 127), else 0.
  Q4kGemvConfig c{.rows = 1, .cols = 256, .x_format = XFormat::kQ8_1};
  HandBlock hb;
  HostTensors in;
  in.u32["w_q4k"].resize(36);
  std::memcpy(in.u32["w_q4k"].data(), hb.bytes.data(), 144);
  std::vector<float> x(256, 0.0f);
  x[200] = 2.0f;
  in.u32["x_q8"] = q8_1_quantize(x, 8);
  const Q8_1Block b6 = q8_1_block(in.u32["x_q8"], 6);
  ASSERT_EQ(b6.q[8], 127);
  auto y = Q4kGemv::reference(c, in)->f32.at("y");
  // d*sc*d8*(q4 * 127) - dmin*m*s, with q(200) = 11, sc6 = 60, m6 = 1 (the other sub-blocks'
  // s and quants are 0).
  const double expect = 0.5 * 60 * double{b6.d} * (11 * 127) - 0.25 * 1 * double{b6.s};
  EXPECT_FLOAT_EQ(y[0], static_cast<float>(expect));
  // Positive control: the min term uses s; dropping it moves the result.
  EXPECT_GT(std::fabs(expect - 0.5 * 60 * double{b6.d} * (11 * 127)), 0.4);
}

TEST(Q4kGemvQ8_1Reference, MatchesTheF32PathOnTheDequantizedX) {
  // The f32 reference on x = d8 * q equals the Q8_1 one up to s's f16 rounding (dmin m s terms):
  // the sub-block / Q8_1 block pairing and the nibble order agree with the f32 path.
  for (std::uint32_t cols : {896u, 4864u}) {
    Q4kGemvConfig c{.rows = 16, .cols = cols, .x_format = XFormat::kQ8_1};
    HostTensors in = Q4kGemv::make_inputs(c, 7);
    ASSERT_EQ(in.u32.at("x_q8").size(), c.x_q8_words());
    ASSERT_EQ(in.f32.count("x"), 0u);
    std::vector<float> deq(cols);
    for (std::size_t k = 0; k < cols; ++k) {
      const Q8_1Block blk = q8_1_block(in.u32.at("x_q8"), k / 32);
      deq[k] = blk.d * blk.q[k % 32];
    }
    auto yq = Q4kGemv::reference(c, in)->f32.at("y");
    Q4kGemvConfig cf = c;
    cf.x_format = XFormat::kF32;
    auto yf = q4k_gemv_reference(cf, in.u32.at("w_q4k"), deq);
    for (std::size_t r = 0; r < c.rows; ++r)
      EXPECT_NEAR(yq[r], yf[r], 2e-3 + 1e-3 * std::fabs(yf[r])) << "row " << r;
    // Positive control: another x gives a different result.
    deq[3] += 0.5f;
    auto yf2 = q4k_gemv_reference(cf, in.u32.at("w_q4k"), deq);
    bool moved = false;
    for (std::size_t r = 0; r < c.rows; ++r)
      moved |= std::fabs(yf2[r] - yq[r]) > 1e-2;
    EXPECT_TRUE(moved);
  }
}

TEST(Q4kGemvQ8_1Contract, XIsQ8_1WordsAndTheFormatIsInTheKey) {
  Q4kGemvConfig c{.rows = 4864, .cols = 896, .x_format = XFormat::kQ8_1};
  auto p = Q4kGemv::params(c);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[1].name, "x_q8");
  EXPECT_EQ(p[1].elem, ElemType::kU32);
  EXPECT_EQ(p[1].elems, 4u * 8u * 9u); // 4 super-blocks of 8 Q8_1 blocks (36 bytes)
  EXPECT_EQ(Q4kGemv::launch(c).grid[0], 152u);
  HostTensors in = Q4kGemv::make_inputs(c, 1);
  in.u32["x_q8"].pop_back();
  auto bad = Q4kGemv::reference(c, in);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("x_q8"), std::string::npos);
  const Kernel* k = KernelRegistry::find("q4k_gemv");
  ASSERT_NE(k, nullptr);
  auto f32 = config_from_assignments(*k, {});
  auto q8 = config_from_assignments(*k, {"x_format=q8_1"});
  ASSERT_TRUE(f32 && q8);
  EXPECT_NE(cache_key(*k, *f32, "sm_90"), cache_key(*k, *q8, "sm_90"));
  EXPECT_FALSE(config_from_assignments(*k, {"x_format=q4"}));
}

TEST(Q4kGemvQ8_1Ptx, Dp4aOnInt8XAndNoF32XLoads) {
  for (const char* cols : {"cols=896", "cols=4864", "cols=4096"}) {
    const std::string ptx = q4k_ptx({cols, "x_format=q8_1"});
    EXPECT_NE(ptx.find("dp4a.u32.s32"), std::string::npos) << cols;
    EXPECT_NE(ptx.find("ld.global.nc.v4.u32"), std::string::npos) << cols; // 16-byte quants
    EXPECT_EQ(ptx.find("ld.global.nc.v4.f32"), std::string::npos) << cols;
  }
  const std::string f32 = q4k_ptx({"cols=896"});
  EXPECT_EQ(f32.find("dp4a"), std::string::npos);
  EXPECT_NE(f32.find("ld.global.nc.v4.f32"), std::string::npos);
}

// ---- x_format = f32_q8_1 ----

// The f32_q8_1 inputs of `c` with the same weights and x as the q8_1 reference's input: x
// quantized on the host as quantize_q8_1 does.
HostTensors as_q8_1_inputs(const Q4kGemvConfig& c, const HostTensors& fused_in) {
  HostTensors q;
  q.u32["w_q4k"] = fused_in.u32.at("w_q4k");
  q.u32["x_q8"] = q8_1_quantize(fused_in.f32.at("x"), std::size_t{c.blocks_per_row()} * 8);
  return q;
}

TEST(Q4kGemvF32Q8_1Reference, EqualsTheQ8_1PathOnTheHostQuantizedXBitForBit) {
  for (std::uint32_t cols : {300u, 896u, 4864u}) {
    Q4kGemvConfig c{.rows = 24, .cols = cols, .x_format = XFormat::kF32Q8_1};
    HostTensors in = Q4kGemv::make_inputs(c, 5);
    ASSERT_EQ(in.f32.at("x").size(), cols);
    ASSERT_EQ(in.u32.count("x_q8"), 0u); // the kernel takes f32 x
    auto fused = Q4kGemv::reference(c, in);
    ASSERT_TRUE(fused) << fused.error().message;
    Q4kGemvConfig cq = c;
    cq.x_format = XFormat::kQ8_1;
    auto q8 = Q4kGemv::reference(cq, as_q8_1_inputs(c, in));
    ASSERT_TRUE(q8);
    for (std::size_t r = 0; r < c.rows; ++r)
      EXPECT_EQ(fused->f32.at("y")[r], q8->f32.at("y")[r]) << "cols " << cols << " row " << r;
    // Positive control: x moved by one quantization step in one value moves y.
    const auto& x = in.f32.at("x");
    std::size_t k = 1;
    while (x[k] == 0.0f)
      ++k;
    HostTensors planted = in;
    planted.f32["x"][k] += std::fabs(x[k]);
    auto moved = Q4kGemv::reference(c, planted);
    bool differs = false;
    for (std::size_t r = 0; r < c.rows; ++r)
      differs |= moved->f32.at("y")[r] != fused->f32.at("y")[r];
    EXPECT_TRUE(differs) << "cols " << cols;
  }
}

TEST(Q4kGemvF32Q8_1Inputs, XExercisesTheQuantizerZeroBlocksTiesAndManyScales) {
  Q4kGemvConfig c{.rows = 2, .cols = 4864, .x_format = XFormat::kF32Q8_1};
  HostTensors in = Q4kGemv::make_inputs(c, 3);
  const auto& x = in.f32.at("x");
  const auto words = q8_1_quantize(x, std::size_t{c.blocks_per_row()} * 8);
  int zero_blocks = 0, ties = 0;
  float d_min = INFINITY, d_max = 0.0f;
  for (std::size_t blk = 0; blk < c.cols / kQ8_1Values; ++blk) {
    const Q8_1Block qb = q8_1_block(words, blk);
    if (qb.d == 0.0f) {
      ++zero_blocks;
      continue;
    }
    d_min = std::min(d_min, qb.d);
    d_max = std::max(d_max, qb.d);
    // The quantizer's v = x * (1/d) exactly on a half, as q8_1_quantize computes it.
    float amax = 0.0f;
    for (std::size_t j = 0; j < kQ8_1Values; ++j)
      amax = std::max(amax, std::fabs(x[blk * kQ8_1Values + j]));
    const float id = 1.0f / (amax / 127.0f);
    for (std::size_t j = 0; j < kQ8_1Values; ++j) {
      const float v = x[blk * kQ8_1Values + j] * id;
      ties += std::fabs(v - std::trunc(v)) == 0.5f;
    }
  }
  EXPECT_GE(zero_blocks, 5);    // one in 17 of 152 blocks
  EXPECT_GT(ties, 0);           // roundf's away-from-zero rule is exercised
  EXPECT_GE(d_max / d_min, 64); // d spans several binades
  for (float v : x)
    EXPECT_LE(std::fabs(v), 1.0f); // the tolerance's |x| <= 1
}

TEST(Q4kGemvF32Q8_1Contract, F32XInTheQ8_1GridAndColsBoundedBySharedMemory) {
  Q4kGemvConfig c{.rows = 4096, .cols = 4096, .x_format = XFormat::kF32Q8_1};
  auto p = Q4kGemv::params(c);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[1].name, "x");
  EXPECT_EQ(p[1].elem, ElemType::kF32);
  EXPECT_EQ(p[1].elems, 4096u);
  Q4kGemvConfig cq = c;
  cq.x_format = XFormat::kQ8_1;
  EXPECT_EQ(Q4kGemv::launch(c).grid[0], Q4kGemv::launch(cq).grid[0]); // 16 rows a block
  // Each block quantizes all of x: the split stops at 16 rows a block (the q8_1 path splits the
  // 14 steps of 4096 x 14336 over 8 warps, 8 rows a block); an explicit split still rules.
  Q4kGemvConfig wide_k{.rows = 4096, .cols = 14336, .x_format = XFormat::kF32Q8_1};
  EXPECT_EQ(wide_k.step_split(), 4u);
  EXPECT_EQ(Q4kGemv::launch(wide_k).grid[0], 256u);
  wide_k.x_format = XFormat::kQ8_1;
  EXPECT_EQ(wide_k.step_split(), 8u);
  wide_k = {.rows = 4096, .cols = 14336, .split = 8, .x_format = XFormat::kF32Q8_1};
  EXPECT_EQ(wide_k.step_split(), 8u);
  const Kernel* k = KernelRegistry::find("q4k_gemv");
  ASSERT_NE(k, nullptr);
  auto f32 = config_from_assignments(*k, {});
  auto q8 = config_from_assignments(*k, {"x_format=q8_1"});
  auto fused = config_from_assignments(*k, {"x_format=f32_q8_1"});
  ASSERT_TRUE(f32 && q8 && fused);
  EXPECT_NE(cache_key(*k, *fused, "sm_90"), cache_key(*k, *q8, "sm_90"));
  EXPECT_NE(cache_key(*k, *fused, "sm_90"), cache_key(*k, *f32, "sm_90"));
  // x's Q8_1 copy lives in shared memory: cols up to 32768; the q8_1 path has no such bound.
  EXPECT_TRUE(config_from_assignments(*k, {"x_format=f32_q8_1", "cols=32768"}));
  auto wide = config_from_assignments(*k, {"x_format=f32_q8_1", "cols=32772"});
  ASSERT_FALSE(wide);
  EXPECT_NE(wide.error().message.find("32768"), std::string::npos) << wide.error().message;
  EXPECT_TRUE(config_from_assignments(*k, {"x_format=q8_1", "cols=32772"}));
}

TEST(Q4kGemvF32Q8_1Ptx, QuantizesXIntoSharedMemoryAfterTheFirstQuantLoadsThenDp4a) {
  for (const char* cols : {"cols=896", "cols=4864", "cols=4096", "cols=14336"}) {
    const std::string ptx = q4k_ptx({cols, "x_format=f32_q8_1"});
    for (const char* op :
         {"dp4a.u32.s32", "add.rm.f32", "div.rn.f32", "rcp.rn.f32", "cvt.rn.f16x2.f32",
          "st.shared.v4.u32", "ld.shared.v4.u32", "ld.shared.v4.f32", ".minnctapersm 3"})
      EXPECT_NE(ptx.find(op), std::string::npos) << cols << ": " << op;
    EXPECT_EQ(ptx.find("cvt.rzi"), std::string::npos) << cols;
    EXPECT_EQ(ptx.find("ld.global.nc.u32"), std::string::npos) << cols; // no Q8_1 x in global
    // The first step's quants are requested before x is read and quantized, and the one
    // barrier after the quantization precedes the first dp4a.
    const std::size_t quants = ptx.find("ld.global.nc.v4.u32");
    const std::size_t x = ptx.find("ld.global.nc.v4.f32");
    const std::size_t bar = ptx.find("bar.sync");
    const std::size_t dot = ptx.find("dp4a");
    ASSERT_NE(x, std::string::npos) << cols;
    EXPECT_LT(quants, x) << cols;
    EXPECT_LT(x, bar) << cols;
    EXPECT_LT(bar, dot) << cols;
  }
  // Positive control: the q8_1 path reads Q8_1 x from global memory and has no quantizer.
  const std::string q8 = q4k_ptx({"cols=896", "x_format=q8_1"});
  EXPECT_NE(q8.find("ld.global.nc.u32"), std::string::npos);
  EXPECT_EQ(q8.find("add.rm.f32"), std::string::npos);
  EXPECT_EQ(q8.find("bar.sync"), std::string::npos);
}

// ---- batch: several x vectors per launch ----

// |got - want| <= abs + rel * |want| for every element: how a device result is judged.
bool within(const Tolerance& tol, const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(double{got[i]} - want[i]) <= tol.abs + tol.rel * std::fabs(double{want[i]})))
      return false;
  return true;
}

// Vector m of a batched input as a batch-1 input (x_q8 vectors are x_q8_words() apart).
HostTensors vector_input(const Q4kGemvConfig& c, const HostTensors& in, std::size_t m) {
  HostTensors one;
  one.u32["w_q4k"] = in.u32.at("w_q4k");
  if (c.x_format == XFormat::kQ8_1) {
    const auto& all = in.u32.at("x_q8");
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(m * c.x_q8_words());
    one.u32["x_q8"].assign(first, first + c.x_q8_words());
  } else {
    const auto& all = in.f32.at("x");
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(m * c.cols);
    one.f32["x"].assign(first, first + c.cols);
  }
  return one;
}

TEST(Q4kGemvBatchReference, EveryVectorIsTheBatch1ResultOnItsOwnXAtItsOwnRows) {
  for (XFormat f : {XFormat::kF32, XFormat::kQ8_1, XFormat::kF32Q8_1})
    for (std::uint32_t cols : {300u, 4864u}) {
      const Q4kGemvConfig c{.rows = 10, .cols = cols, .x_format = f, .batch = 3};
      HostTensors in = Q4kGemv::make_inputs(c, 9);
      auto out = Q4kGemv::reference(c, in);
      ASSERT_TRUE(out) << out.error().message;
      const auto& y = out->f32.at("y");
      ASSERT_EQ(y.size(), 3u * c.rows);
      Q4kGemvConfig one = c;
      one.batch = 1;
      std::vector<std::vector<float>> per_vector;
      for (std::size_t m = 0; m < 3; ++m) {
        per_vector.push_back(Q4kGemv::reference(one, vector_input(c, in, m))->f32.at("y"));
        for (std::size_t r = 0; r < c.rows; ++r)
          EXPECT_EQ(y[m * c.rows + r], per_vector[m][r]) << "cols " << cols << " vector " << m;
      }
      // The vectors differ (the inputs are not one vector repeated), so a kernel that read one
      // vector's x for another, or stored one vector's y in another's rows, would be caught.
      EXPECT_NE(per_vector[0], per_vector[1]) << "cols " << cols;
      EXPECT_NE(per_vector[1], per_vector[2]) << "cols " << cols;
    }
}

TEST(Q4kGemvBatchReference, SwappedVectorsOrOneVectorsRowsInAnothersFailTheTolerance) {
  // Positive controls for the device comparison: a y with two vectors swapped, or with vector 0's
  // result written over vector 2's rows, is outside the tolerance; the reference itself is inside.
  for (XFormat f : {XFormat::kF32, XFormat::kF32Q8_1, XFormat::kQ8_1}) {
    const Q4kGemvConfig c{.rows = 64, .cols = 896, .x_format = f, .batch = 4};
    HostTensors in = Q4kGemv::make_inputs(c, 21);
    const auto want = Q4kGemv::reference(c, in)->f32.at("y");
    const Tolerance tol = Q4kGemv::tolerance(c, in);
    EXPECT_TRUE(within(tol, want, want));
    EXPECT_FALSE(within(tol, test_util::with_vectors_swapped(want, c.rows, 1, 2), want));
    EXPECT_FALSE(within(tol, test_util::with_vector_copied(want, c.rows, 0, 2), want));
    // ...and so is x read with the vectors swapped (the kernel's stride of x wrong).
    HostTensors x_swapped = in;
    if (f == XFormat::kQ8_1) {
      auto& xq = x_swapped.u32["x_q8"];
      std::swap_ranges(xq.begin(), xq.begin() + c.x_q8_words(), xq.begin() + c.x_q8_words());
    } else {
      auto& x = x_swapped.f32["x"];
      std::swap_ranges(x.begin(), x.begin() + c.cols, x.begin() + c.cols);
    }
    EXPECT_FALSE(within(tol, Q4kGemv::reference(c, x_swapped)->f32.at("y"), want));
  }
}

TEST(Q4kGemvBatchContract, BuffersScaleWithBatchAndTheFusedCopyIsBounded) {
  for (XFormat f : {XFormat::kF32, XFormat::kQ8_1, XFormat::kF32Q8_1}) {
    const Q4kGemvConfig c{.rows = 4864, .cols = 896, .x_format = f, .batch = 4};
    auto p = Q4kGemv::params(c);
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p[0].elems, 4864u * 4u * 36u); // the weights do not scale
    EXPECT_EQ(p[1].elems, f == XFormat::kQ8_1 ? 4u * c.x_q8_words() : 4u * 896u);
    EXPECT_EQ(p[2].elems, 4u * 4864u);
    HostTensors in = Q4kGemv::make_inputs(c, 1);
    EXPECT_EQ(f == XFormat::kQ8_1 ? in.u32.at("x_q8").size() : in.f32.at("x").size(), p[1].elems);
    // One vector short is refused by the reference, naming the batch.
    if (f == XFormat::kQ8_1)
      in.u32["x_q8"].resize(3 * c.x_q8_words());
    else
      in.f32["x"].resize(3 * c.cols);
    auto bad = Q4kGemv::reference(c, in);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("batch = 4"), std::string::npos) << bad.error().message;
  }
  // Rows a warp computes with several vectors: 4 with dp4a, 2 with f32 x; the grid follows.
  EXPECT_EQ((Q4kGemvConfig{.rows = 4096, .cols = 4096, .batch = 4}).rows_per_warp(), 2u);
  const Q4kGemvConfig fused{.rows = 4096, .cols = 4096, .x_format = XFormat::kF32Q8_1, .batch = 4};
  EXPECT_EQ(fused.rows_per_warp(), 4u);
  EXPECT_EQ(fused.step_split(), 2u); // 16 rows a block, each quantizing the 4 vectors
  EXPECT_EQ(Q4kGemv::launch(fused).grid[0], 256u);
  // Each block quantizes all 4 vectors once: no more blocks than are resident at once (2 per SM
  // of 132), the row batches dealt out evenly; the other formats keep the batch-1 grid rule.
  const Q4kGemvConfig ffn{.rows = 11008, .cols = 4096, .x_format = XFormat::kF32Q8_1, .batch = 4};
  EXPECT_EQ(Q4kGemv::launch(ffn).grid[0], 230u); // 688 batches of 16 rows, 3 per block
  EXPECT_EQ(Q4kGemv::launch(Q4kGemvConfig{.rows = 11008, .cols = 4096, .batch = 4}).grid[0],
            Q4kGemv::kMaxBlocks); // f32: 2 rows a warp, 1376 batches
  Q4kGemvConfig ffn_one = ffn;
  ffn_one.batch = 1;
  EXPECT_EQ(Q4kGemv::launch(ffn_one).grid[0], 344u); // batch 1 unchanged: a block per batch
  EXPECT_EQ((Q4kGemvConfig{.rows = 4096, .cols = 4096, .rows_per_warp_override = 8, .batch = 4})
                .rows_per_warp(),
            8u);
  // f32_q8_1 keeps every vector's Q8_1 copy in shared memory, each in whole 4096-value passes.
  const Kernel* k = KernelRegistry::find("q4k_gemv");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(config_from_assignments(*k, {"x_format=f32_q8_1", "cols=4864", "batch=4"}));
  EXPECT_TRUE(config_from_assignments(*k, {"x_format=f32_q8_1", "cols=4096", "batch=8"}));
  auto over = config_from_assignments(*k, {"x_format=f32_q8_1", "cols=4100", "batch=8"});
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().message.find("8192"), std::string::npos) << over.error().message;
  EXPECT_TRUE(config_from_assignments(*k, {"x_format=q8_1", "cols=4100", "batch=8"}));
  EXPECT_FALSE(config_from_assignments(*k, {"batch=0"}));
  EXPECT_FALSE(config_from_assignments(*k, {"batch=9"}));
  auto one = config_from_assignments(*k, {});
  auto four = config_from_assignments(*k, {"batch=4"});
  ASSERT_TRUE(one && four);
  EXPECT_NE(cache_key(*k, *one, "sm_90"), cache_key(*k, *four, "sm_90"));
}

TEST(Q4kGemvBatchPtx, EachWeightDecodedOnceForEveryVectorAndYAtVectorTimesRows) {
  // dp4a: batch 4 issues 4 dp4a per unpacked quant word, the integer sums read back through the
  // 1.5 * 2^23 bias instead of cvt; the nibble masks are batch 1's.
  for (const char* fmt : {"x_format=q8_1", "x_format=f32_q8_1"}) {
    const std::string one = q4k_ptx({"rows=4864", "cols=896", fmt, "rows_per_warp=4"});
    const std::string four = q4k_ptx({"rows=4864", "cols=896", fmt, "batch=4"});
    using test_util::count;
    EXPECT_EQ(count(four, "dp4a.u32.s32"), 4 * count(one, "dp4a.u32.s32")) << fmt;
    EXPECT_EQ(count(four, ", 252645135;"), count(one, ", 252645135;")) << fmt; // 0x0F0F0F0F
    EXPECT_EQ(count(four, "1262485504;"), count(four, "dp4a.u32.s32") / 4) << fmt;
    // Batch 1 converts each dp4a chain's sum with cvt; f32_q8_1's quantizer converts too, once
    // per vector.
    const std::size_t quantizer_cvt = count(one, "cvt.rn.f32.s32") - count(one, "dp4a.u32.s32") / 4;
    EXPECT_EQ(count(four, "cvt.rn.f32.s32"), 4 * quantizer_cvt) << fmt;
    EXPECT_NE(four.find(".minnctapersm 2"), std::string::npos) << fmt;
    // Vector m's y at m * 4864 floats.
    for (const char* at : {"+19456], ", "+38912], ", "+58368], "})
      EXPECT_NE(four.find(at), std::string::npos) << fmt << at;
    EXPECT_EQ(four.find("+77824], "), std::string::npos) << fmt;
  }
  // f32: one fma per nibble and vector (16 per half), plus 2 per half and vector.
  const std::string one = q4k_ptx({"rows=4864", "cols=896", "rows_per_warp=2"});
  const std::string four = q4k_ptx({"rows=4864", "cols=896", "batch=4"});
  EXPECT_EQ(test_util::count(four, "fma.rn.f32"), 4 * test_util::count(one, "fma.rn.f32"));
  EXPECT_EQ(test_util::count(four, ", 15;"), test_util::count(one, ", 15;")); // nibble masks
  // x of vector m at m * 896 floats.
  for (const char* at : {"+3584];", "+7168];", "+10752];"})
    EXPECT_NE(four.find(at), std::string::npos) << at;
}

TEST(Q4kGemvBatchBench, FourVectorsAtTheLlamaShapesFusedBackToBack) {
  for (const char* name : {"q4k_gemv_f32_q8_1_4096x4096_b4", "q4k_gemv_f32_q8_1_11008x4096_b4"}) {
    const auto cases = Q4kGemv::bench_cases();
    auto it = std::find_if(cases.begin(), cases.end(),
                           [&](const BenchCase& bc) { return bc.name == name; });
    ASSERT_NE(it, cases.end()) << name;
    EXPECT_TRUE(it->back_to_back);
    EXPECT_NE(std::find(it->sets.begin(), it->sets.end(), "batch=4"), it->sets.end());
    EXPECT_NE(std::find(it->sets.begin(), it->sets.end(), "x_format=f32_q8_1"), it->sets.end());
  }
}

} // namespace
} // namespace ptxkit::kernels
