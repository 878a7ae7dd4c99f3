// q4k_gemv.h: GEMV with GGUF Q4_K weights, y = W x (config, launch contract, reference, Q4_K
// block codec).
//
// W [rows, cols] is quantized row by row in GGUF/ggml Q4_K super-blocks of 256 values, 144 bytes:
//   bytes 0-1    d     (f16)   scale of the sub-block scales
//   bytes 2-3    dmin  (f16)   scale of the sub-block mins
//   bytes 4-15   scales[12]    8 sub-blocks of 32 values, 6-bit scale and 6-bit min each, packed
//                              as ggml's get_scale_min_k4: for j < 4 sc = s[j] & 63,
//                              m = s[j+4] & 63; for j >= 4 sc = (s[j+4] & 15) | (s[j-4] >> 6) << 4,
//                              m = (s[j+4] >> 4) | (s[j] >> 6) << 4
//   bytes 16-143 qs[128]       4-bit quants: for each 64-value group g (32 bytes), the low nibbles
//                              are values 64g + 0..31 (sub-block 2g), the high nibbles values
//                              64g + 32..63 (sub-block 2g+1)
// value = d * sc * q - dmin * m. A row has ceil(cols / 256) super-blocks: the padded row stride is
// ceil(cols / 256) * 144 bytes (36 u32 words per super-block); the values of the last super-block
// past `cols` are padding, and the kernel never reads x past cols. The weight
// buffer is passed as u32 words (little-endian bytes), 16-byte aligned.
//
// 256 threads. The block's warps form row groups of S = step_split() warps; a row group computes
// a batch of R = rows_per_warp() rows, warp j of the group taking steps j, j+S, ... of them (the S
// partial sums of a row meet in shared memory); blocks stride over batches by the grid (capped at
// kMaxBlocks). Lane (group = lane / 8, part = lane % 8) takes bytes 16*part ..
// 16*part + 15 of the quants of super-block 4*i + group (one 16-byte load per row and step):
// 16 values of sub-block 2*(part/2) (low nibbles) and 16 of the next one (high nibbles); the x
// values it needs come in 8 float4 loads shared by every row of the batch, and when a row is a
// single step (cols <= 1024) they are loaded once per warp and kept in registers. A nibble is
// masked in place inside the mantissa of an f32 with a zero exponent -- the exact denormal
// q * 2^(bit-149) -- and multiplied in an fma with x pre-scaled by 2^(85-bit), so every product
// is q*x*2^-64 exactly and no int-to-float conversion is needed. Each lane decodes the 6-bit
// scale and min of sub-block `part` only; the two lanes that need them get them by shfl.idx.
// The last step, when cols is not a multiple of 1024, guards x: a float4 at or past cols is read
// from cols - 4 (in bounds) and zeroed; the super-block is clamped to the row's last.
//
// x_format = q8_1 (llama.cpp's quantized GEMV, ggml's vec_dot_q4_K_q8_1): x is ggml Q8_1 blocks
// (quantize_q8_1's output; at least ceil(cols/256)*8 blocks, values past cols quantized as 0,
// which ggml's 512-value padding satisfies), 9 u32 words per 32 values. The same lanes, rows and
// 16-byte weight loads; a lane's 16 low and 16 high nibbles meet the 16 int8 of x of the same
// sub-blocks in 8 dp4a (4 words of x each, exact int32 sums Q_j), and per sub-block j
//   y += d*sc_j * (d8_j * Q_j) - dmin*m_j * s_j / 2
// (two lanes share a sub-block; the halving is exact), with d8_j and s_j the Q8_1 block's f16
// d and s. ggml's mmq kernel uses s likewise; its mmvq kernel uses d8_j * sum(q) instead, which
// differs only by s's f16 rounding. The x words of a step (10 scalar loads: the Q8_1 blocks are
// only 4-byte aligned) are shared by the warp's rows like the f32 slice; the last step's lanes
// past the row's super-blocks read the last one and zero d8 and s.
//
// x_format = f32_q8_1 (f32 x quantized to Q8_1 in each block: llama.cpp's semantics in one
// launch, as ggml's MUL_MAT quantizes f32 x before its mat-vec): x is f32, and each block
// quantizes all of it into shared memory (common/q8_1_quantize.h, the quantize_q8_1 kernel's own
// arithmetic: the same Q8_1 values, bit for bit, zero past cols) before the q8_1 path's dp4a
// steps read their slices from there (three ld.shared.v4 per step instead of ten global loads).
// y equals the q8_1 path's on quantize_q8_1(x), bit for bit. A warp's first step is peeled: its
// rows' quant loads are issued before the quantization (one bar.sync after it, in the block's
// first batch only), so the x work runs under their DRAM latency; 2 lanes per Q8_1 block, 16
// values each. Shared memory: 320 bytes per super-block, so cols <= 32768.
//
// batch = M > 1 (a decoder stepping M sequences multiplies each weight matrix by M vectors; M
// launches would read the weights M times): x is [M, cols] f32 (vector m at m*cols), or with
// x_format = q8_1 M Q8_1 vectors back to back, vector m at m * x_q8_words() words (each laid out
// as quantize_q8_1 lays out one vector); y is [M, rows], vector m's at m*rows. Every weight word is
// loaded and decoded (header scales, nibbles) once and multiplied into M accumulators per row: M
// fmas per nibble (f32), M dp4a per quant word (q8_1, f32_q8_1). A step's x slice is loaded for
// all M vectors and shared by the warp's rows; a vector's sums follow batch 1's order exactly, so
// vector m's y is bitwise the y of a batch-1 launch on x[m] with the same split (the defaults
// differ: rows_per_warp() is smaller with several vectors). f32_q8_1 quantizes all M vectors
// into shared memory, each in its own region of whole 4096-value passes: batch *
// ceil(cols/4096) * 4096 <= 32768. The f32 path does M*cols fmas per row against 144 bytes per
// 256 weights, so from M = 4 on it is bound by the fma rate rather than by the weight bytes.
#pragma once

