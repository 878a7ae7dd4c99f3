// quantize_q8_1_test.cpp: the Q8_1 codec against blocks computed by hand (roundf's ties away
// from zero, d and s in f16, zero blocks, ggml's 512-value padding), the quantizer's limits,
// launch contract and generated PTX.
#include "kernel_test_util.h"
#include "quantize_q8_1/quantize_q8_1.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

std::string ptx_for(const std::vector<std::string>& sets) {
  return test_util::kernel_ptx("quantize_q8_1", sets);
}

TEST(Q8_1Codec, AHandBuiltBlockWithAmax127HasUnitScaleAndRoundsHalvesAwayFromZero) {
  // amax = 127: d = 1 and id = 1, so q = roundf(x) exactly.
  std::vector<float> x(32, 0.0f);
  x[0] = 127.0f, x[1] = -63.5f, x[2] = 0.5f, x[3] = -0.5f, x[4] = 2.5f, x[5] = 2.49f;
  x[6] = -1.25f, x[31] = 100.75f;
  auto words = q8_1_quantize(x, 1);
  ASSERT_EQ(words.size(), 9u);
  Q8_1Block blk = q8_1_block(words, 0);
  EXPECT_EQ(blk.d, 1.0f);
  const int expect[] = {127, -64, 1, -1, 3, 2, -1};
  for (int j = 0; j < 7; ++j)
    EXPECT_EQ(blk.q[j], expect[j]) << "value " << j;
  EXPECT_EQ(blk.q[31], 101);
  // Positive control: ties to even would give -64, 0, -0, 2 -- the 2.5 and 0.5 cases differ.
  EXPECT_EQ(std::nearbyint(2.5f), 2.0f);
  EXPECT_EQ(blk.s, 127 - 64 + 1 - 1 + 3 + 2 - 1 + 101); // d * sum(q), d = 1
  // ds: d in the low half, s in the high half of word 0; the quants byte by byte after it.
  EXPECT_EQ(words[0], 0x3C00u | (std::uint32_t{f16_bits(168.0f)} << 16));
  EXPECT_EQ(words[1], 0xFF01C07Fu); // bytes 127, -64 (0xC0), 1, -1 (0xFF), little-endian
}

TEST(Q8_1Codec, ScaleAndSumAreTheF32OperationsRoundedToF16) {
  // amax = 1: d = f32(1/127), id = f32(1/d); q = roundf(x * id); s = f16(f32(sum) * d).
  std::vector<float> x(32, 0.25f);
  x[7] = -1.0f;
  auto words = q8_1_quantize(x, 1);
  Q8_1Block blk = q8_1_block(words, 0);
  const float d = 1.0f / 127.0f;
  const float id = 1.0f / d;
  EXPECT_EQ(blk.d, f16_value(f16_bits(d)));
  EXPECT_EQ(blk.q[7], -127);
  EXPECT_EQ(blk.q[0], static_cast<int>(std::round(0.25f * id))); // 31.75 -> 32
  EXPECT_EQ(blk.q[0], 32);
  EXPECT_EQ(blk.s, f16_value(f16_bits(static_cast<float>(31 * 32 - 127) * d)));
}

TEST(Q8_1Codec, ZeroBlocksAndPaddingPastColsQuantizeToZero) {
  std::vector<float> x(40, 0.0f);
  for (std::size_t i = 32; i < 40; ++i)
    x[i] = static_cast<float>(i) - 35.0f; // -3 .. 4: amax 4
  auto words = q8_1_quantize(x, QuantizeQ8_1Config{.cols = 40}.blocks());
  ASSERT_EQ(words.size(), 16u * 9u); // 40 values pad to 512: 16 blocks
  EXPECT_EQ(words[0], 0u);           // block 0 all zero: d = s = 0, q = 0
  for (std::size_t w = 1; w < 9; ++w)
    EXPECT_EQ(words[w], 0u);
  Q8_1Block b1 = q8_1_block(words, 1);
  EXPECT_EQ(b1.q[7], 127); // x = 4 = amax
  for (int j = 8; j < 32; ++j)
    EXPECT_EQ(b1.q[j], 0) << "padding value " << j;
  for (std::size_t w = 18; w < words.size(); ++w)
    EXPECT_EQ(words[w], 0u) << "word " << w;
}

