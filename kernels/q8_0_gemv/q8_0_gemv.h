// q8_0_gemv.h: GEMV with ggml Q8_0 weights and Q8_1 x, y = W x (config, launch contract,
// reference, Q8_0 block codec).
//
// W [rows, cols] is ggml's block_q8_0 row by row, cols / 32 blocks of 34 bytes per row, rows
// contiguous (row stride 34 * cols / 32 bytes, no per-row padding):
//   bytes 0-1   d  (f16)   the block's scale
//   bytes 2-33  qs[32]     int8, value = d * q
// The weight buffer is passed as u32 words (little-endian bytes), 16-byte aligned, holding the
// rows' bytes and then zeros up to the next multiple of 16 bytes (the kernel reads whole aligned
// 16-byte chunks; the zeros are never used). x is ggml Q8_1 blocks (quantize_q8_1's output: its
// ceil(cols/512)*16 blocks, 9 u32 words each, 16-byte aligned).
//
// Result as ggml's mmvq (vec_dot_q8_0_q8_1): y[r] = sum over blocks b of
// (d_w[b] * d_x[b]) * f32(dot(q_w[b], q_x[b])), the integer dot exact (dp4a), combined in f32.
//
// Blocks are only 2-byte aligned. A lane takes one block of every row of its warp's batch per
// step and reads it as three 16-byte-aligned ld.global.nc.v4.u32 (the 48-byte window from the
// block's start rounded down to 16 bytes always holds its 34 bytes): the window's 12 words are
// shifted by (offset % 16) / 4 words (two selp levels), and the quants realigned by 0 or 2 bytes
// with prmt, the selector chosen per lane from bit 1 of the offset (d is the low or high half of
// the first word). x's block (36 bytes, offset 4 * (j % 4) mod 16) is read the same way, once per
// step and shared by the batch's rows. 256 threads; a warp computes R = rows_per_warp() rows,
// lane l taking blocks l, l + 32, ... of each; the last step (cols / 32 not a multiple of 32)
// clamps the block to the row's last and zeroes d_x for lanes past it. Row sums by shfl.down.
#pragma once

#include "quantize_q8_1/quantize_q8_1.h"

#include <array>
#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

inline constexpr std::uint32_t kQ8_0Values = 32;
inline constexpr std::uint32_t kQ8_0Bytes = 34;

struct Q8_0GemvConfig {
  std::uint32_t rows = 4864;
  std::uint32_t cols = 896;
  std::uint32_t rows_per_warp_override = 0;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("rows", c.rows,
            FieldSpec{.doc = "rows of W and elements of y (N)", .min = 1.0, .max = 16777216.0});
    v.field("cols", c.cols,
            FieldSpec{.doc = "columns of W and elements of x (K), a multiple of 32 (whole Q8_0 "
                             "blocks)",
                      .min = 32.0,
                      .max = 1048576.0,
                      .multiple_of = 32});
    v.field("rows_per_warp", c.rows_per_warp_override,
            FieldSpec{.doc = "rows a warp computes with one x slice: 1, 2, 4 or 8; 0 = chosen "
                             "from the shape (rows_per_warp())",
                      .min = 0.0,
                      .max = 8.0});
  }

  [[nodiscard]] std::uint32_t blocks_per_row() const { return cols / kQ8_0Values; }
  [[nodiscard]] std::uint64_t row_bytes() const {
    return std::uint64_t{blocks_per_row()} * kQ8_0Bytes;
  }
  // The weight buffer: the rows' bytes padded to a multiple of 16, as u32 words.
  [[nodiscard]] std::uint64_t w_words() const { return (row_bytes() * rows + 15) / 16 * 4; }
  // Q8_1 words of x: quantize_q8_1's padded output (a multiple of 16 blocks, so every 16-byte
  // chunk the kernel reads is inside it).
  [[nodiscard]] std::uint32_t x_q8_words() const {
    return q8_1_padded_cols(cols) / kQ8_1Values * kQ8_1Words;
  }
  // Steps of 32 blocks (one per lane) along a row.
  [[nodiscard]] std::uint32_t steps() const { return (blocks_per_row() + 31) / 32; }
  // 4 rows per warp from 8192 rows (still >= 15 warps per SM of a 132-SM GPU), else 1: more
  // rows share x and put more bytes in flight per lane; below 8192 rows the warps' number
  // matters more (measured on the H200: 4096 rows, 1 row per warp ahead of 2 and 4).
  [[nodiscard]] std::uint32_t rows_per_warp() const {
    if (rows_per_warp_override != 0) return rows_per_warp_override;
    return rows >= 8192 ? 4 : 1;
  }
  [[nodiscard]] std::uint32_t rows_per_block() const { return rows_per_warp() * 8; }
};