#include "common/gemv_batch.h"
#include "quantize_q8_1/quantize_q8_1.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct Q4kGemvConfig {
  std::uint32_t rows = 4864;
  std::uint32_t cols = 896;
  // Tuning overrides (0 = automatic): the launch shape the heuristics below would pick.
  std::uint32_t split = 0;
  std::uint32_t rows_per_warp_override = 0;
  XFormat x_format = XFormat::kF32;
  std::uint32_t batch = 1;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("rows", c.rows,
            FieldSpec{.doc = "rows of W and elements of y (N)", .min = 1.0, .max = 16777216.0});
    v.field("cols", c.cols,
            FieldSpec{.doc = "columns of W and elements of x (K); any multiple of 4, rows are "
                             "padded to whole 256-value super-blocks",
                      .min = 4.0,
                      .max = 1048576.0,
                      .multiple_of = 4});
    v.field("split", c.split,
            FieldSpec{.doc = "warps sharing a row's steps (split-K): 1, 2, 4 or 8; 0 = chosen "
                             "from the shape (step_split()); capped at the row's steps",
                      .min = 0.0,
                      .max = 8.0});
    v.field("rows_per_warp", c.rows_per_warp_override,
            FieldSpec{.doc = "rows a warp computes with one x slice: 1, 2, 4 or 8; 0 = chosen "
                             "from the shape (8 when a row takes several steps, else 4)",
                      .min = 0.0,
                      .max = 8.0});
    v.field("x_format", c.x_format,
            FieldSpec{.doc = "x as f32 values (f32); as ggml Q8_1 blocks (q8_1: quantize_q8_1's "
                             "output, ceil(cols/256)*8 blocks read) with dp4a dot products; or "
                             "as f32 values quantized to Q8_1 in each block (f32_q8_1: llama.cpp's "
                             "semantics in one launch, cols <= 32768)"});
    v.field("batch", c.batch, common::gemv_batch_field());
  }

  [[nodiscard]] std::uint32_t blocks_per_row() const { return (cols + 255) / 256; }
  // Steps of 4 super-blocks (1024 values) a warp makes along a row.
  [[nodiscard]] std::uint32_t steps() const { return (blocks_per_row() + 3) / 4; }
  // Warps sharing one row batch's steps (split-K), their partial sums meeting in shared
  // memory: 1 when a row is one step; else the smallest of 1, 2, 4, 8 (and at most the number of
  // steps) that still gives 2 blocks of 64 rows-per-split per SM of a 132-SM GPU -- split only
  // as far as parallelism needs, since a split that does not divide the steps idles warps.
  // With x_format = f32_q8_1 every block quantizes all of x, so the split stops before a block
  // would hold fewer than 16 rows (4096 x 14336: 4 warps, 256 blocks in one wave, instead of 8
  // and 512 blocks each quantizing 14336 values for 8 rows).
  // The `split` field overrides it (capped at the steps, rounded down to a power of two).
  [[nodiscard]] std::uint32_t step_split() const {
    const std::uint32_t s = steps();
    if (split != 0)
      return std::min<std::uint32_t>(split, std::bit_floor(std::min<std::uint32_t>(8, s)));
    const std::uint32_t max_split =
        x_format == XFormat::kF32Q8_1 ? std::max<std::uint32_t>(1, rows_per_warp() * 8 / 16) : 8;
    std::uint32_t chosen = 1;
    while (chosen * 2 <= std::min<std::uint32_t>(max_split, s) &&
           std::uint64_t{rows} * chosen < std::uint64_t{264} * 64)
      chosen *= 2;
    return chosen;
  }
  // Rows a warp computes together with one x slice in registers: 8 when a row takes several
  // steps (x is reloaded per step, so more rows share it), else 4. With batch > 1 the slices of
  // every vector and rows * batch accumulators share the registers: 4 rows (dp4a: 12 registers
  // of x per vector), 2 with f32 x (34 per vector). The `rows_per_warp` field overrides it.
  [[nodiscard]] std::uint32_t rows_per_warp() const {
    if (rows_per_warp_override != 0) return rows_per_warp_override;
    if (batch > 1) return x_format == XFormat::kF32 ? 2 : 4;
    return steps() > 1 ? 8 : 4;
  }
  [[nodiscard]] std::uint32_t rows_per_block() const { return rows_per_warp() * 8 / step_split(); }
  [[nodiscard]] std::uint32_t row_words() const { return blocks_per_row() * 36; } // u32 words
  // Q8_1 words of x the q8_1 path reads: 8 blocks of 9 words per super-block. With batch > 1 it
  // is also the stride of the vectors: vector m's blocks start at word m * x_q8_words().
  [[nodiscard]] std::uint32_t x_q8_words() const { return blocks_per_row() * 8 * kQ8_1Words; }
  // Values of one vector's region of f32_q8_1's shared Q8_1 copy: cols in whole passes of the
  // block's quantizer (4096 values); batch * fused_region_cols() <= 32768.
  [[nodiscard]] std::uint32_t fused_region_cols() const { return (cols + 4095) / 4096 * 4096; }
};

