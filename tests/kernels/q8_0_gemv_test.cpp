// q8_0_gemv_test.cpp: the Q8_0 codec against ggml's byte layout (34-byte blocks, rows not
// 4-byte aligned), the reference against hand-computed blocks, limits, launch contract and the
// PTX's dp4a and 16-byte loads.
#include "kernel_test_util.h"
#include "q8_0_gemv/q8_0_gemv.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

std::string q8_0_ptx(const std::vector<std::string>& sets) {
  return test_util::kernel_ptx("q8_0_gemv", sets);
}

TEST(Q8_0Codec, BlocksSitAt34ByteStridesInGgmlsOrder) {
  // 3 rows of 1 block: row 1 starts at byte 34 (2 mod 4), row 2 at byte 68.
  Q8_0GemvConfig c{.rows = 3, .cols = 32};
  EXPECT_EQ(c.row_bytes(), 34u);
  EXPECT_EQ(c.w_words(), 28u); // 102 bytes padded to 112
  std::vector<std::uint32_t> w(c.w_words(), 0);
  std::int8_t q[32];
  for (int i = 0; i < 32; ++i)
    q[i] = static_cast<std::int8_t>(i - 16);
  q8_0_put_block(c, w, 1, 0, 0x3800, q); // d = 0.5
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(w.data());
  EXPECT_EQ(bytes[34], 0x00); // d, little-endian f16
  EXPECT_EQ(bytes[35], 0x38);
  EXPECT_EQ(static_cast<std::int8_t>(bytes[36]), -16); // qs[0]
  EXPECT_EQ(static_cast<std::int8_t>(bytes[67]), 15);  // qs[31]
  EXPECT_EQ(bytes[33], 0);
  EXPECT_EQ(bytes[68], 0);
  const Q8_0Block b = q8_0_block(c, w, 1, 0);
  EXPECT_EQ(b.d, 0.5f);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(b.q[i], i - 16);
}

TEST(Q8_0GemvReference, AHandBuiltBlockAgainstOneQuantizedValue) {
  // x = 2 at value 40 (Q8_1 block 1, q = 127, d_x = f16(2/127)); row 1, block 1 has d_w = 0.25
  // and q[8] = -3, row 0 zeros.
  Q8_0GemvConfig c{.rows = 2, .cols = 64};
  HostTensors in;
  in.u32["w_q8_0"].assign(c.w_words(), 0);
  std::int8_t q[32] = {};
  q[8] = -3;
  q[9] = 100; // meets x = 0
  q8_0_put_block(c, in.u32["w_q8_0"], 1, 1, 0x3400, q);
  std::vector<float> x(64, 0.0f);
  x[40] = 2.0f;
  in.u32["x_q8"] = q8_1_quantize(x, c.x_q8_words() / kQ8_1Words);
  const Q8_1Block xb = q8_1_block(in.u32["x_q8"], 1);
  ASSERT_EQ(xb.q[8], 127);
  auto y = Q8_0Gemv::reference(c, in)->f32.at("y");
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_FLOAT_EQ(y[1], static_cast<float>(0.25 * double{xb.d} * (-3 * 127)));
  // Positive control: d_x is the f16 of 2/127, not 2/127 itself; the product differs.
  EXPECT_NE(xb.d, 2.0f / 127.0f);
}