struct Q8_0Gemv {
  PTXKIT_KERNEL_FUNCTIONS(Q8_0GemvConfig);
  static constexpr std::string_view kName = "q8_0_gemv";
  static constexpr std::string_view kSummary =
      "Q8_0 GEMV y = W x with ggml Q8_0 weights (34-byte blocks) and Q8_1 x, dp4a integer dots "
      "combined in f32 as ggml's mmvq; 16-byte aligned window loads realigned with prmt, 1-8 "
      "rows per warp sharing x";
  static constexpr std::string_view kLimits =
      "cols a multiple of 32 in [32, 1048576]; rows in [1, 2^24]; weights rows * cols / 32 * 34 "
      "bytes below 2^40, 16-byte aligned and padded with zeros to a multiple of 16 bytes; x the "
      "ceil(cols/512)*16 Q8_1 blocks of quantize_q8_1, 16-byte aligned";
  static constexpr std::uint32_t kWarps = 8;
  static constexpr std::uint32_t kThreads = kWarps * 32;

  // The integer dots are exact and the reference uses the same products d_w * d_x (exact in
  // double; one f32 rounding on the device) and the same quantized x, so only the f32
  // combination errs: per block, the rounding of d_w*d_x and of the fma, then the lanes' sums
  // and the warp tree: relative 2^-24 per term over ~cols/32 terms plus log2(32) tree levels.
  // Bound: abs 2e-7 * sum |term| <= 2e-7 * cols * max|d_w q_w| * max|d_x q_x|; with the test
  // inputs (|w| <= 127*0.02, |x| <= 1) abs 1e-6 * cols covers it.
  static Tolerance tolerance(const Config& c, const HostTensors&) {
    return {1e-6 * c.cols, 2e-5,
            "abs 1e-6 * cols: exact dp4a dots of the same Q8_1 x, f32 products d_w*d_x and "
            "f32 sums of cols/32 block terms"};
  }
  static std::vector<BenchCase> bench_cases();
};

// One decoded Q8_0 block.
struct Q8_0Block {
  float d = 0; // the f16 d, widened
  std::int8_t q[kQ8_0Values] = {};
};
// Block `b` of row `r` of a weight buffer (u32 words, ggml's bytes).
Q8_0Block q8_0_block(const Q8_0GemvConfig& c, const std::vector<std::uint32_t>& w_words,
                     std::size_t r, std::size_t b);
// Writes a block's 34 bytes (d as f16 bits) at block `b` of row `r`.
void q8_0_put_block(const Q8_0GemvConfig& c, std::vector<std::uint32_t>& w_words, std::size_t r,
                    std::size_t b, std::uint16_t d_bits, const std::int8_t* q);

// y = W x in double, per block d_w * d_x * (exact integer dot), as ggml's vec_dot_q8_0_q8_1.
std::vector<float> q8_0_gemv_reference(const Q8_0GemvConfig& c,
                                       const std::vector<std::uint32_t>& w_words,
                                       const std::vector<std::uint32_t>& x_q8);

} // namespace ptxkit::kernels