struct Q4kGemv {
  PTXKIT_KERNEL_FUNCTIONS(Q4kGemvConfig);
  static constexpr std::string_view kName = "q4k_gemv";
  static constexpr std::string_view kSummary =
      "Q4_K GEMV y = W x with GGUF Q4_K super-blocks (256 values, 144 bytes): 4-8 rows per warp "
      "sharing x in registers, steps split over warps for wide matrices, 16-byte loads, cols need "
      "not be a multiple of 256; batch 1-8 x vectors per launch, each weight read once";
  static constexpr std::string_view kLimits =
      "cols a multiple of 4 in [4, 1048576] (x is read as float4s; a row is padded to "
      "ceil(cols/256) super-blocks, row stride ceil(cols/256)*144 bytes); rows in [1, 2^24]; "
      "x is never read at or past cols; weights and x 16-byte aligned; with x_format=f32_q8_1 "
      "cols <= 32768 (x's Q8_1 copy lives in shared memory); batch in [1, 8] (x [batch, cols], "
      "y [batch, rows]; q8_1 vectors x_q8_words() apart), with f32_q8_1 batch * "
      "ceil(cols/4096) * 4096 <= 32768";
  static constexpr std::uint32_t kWarps = 8;
  static constexpr std::uint32_t kThreads = kWarps * 32;
  // Grid cap: blocks loop over row batches (grid-stride), so a warp keeps its x slice in
  // registers across batches when cols <= 1024 (a single step).
  static constexpr std::uint32_t kMaxBlocks = 1024;
  static constexpr std::uint32_t kBlockBytes = 144;
  // f32_q8_1 keeps x's Q8_1 copy in shared memory: 320 bytes per super-block.
  static constexpr std::uint32_t kMaxFusedCols = 32768;
  // With batch > 1: the occupancy bound given to ptxas (.minnctapersm), 128 registers a thread.
  static constexpr std::uint32_t kBatchedMinBlocksPerSm = 2;
  // f32_q8_1 with batch > 1: the grid's cap, the blocks resident at once on a 132-SM GPU (2 a
  // SM), since each block quantizes batch * cols values before its first rows.
  static constexpr std::uint32_t kFusedBatchedBlocks = 132 * kBatchedMinBlocksPerSm;