TEST(Q8_0GemvReference, MatchesDequantizedDotProducts) {
  // On ggml's dequantized values (d_w*q_w, d_x*q_x) the f32-free double sum agrees; a changed
  // quant moves it (positive control).
  Q8_0GemvConfig c{.rows = 5, .cols = 96};
  HostTensors in = Q8_0Gemv::make_inputs(c, 3);
  auto y = Q8_0Gemv::reference(c, in)->f32.at("y");
  auto direct = [&](const std::vector<std::uint32_t>& w) {
    std::vector<double> out(c.rows, 0.0);
    for (std::size_t r = 0; r < c.rows; ++r)
      for (std::size_t k = 0; k < c.cols; ++k) {
        const Q8_0Block wb = q8_0_block(c, w, r, k / 32);
        const Q8_1Block xb = q8_1_block(in.u32.at("x_q8"), k / 32);
        out[r] += double{wb.d} * wb.q[k % 32] * double{xb.d} * xb.q[k % 32];
      }
    return out;
  };
  const auto d = direct(in.u32.at("w_q8_0"));
  for (std::size_t r = 0; r < c.rows; ++r)
    EXPECT_NEAR(y[r], d[r], 1e-6 * std::fabs(d[r]) + 1e-7) << "row " << r;
  auto w2 = in.u32.at("w_q8_0");
  reinterpret_cast<std::uint8_t*>(w2.data())[34 * 4 + 2 + 5] ^= 0x40; // row 1, block 1, q[5]
  const auto d2 = direct(w2);
  EXPECT_GT(std::fabs(d2[1] - y[1]), 1e-4);
}

TEST(Q8_0GemvContract, BuffersLaunchAndLimits) {
  Q8_0GemvConfig c{.rows = 4864, .cols = 896};
  auto p = Q8_0Gemv::params(c);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].name, "w_q8_0");
  EXPECT_EQ(p[0].elem, ElemType::kU32);
  EXPECT_EQ(p[0].elems, 4864u * 952u / 4u); // 952-byte rows, a multiple of 16 in all
  EXPECT_EQ(p[1].name, "x_q8");
  EXPECT_EQ(p[1].elem, ElemType::kU32);
  EXPECT_EQ(p[1].elems, 32u * 9u); // 896 padded to 1024: 32 Q8_1 blocks
  EXPECT_EQ(p[2].elems, 4864u);
  EXPECT_EQ(c.rows_per_warp(), 1u);
  EXPECT_EQ(Q8_0Gemv::launch(c).grid[0], 608u);
  EXPECT_EQ(Q8_0Gemv::launch(c).block[0], 256u);
  EXPECT_EQ((Q8_0GemvConfig{.rows = 11008, .cols = 4096}.rows_per_warp()), 4u);
  HostTensors in = Q8_0Gemv::make_inputs(c, 1);
  in.u32["w_q8_0"].pop_back();
  auto bad = Q8_0Gemv::reference(c, in);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("w_q8_0"), std::string::npos);

  const Kernel* k = KernelRegistry::find("q8_0_gemv");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(config_from_assignments(*k, {"cols=48"}));         // not whole blocks
  EXPECT_FALSE(config_from_assignments(*k, {"rows_per_warp=3"})); // not a power of two
  EXPECT_FALSE(config_from_assignments(*k, {"rows=0"}));          // below the limit
  auto a = config_from_assignments(*k, {"rows_per_warp=2"});
  auto b2 = config_from_assignments(*k, {"rows_per_warp=4"});
  ASSERT_TRUE(a && b2);
  EXPECT_NE(cache_key(*k, *a, "sm_90"), cache_key(*k, *b2, "sm_90"));
}

TEST(Q8_0GemvPtx, Dp4aOnSignedBytesAnd16ByteLoads) {
  for (const char* cols : {"cols=896", "cols=4096", "cols=32"}) {
    const std::string ptx = q8_0_ptx({cols});
    EXPECT_NE(ptx.find("dp4a.s32.s32"), std::string::npos) << cols;
    EXPECT_NE(ptx.find("ld.global.nc.v4.u32"), std::string::npos) << cols;
    EXPECT_NE(ptx.find("prmt.b32"), std::string::npos) << cols;         // the 2-byte realignment
    EXPECT_EQ(ptx.find("ld.global.nc.u32"), std::string::npos) << cols; // no scalar word loads
    EXPECT_EQ(ptx.find("ld.global.nc.f32"), std::string::npos) << cols;
  }
}

} // namespace
} // namespace ptxkit::kernels
