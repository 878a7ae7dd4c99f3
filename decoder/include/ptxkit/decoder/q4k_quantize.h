// q4k_quantize.h: f32 weights to GGUF Q4_K, the format q4k_gemv reads (ggml's block_q4_K).
//
// A super-block holds 256 values of one row in 144 bytes: f16 d and dmin, twelve bytes packing
// eight 6-bit scales sc_j and eight 6-bit mins m_j (one per 32-value sub-block j), and 128 bytes
// of 4-bit quants; a value decodes as d * sc_j * q - dmin * m_j.
//
// The quantizer covers each sub-block's range exactly, so its error has a bound that holds for
// every value rather than on average: for sub-block j with values in [lo_j, hi_j] (lo_j <= 0),
//   dmin = f16 at or above max_j(-lo_j) / 63,  m_j = ceil(-lo_j / dmin)      (dmin m_j >= -lo_j)
//   r_j = (hi_j + dmin m_j) / 15,  d = f16 at or above max_j r_j / 63,  sc_j = ceil(r_j / d)
// so every value lies in [-dmin m_j, -dmin m_j + 15 d sc_j] and rounds to the nearest of 16 levels
// d sc_j apart: |x - x'| <= d sc_j / 2 <= (r_j + d) / 2. Rows are padded to a multiple of 256 with
// zeros (q4k_gemv never reads past cols).
#pragma once

#include <cstdint>
#include <ptxkit/ptxgen/expected.h>
#include <span>
#include <vector>

namespace ptxkit::decoder {

inline constexpr std::uint32_t kQ4kBlockValues = 256;
inline constexpr std::uint32_t kQ4kBlockBytes = 144;

// One super-block: 256 finite values to 144 bytes.
void q4k_quantize_block(std::span<const float, kQ4kBlockValues> x,
                        std::span<std::uint8_t, kQ4kBlockBytes> out);

// A rows x cols matrix (row-major) to q4k_gemv's w_q4k words: per row ceil(cols / 256)
// super-blocks of 36 words. Non-finite values, or a scale beyond f16, are an error naming the row.
[[nodiscard]] Expected<std::vector<std::uint32_t>>
q4k_quantize(std::span<const float> w, std::uint32_t rows, std::uint32_t cols);

} // namespace ptxkit::decoder
