// q4k_quantize.cpp: the range-covering Q4_K quantizer (q4k_quantize.h gives the construction and
// its error bound).
#include "ptxkit/decoder/q4k_quantize.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <ptxkit/kernels/dtype.h>
#include <string>

namespace ptxkit::decoder {
namespace {

constexpr int kSubBlocks = 8;
constexpr int kSubValues = 32;

// The smallest f16 value at or above v >= 0 (so that 63 codes of it still reach v).
std::uint16_t f16_at_or_above(float v) {
  std::uint16_t h = kernels::f16_bits(v);
  if (kernels::f16_value(h) < v) ++h; // positive f16 bit patterns are ordered like their values
  return h;
}

// Packs sub-block j's 6-bit scale and min as ggml's get_scale_min_k4 unpacks them.
void pack_scale_min(int j, std::uint8_t sc, std::uint8_t m, std::uint8_t* q) {
  if (j < 4) {
    q[j] = static_cast<std::uint8_t>((q[j] & 0xC0) | sc);
    q[j + 4] = static_cast<std::uint8_t>((q[j + 4] & 0xC0) | m);
  } else {
    q[j + 4] = static_cast<std::uint8_t>((sc & 0xF) | ((m & 0xF) << 4));
    q[j - 4] = static_cast<std::uint8_t>((q[j - 4] & 0x3F) | ((sc >> 4) << 6));
    q[j] = static_cast<std::uint8_t>((q[j] & 0x3F) | ((m >> 4) << 6));
  }
}

std::uint8_t code_at_or_above(float need, float unit) {
  if (unit <= 0 || need <= 0) return 0;
  const float c = std::ceil(need / unit);
  return static_cast<std::uint8_t>(std::clamp(c, 0.0f, 63.0f));
}

} // namespace

void q4k_quantize_block(std::span<const float, kQ4kBlockValues> x,
                        std::span<std::uint8_t, kQ4kBlockBytes> out) {
  std::array<float, kSubBlocks> lo{}, hi{};
  for (int j = 0; j < kSubBlocks; ++j) {
    const auto sub = x.subspan(static_cast<std::size_t>(j * kSubValues), kSubValues);
    lo[j] = std::min(0.0f, *std::min_element(sub.begin(), sub.end()));
    hi[j] = *std::max_element(sub.begin(), sub.end());
  }
  float max_neg_lo = 0;
  for (float l : lo)
    max_neg_lo = std::max(max_neg_lo, -l);
  const std::uint16_t dmin_bits = f16_at_or_above(max_neg_lo / 63);
  const float dmin = kernels::f16_value(dmin_bits);
  std::array<std::uint8_t, kSubBlocks> m{}, sc{};
  std::array<float, kSubBlocks> offset{}, need{};
  float max_need = 0;
  for (int j = 0; j < kSubBlocks; ++j) {
    m[j] = code_at_or_above(-lo[j], dmin);
    offset[j] = dmin * m[j];
    need[j] = std::max(0.0f, (hi[j] + offset[j]) / 15);
    max_need = std::max(max_need, need[j]);
  }
  const std::uint16_t d_bits = f16_at_or_above(max_need / 63);
  const float d = kernels::f16_value(d_bits);
  std::memset(out.data(), 0, out.size());
  out[0] = static_cast<std::uint8_t>(d_bits & 0xff);
  out[1] = static_cast<std::uint8_t>(d_bits >> 8);
  out[2] = static_cast<std::uint8_t>(dmin_bits & 0xff);
  out[3] = static_cast<std::uint8_t>(dmin_bits >> 8);
  std::uint8_t* scales = out.data() + 4;
  std::uint8_t* qs = out.data() + 16;
  for (int j = 0; j < kSubBlocks; ++j) {
    sc[j] = code_at_or_above(need[j], d);
    pack_scale_min(j, sc[j], m[j], scales);
  }
  // Sub-blocks 2g and 2g+1 share 32 bytes: low nibbles the first, high nibbles the second.
  for (int j = 0; j < kSubBlocks; ++j) {
    const float step = d * sc[j];
    for (int l = 0; l < kSubValues; ++l) {
      const float v = x[static_cast<std::size_t>(j * kSubValues + l)];
      const float q = step > 0 ? std::nearbyint((v + offset[j]) / step) : 0.0f;
      const auto nibble = static_cast<std::uint8_t>(std::clamp(q, 0.0f, 15.0f));
      std::uint8_t& byte = qs[32 * (j / 2) + l];
      byte = static_cast<std::uint8_t>(j % 2 == 0 ? (byte & 0xF0) | nibble
                                                  : (byte & 0x0F) | (nibble << 4));
    }
  }
}

Expected<std::vector<std::uint32_t>> q4k_quantize(std::span<const float> w, std::uint32_t rows,
                                                  std::uint32_t cols) {
  if (w.size() != std::size_t{rows} * cols)
    return Error{.message = "q4k_quantize: " + std::to_string(w.size()) + " values given for a " +
                            std::to_string(rows) + " x " + std::to_string(cols) + " matrix",
                 .file = {}};
  const std::size_t blocks = (cols + kQ4kBlockValues - 1) / kQ4kBlockValues;
  const std::size_t row_words = blocks * kQ4kBlockBytes / 4;
  std::vector<std::uint32_t> words(rows * row_words);
  std::array<float, kQ4kBlockValues> x{};
  std::array<std::uint8_t, kQ4kBlockBytes> block{};
  // A magnitude whose scales surely fit f16 (a range of 2 x limit needs d <= 65504 / 2).
  const float limit = 65504.0f * 63 * 15 / 4;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t b = 0; b < blocks; ++b) {
      x.fill(0.0f);
      const std::size_t begin = b * kQ4kBlockValues;
      const std::size_t n = std::min<std::size_t>(kQ4kBlockValues, cols - begin);
      for (std::size_t i = 0; i < n; ++i) {
        const float v = w[r * cols + begin + i];
        if (!std::isfinite(v) || std::fabs(v) > limit)
          return Error{.message = "q4k_quantize: row " + std::to_string(r) + ", column " +
                                  std::to_string(begin + i) + " holds " + std::to_string(v) +
                                  ", which Q4_K cannot represent",
                       .file = {}};
        x[i] = v;
      }
      q4k_quantize_block(x, block);
      std::memcpy(words.data() + r * row_words + b * (kQ4kBlockBytes / 4), block.data(),
                  block.size());
    }
  }
  return words;
}

} // namespace ptxkit::decoder
