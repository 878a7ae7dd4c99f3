// quantize_q8_1.h: f32 activations to ggml's Q8_1 blocks (config, launch contract, reference and
// the host codec the quantized GEMVs' references share).
//
// A Q8_1 block holds 32 values in 36 bytes (9 u32 words, little-endian):
//   bytes 0-1   d   (f16)  amax / 127, amax the block's largest |x|
//   bytes 2-3   s   (f16)  d * sum(q), the sum of the block's dequantized values
//   bytes 4-35  q[32]      int8, q = roundf(x / d) computed as roundf(x * (1/d)) (0 when d = 0)
// exactly as ggml's quantize_row_q8_1_ref: d = amax / 127 in f32, id = 1 / d, q = roundf(x * id)
// (halfway cases away from zero), s = f16(f32(sum q) * d), d and s rounded to f16 to nearest even.
// (ggml's CUDA quantizer computes q as roundf(x / d) and stores s = sum(x) instead; the CPU
// reference's s = d * sum(q) is the block's exact dequantized sum, which the Q4_K min term needs.)
// The output is padded as ggml pads activations for its quantized GEMVs (MATRIX_ROW_PADDING):
// ceil(cols / 512) * 16 blocks, values at or past cols quantized as 0 (q = 0, d = s = 0 for a
// block wholly past cols). Any GEMV whose rows are padded to 32, 256 or 512 values reads a prefix.
//
// 256 threads, 8 lanes per block: lane p of a block loads x[32*blk + 4p .. +3] as one float4 (a
// float4 at or past cols is read from cols - 4 and zeroed), the block's amax and integer sum
// are butterfly reductions over the 8 lanes (max is exact, the sum of integers too), and lane p
// stores quant word p (prmt packs the four bytes); lane 0 also stores the ds word.
#pragma once

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <span>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

inline constexpr std::uint32_t kQ8_1Values = 32; // values per block
inline constexpr std::uint32_t kQ8_1Words = 9;   // u32 words per block (36 bytes)
inline constexpr std::uint32_t kQ8_1RowPadding = 512;

// ggml's padded activation length: ceil(cols / 512) * 512.
[[nodiscard]] constexpr std::uint32_t q8_1_padded_cols(std::uint32_t cols) {
  return (cols + kQ8_1RowPadding - 1) / kQ8_1RowPadding * kQ8_1RowPadding;
}

struct QuantizeQ8_1Config {
  std::uint32_t cols = 896;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("cols", c.cols,
            FieldSpec{.doc = "elements of x; the output is ceil(cols/512)*16 Q8_1 blocks, zero "
                             "past cols (ggml's row padding)",
                      .min = 4.0,
                      .max = 16777216.0,
                      .multiple_of = 4});
  }
  [[nodiscard]] std::uint32_t blocks() const { return q8_1_padded_cols(cols) / kQ8_1Values; }
  [[nodiscard]] std::uint32_t words() const { return blocks() * kQ8_1Words; }
};

struct QuantizeQ8_1 {
  PTXKIT_KERNEL_FUNCTIONS(QuantizeQ8_1Config);
  static constexpr std::string_view kName = "quantize_q8_1";
  static constexpr std::string_view kSummary =
      "f32 x to ggml Q8_1 blocks (32 int8, f16 d = amax/127, f16 s = d*sum(q)), bit-exact to "
      "ggml's quantize_row_q8_1_ref, padded to 512 values with zeros";
  static constexpr std::string_view kLimits =
      "cols a multiple of 4 in [4, 2^24] (x is read as float4s, never at or past cols); x "
      "16-byte aligned; output ceil(cols/512)*16 blocks of 36 bytes, 4-byte aligned; values "
      "finite with every nonzero block amax >= 2^-120 (1/d stays finite)";
  static constexpr std::uint32_t kThreads = 256;

  // Bit-exact: the device does the reference's f32 operations in the same order, each rounded
  // to nearest (div.rn, rcp.rn, mul.rn, cvt.rn), and its integer sums are exact.
  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0.0, 0.0, "exact: the same f32 operations as the reference, integer sums"};
  }
};

// The format of a quantized GEMV's x: f32 values; ggml Q8_1 blocks (this kernel's output) with
// the dot products on dp4a; or f32 values quantized to Q8_1 inside the GEMV by each block
// (common/q8_1_quantize.h, bit-identical to this kernel's output), then the same dp4a path:
// llama.cpp's semantics in one launch. A config enum field ("f32", "q8_1", "f32_q8_1"), baked
// into the PTX.
enum class XFormat : std::uint32_t { kF32, kQ8_1, kF32Q8_1 };
std::span<const std::string_view> ptxkit_enum_names(XFormat);

// One decoded block.
struct Q8_1Block {
  float d = 0; // the f16 d, widened
  float s = 0; // the f16 s, widened
  std::int8_t q[kQ8_1Values] = {};
};

// ggml's quantize_row_q8_1_ref over x, padded with zeros to `blocks` blocks, as u32 words.
std::vector<std::uint32_t> q8_1_quantize(std::span<const float> x, std::size_t blocks);
// Block `i` of a Q8_1 buffer.
Q8_1Block q8_1_block(std::span<const std::uint32_t> words, std::size_t i);

} // namespace ptxkit::kernels