TEST(QuantizeQ8_1Reference, IsTheCodecAndChecksItsInput) {
  QuantizeQ8_1Config c{.cols = 896};
  HostTensors in = QuantizeQ8_1::make_inputs(c, 3);
  auto out = QuantizeQ8_1::reference(c, in);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->u32.at("x_q8"), q8_1_quantize(in.f32.at("x"), 32));
  // The inputs exercise zero blocks and ties.
  bool zero_block = false;
  for (std::size_t i = 0; i < 28; ++i)
    zero_block |= q8_1_block(out->u32.at("x_q8"), i).d == 0.0f;
  EXPECT_TRUE(zero_block);
  in.f32["x"].pop_back();
  auto bad = QuantizeQ8_1::reference(c, in);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("cols = 896"), std::string::npos);
  EXPECT_EQ(QuantizeQ8_1::tolerance(c, in).abs, 0.0);
  EXPECT_EQ(QuantizeQ8_1::tolerance(c, in).rel, 0.0);
}

TEST(QuantizeQ8_1Limits, ColsAMultipleOfFourAndTheContract) {
  const Kernel* k = KernelRegistry::find("quantize_q8_1");
  ASSERT_NE(k, nullptr);
  auto odd = config_from_assignments(*k, {"cols=30"});
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("multiple of 4"), std::string::npos) << odd.error().message;
  QuantizeQ8_1Config c{.cols = 4864};
  EXPECT_EQ(c.blocks(), 160u); // 5120 / 32
  auto p = QuantizeQ8_1::params(c);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].elems, 4864u);
  EXPECT_EQ(p[1].elem, ElemType::kU32);
  EXPECT_EQ(p[1].elems, 160u * 9u);
  EXPECT_EQ(QuantizeQ8_1::launch(c).grid[0], 5u); // 160 blocks * 8 lanes / 256
}

// The device's roundf (common/q8_1_quantize.h): a = |v| + 1/2 and a + 2^23, both rounded down,
// whose low 23 bits are |roundf(v)|, the sign applied as an integer. Emulated here with the
// rounding mode switched around each add (volatile, so the adds happen where the mode is set).
float add_round_down(float a, float b) {
  const int mode = std::fegetround();
  std::fesetround(FE_DOWNWARD);
  volatile float va = a, vb = b;
  const float sum = va + vb;
  volatile float result = sum;
  std::fesetround(mode);
  return result;
}
std::int32_t round_as_the_device_does(float v) {
  const float biased = add_round_down(add_round_down(std::fabs(v), 0.5f), 8388608.0f);
  const auto n = static_cast<std::int32_t>(std::bit_cast<std::uint32_t>(biased) & 0x7FFFFFu);
  const std::int32_t sign = std::bit_cast<std::int32_t>(v) < 0 ? -1 : 0;
  return (n ^ sign) - sign;
}

TEST(Q8_1Rounding, TwoRoundedDownAddsGiveRoundfWithoutAConversion) {
  // Every half n + 1/2 and its neighbours, both signs, over the quantizer's range (|v| <= 127
  // plus a few ulps), then a sweep over the f32 bit patterns below 130. (Checked for every f32
  // below 2^22 when written.)
  auto check = [](float v) {
    ASSERT_EQ(round_as_the_device_does(v), static_cast<std::int32_t>(std::round(v))) << v;
    ASSERT_EQ(round_as_the_device_does(-v), static_cast<std::int32_t>(std::round(-v))) << -v;
  };
  for (int n = 0; n <= 130; ++n) {
    const float half = static_cast<float>(n) + 0.5f;
    check(half);
    check(std::nextafter(half, 0.0f));
    check(std::nextafter(half, 200.0f));
    check(static_cast<float>(n));
  }
  check(std::nextafter(0.5f, 0.0f)); // 0.49999997: a single round-to-nearest add gives 1
  const std::uint32_t end = std::bit_cast<std::uint32_t>(130.0f);
  for (std::uint32_t u = 0; u < end; u += 4099)
    check(std::bit_cast<float>(u));
  // Positive control: one add to nearest instead of down rounds 0.49999997 up.
  volatile float just_below_half = std::nextafter(0.5f, 0.0f);
  EXPECT_EQ(just_below_half + 0.5f, 1.0f);
}

TEST(QuantizeQ8_1Ptx, CorrectlyRoundedOperationsAndNoTiesToEvenRounding) {
  const std::string ptx = ptx_for({"cols=896"});
  for (const char* op : {"div.rn.f32", "rcp.rn.f32", "mul.rn.f32", "add.rm.f32", "cvt.rn.f16x2.f32",
                         "prmt.b32", "ld.global.nc.v4.f32", "max.f32"})
    EXPECT_NE(ptx.find(op), std::string::npos) << op;
  EXPECT_EQ(ptx.find("cvt.rni"), std::string::npos); // ties to even is not roundf
  // roundf takes no conversion instruction (two add.rm and integer operations).
  EXPECT_EQ(ptx.find("cvt.rzi"), std::string::npos);
  EXPECT_EQ(ptx.find("div.approx"), std::string::npos);
  EXPECT_EQ(ptx.find("div.full"), std::string::npos);
}

} // namespace
} // namespace ptxkit::kernels
