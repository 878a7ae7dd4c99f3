// q4k_quantize_test.cpp: the decoder's Q4_K quantizer against the kernels' Q4_K dequantizer (the
// CPU reference of q4k_gemv): every value within the bound q4k_quantize.h derives, on weights of
// several shapes and magnitudes, and a corrupted block caught by the same check.
#include "q4k_gemv/q4k_gemv.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <ptxkit/decoder/q4k_quantize.h>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/host_tensors.h>

namespace ptxkit::decoder {
namespace {

// The largest |x - x'| over a quantized matrix, each value measured against its sub-block's
// bound (r_j + d) / 2 (r_j the level spacing the sub-block's range needs); returns the worst
// ratio error / bound, so <= 1 means every value is within its bound.
double worst_error_ratio(const std::vector<float>& w, std::uint32_t rows, std::uint32_t cols,
                         const std::vector<std::uint32_t>& words, double* rms_rel = nullptr) {
  const std::size_t blocks = (cols + 255) / 256;
  double worst = 0, err2 = 0, x2 = 0;
  std::vector<std::uint8_t> block(kQ4kBlockBytes);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t b = 0; b < blocks; ++b) {
      std::memcpy(block.data(), words.data() + (r * blocks + b) * 36, block.size());
      const auto y = kernels::q4k_dequantize_block(block.data());
      const double d = kernels::f16_value(static_cast<std::uint16_t>(block[0] | block[1] << 8));
      const double dmin = kernels::f16_value(static_cast<std::uint16_t>(block[2] | block[3] << 8));
      for (std::size_t j = 0; j < 8; ++j) {
        double lo = 0, hi = -1e30;
        for (std::size_t l = 0; l < 32; ++l) {
          const std::size_t c = b * 256 + j * 32 + l;
          const double v = c < cols ? w[r * cols + c] : 0.0;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        const double m = dmin > 0 ? std::ceil(-lo / dmin) : 0;
        const double need = std::max(0.0, (hi + dmin * m) / 15);
        const double bound = (need + d) / 2 * (1 + 1e-5) + 1e-30;
        for (std::size_t l = 0; l < 32; ++l) {
          const std::size_t c = b * 256 + j * 32 + l;
          if (c >= cols) continue;
          const double v = w[r * cols + c];
          const double e = std::fabs(v - y[j * 32 + l]);
          worst = std::max(worst, e / bound);
          err2 += e * e;
          x2 += v * v;
        }
      }
    }
  if (rms_rel) *rms_rel = x2 > 0 ? std::sqrt(err2 / x2) : 0;
  return worst;
}

std::vector<float> weights(std::uint32_t rows, std::uint32_t cols, float scale,
                           std::uint64_t seed) {
  kernels::InputRng rng(seed);
  std::vector<float> w(std::size_t{rows} * cols);
  for (auto& v : w) {
    // Roughly Gaussian (sum of uniforms) with a rare outlier, as trained weights look.
    float g = 0;
    for (int k = 0; k < 4; ++k)
      g += rng.uniform(-1.0f, 1.0f);
    v = scale * g * (rng.uniform(0.0f, 1.0f) < 0.002f ? 8.0f : 1.0f);
  }
  return w;
}

TEST(Q4kQuantize, EveryValueIsWithinItsSubBlockBound) {
  struct Shape {
    std::uint32_t rows, cols;
    float scale;
  };
  for (const Shape s : {Shape{4, 896, 0.02f}, Shape{3, 4864, 0.05f}, Shape{2, 300, 1.0f},
                        Shape{1, 256, 1e-4f}, Shape{5, 31, 3.0f}}) {
    SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.cols));
    const auto w = weights(s.rows, s.cols, s.scale, 7 + s.cols);
    auto q = q4k_quantize(w, s.rows, s.cols);
    ASSERT_TRUE(q) << q.error().message;
    EXPECT_EQ(q->size(), std::size_t{s.rows} * ((s.cols + 255) / 256) * 36);
    double rms = 0;
    EXPECT_LE(worst_error_ratio(w, s.rows, s.cols, *q, &rms), 1.0);
    // Sixteen levels over each sub-block's range: the error is a few percent of the weights.
    EXPECT_LT(rms, 0.12) << "relative rms error";
  }
}

TEST(Q4kQuantize, ConstantZeroAndOneSignedBlocksAreExactOrBounded) {
  std::vector<float> w(512, 0.0f);
  for (std::size_t i = 256; i < 512; ++i)
    w[i] = -0.5f - static_cast<float>(i % 7) * 0.01f; // all negative: the min carries it
  auto q = q4k_quantize(w, 1, 512);
  ASSERT_TRUE(q);
  std::vector<std::uint8_t> block(kQ4kBlockBytes);
  std::memcpy(block.data(), q->data(), block.size());
  for (double v : kernels::q4k_dequantize_block(block.data()))
    EXPECT_EQ(v, 0.0); // an all-zero block decodes to exact zeros
  EXPECT_LE(worst_error_ratio(w, 1, 512, *q), 1.0);
}

TEST(Q4kQuantize, ACorruptedBlockFailsTheBound) {
  const auto w = weights(2, 512, 0.02f, 99);
  auto q = q4k_quantize(w, 2, 512);
  ASSERT_TRUE(q);
  EXPECT_LE(worst_error_ratio(w, 2, 512, *q), 1.0);
  auto bad = *q;
  bad[36 + 4] ^= 0x00f00000u; // a byte of the second block's quants
  EXPECT_GT(worst_error_ratio(w, 2, 512, bad), 1.0);
  auto bad_scale = *q;
  bad_scale[1] ^= 0x3u; // low bits of scale bytes 4-5 of the first block
  EXPECT_GT(worst_error_ratio(w, 2, 512, bad_scale), 1.0);
}

TEST(Q4kQuantize, ValuesQ4kCannotHoldAreRefusedWithTheirPosition) {
  std::vector<float> w(512, 0.1f);
  w[300] = std::nanf("");
  auto q = q4k_quantize(w, 2, 256);
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().message.find("row 1, column 44"), std::string::npos) << q.error().message;
  w[300] = 1e30f;
  EXPECT_FALSE(q4k_quantize(w, 2, 256));
  EXPECT_FALSE(q4k_quantize(w, 3, 256)); // too few values for the shape
}

} // namespace
} // namespace ptxkit::decoder