  // The error of a dot product grows with its length: abs 4e-7 per term. With Q8_1 x the
  // integer sums are exact and the reference uses the same quantized x, so only the f32
  // combination errs: a few roundings per 32-value sub-block term instead of one per value, well
  // inside the same bound. Each vector of a batch is its own dot product of cols terms, summed in
  // batch 1's order: the bound does not depend on batch.
  static Tolerance tolerance(const Config& c, const HostTensors&) {
    if (c.x_format == XFormat::kF32Q8_1)
      return {4e-7 * c.cols, 2e-5,
              "abs 4e-7 * cols: the q8_1 path's, against the Q8_1 reference on the reference's "
              "own quantization of x (bit-identical to the kernel's)"};
    if (c.x_format == XFormat::kQ8_1)
      return {4e-7 * c.cols, 2e-5,
              "abs 4e-7 * cols: exact dp4a sums of the same Q8_1 x, f32 combination per sub-block"};
    return {4e-7 * c.cols, 2e-5, "abs 4e-7 * cols: f32 dot products of dequantized weights"};
  }
  static std::vector<BenchCase> bench_cases();
};

// IEEE binary16 <-> binary32 (round to nearest even; subnormals, inf and NaN kept).
float q4k_half_to_float(std::uint16_t h);
std::uint16_t q4k_float_to_half(float f);

// ggml's get_scale_min_k4: the 6-bit scale and min of sub-block j (0..7) from the 12 packed bytes.
void q4k_scale_min(int j, const std::uint8_t* scales, std::uint8_t& sc, std::uint8_t& m);

// One 144-byte super-block to its 256 values (ggml's dequantize_row_q4_K), in double.
std::array<double, 256> q4k_dequantize_block(const std::uint8_t* block);

// y = W x in double from the packed rows (w_words: rows * row_words u32 words), x: cols floats.
std::vector<float> q4k_gemv_reference(const Q4kGemvConfig& c,
                                      const std::vector<std::uint32_t>& w_words,
                                      const std::vector<float>& x);
// The same with Q8_1 x (x_q8: at least ceil(cols/256)*8 blocks), as ggml's vec_dot_q4_K_q8_1
// in double: per sub-block j, d*sc_j*d8_j*(exact integer dot) - dmin*m_j*s_j.
std::vector<float> q4k_gemv_q8_1_reference(const Q4kGemvConfig& c,
                                           const std::vector<std::uint32_t>& w_words,
                                           const std::vector<std::uint32_t>& x_q8);

} // namespace ptxkit::kernels
