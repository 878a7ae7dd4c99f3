// q8_0_gemv_reference.cpp: the Q8_0 codec (ggml's block_q8_0 bytes), the GEMV's CPU reference,
// launch contract, inputs, reference configs and bench cases.
//
// The reference reads the blocks byte by byte at 34 * (r * cols/32 + b) and sums in double
// d_w * d_x * (exact integer dot) per block, sharing nothing with the kernel's aligned windows.
#include "error_p.h"
#include "q8_0_gemv.h"

#include <algorithm>
#include <cstring>
#include <ptxkit/kernels/dtype.h>
#include <string>

namespace ptxkit::kernels {

namespace {
std::size_t block_byte(const Q8_0GemvConfig& c, std::size_t r, std::size_t b) {
  return r * c.row_bytes() + b * kQ8_0Bytes;
}
} // namespace

Q8_0Block q8_0_block(const Q8_0GemvConfig& c, const std::vector<std::uint32_t>& w_words,
                     std::size_t r, std::size_t b) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(w_words.data()) + block_byte(c, r, b);
  Q8_0Block out;
  out.d = f16_value(static_cast<std::uint16_t>(bytes[0] | (bytes[1] << 8)));
  std::memcpy(out.q, bytes + 2, kQ8_0Values);
  return out;
}

void q8_0_put_block(const Q8_0GemvConfig& c, std::vector<std::uint32_t>& w_words, std::size_t r,
                    std::size_t b, std::uint16_t d_bits, const std::int8_t* q) {
  auto* bytes = reinterpret_cast<std::uint8_t*>(w_words.data()) + block_byte(c, r, b);
  bytes[0] = static_cast<std::uint8_t>(d_bits & 0xff);
  bytes[1] = static_cast<std::uint8_t>(d_bits >> 8);
  std::memcpy(bytes + 2, q, kQ8_0Values);
}

std::vector<float> q8_0_gemv_reference(const Q8_0GemvConfig& c,
                                       const std::vector<std::uint32_t>& w_words,
                                       const std::vector<std::uint32_t>& x_q8) {
  std::vector<float> y(c.rows);
  std::vector<Q8_1Block> xb(c.blocks_per_row());
  for (std::size_t b = 0; b < xb.size(); ++b)
    xb[b] = q8_1_block(x_q8, b);
  for (std::size_t r = 0; r < c.rows; ++r) {
    double acc = 0.0;
    for (std::size_t b = 0; b < c.blocks_per_row(); ++b) {
      const Q8_0Block wb = q8_0_block(c, w_words, r, b);
      std::int64_t dot = 0;
      for (std::size_t l = 0; l < kQ8_0Values; ++l)
        dot += int{wb.q[l]} * int{xb[b].q[l]};
      acc += double{wb.d} * double{xb[b].d} * static_cast<double>(dot);
    }
    y[r] = static_cast<float>(acc);
  }
  return y;
}

std::vector<NamedConfig<Q8_0GemvConfig>> Q8_0Gemv::reference_configs() {
  return {
      {"llama", "Llama attention projection: 4096 x 4096 (row stride 4352 B, 16-byte aligned)",
       Config{.rows = 4096, .cols = 4096}},
      {"qwen05b", "Qwen2.5-0.5B FFN gate/up: 4864 x 896 (row stride 952 B: rows 8-byte aligned)",
       Config{.rows = 4864, .cols = 896}},
      {"llama_ffn", "Llama FFN gate/up: 11008 x 4096 (from 8192 rows: 4 rows per warp)",
       Config{.rows = 11008, .cols = 4096}},
  };
}

std::vector<BenchCase> Q8_0Gemv::bench_cases() {
  // Against llama.cpp's mmvq (Q8_0 x Q8_1, dp4a); the bytes are the weights' and x's Q8_1
  // blocks.
  auto gemv = [](std::uint32_t n, std::uint32_t k) {
    const std::string rows = std::to_string(n), cols = std::to_string(k);
    return BenchCase{.name = "q8_0_gemv_" + rows + "x" + cols,
                     .sets = {"rows=" + rows, "cols=" + cols},
                     .shape = "W " + rows + " x " + cols + " Q8_0 (34 B per 32 values), x Q8_1",
                     .target = BenchTarget{.min_pct_of_copy = 80,
                                           .qualifier = "on the weight + Q8_1 bytes; ggml's "
                                                        "Q8_0 mat-vec (mmvq)"},
                     .bytes = 34.0 * (k / 32) * n + 36.0 * (k / 32),
                     .flops = 2.0 * n * k,
                     .back_to_back = true};
  };
  return {gemv(4096, 4096), gemv(11008, 4096), gemv(14336, 4096), gemv(4096, 14336),
          gemv(128256, 4096)};
}

ptxkit::Expected<void> Q8_0Gemv::validate(const Config& c) {
  const std::uint32_t r = c.rows_per_warp_override;
  if (r != 0 && r != 1 && r != 2 && r != 4 && r != 8)
    return fail("rows_per_warp = " + std::to_string(r) + " is not 0 (automatic), 1, 2, 4 or 8");
  if (c.row_bytes() * c.rows >= (std::uint64_t{1} << 40))
    return fail("rows * cols / 32 * 34 = " + std::to_string(c.row_bytes() * c.rows) +
                " bytes of weights is beyond 2^40 (1 TiB)");
  return {};
}

LaunchDims Q8_0Gemv::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = (c.rows + c.rows_per_block() - 1) / c.rows_per_block();
  d.block[0] = kThreads;
  return d;
}

std::vector<ParamSpec> Q8_0Gemv::params(const Config& c) {
  return {
      {.name = "w_q8_0",
       .kind = ParamKind::kInput,
       .buffer = "w_q8_0",
       .elem = ElemType::kU32,
       .elems = static_cast<std::size_t>(c.w_words())},
      {.name = "x_q8",
       .kind = ParamKind::kInput,
       .buffer = "x_q8",
       .elem = ElemType::kU32,
       .elems = c.x_q8_words()},
      {.name = "y", .kind = ParamKind::kOutput, .buffer = "y", .elems = c.rows},
  };
}

HostTensors Q8_0Gemv::make_inputs(const Config& c, std::uint64_t seed) {
  // Random blocks of realistic magnitude: d in [0.002, 0.02) as f16, all 32 quants random int8
  // (-128 included, which ggml's quantizer never writes but dp4a must take); x uniform in
  // [-1, 1) quantized as quantize_q8_1 does. The 16-byte tail padding stays zero.
  InputRng rng(seed);
  HostTensors t;
  auto& words = t.u32["w_q8_0"];
  words.assign(static_cast<std::size_t>(c.w_words()), 0);
  std::int8_t q[kQ8_0Values];
  for (std::size_t r = 0; r < c.rows; ++r)
    for (std::size_t b = 0; b < c.blocks_per_row(); ++b) {
      const std::uint16_t d = f16_bits(rng.uniform(0.002f, 0.02f));
      for (auto& v : q)
        v = static_cast<std::int8_t>(rng.next_u64() & 0xff);
      q8_0_put_block(c, words, r, b, d, q);
    }
  const std::vector<float> x = rng.uniform_vector(c.cols, -1.0f, 1.0f);
  t.u32["x_q8"] = q8_1_quantize(x, c.x_q8_words() / kQ8_1Words);
  return t;
}

ptxkit::Expected<HostTensors> Q8_0Gemv::reference(const Config& c, const HostTensors& in) {
  auto w = in.u32.find("w_q8_0");
  auto xq = in.u32.find("x_q8");
  if (w == in.u32.end() || xq == in.u32.end())
    return fail("q8_0_gemv reference: inputs w_q8_0 and x_q8 (u32 words) are required");
  if (w->second.size() != c.w_words() || xq->second.size() != c.x_q8_words())
    return fail("q8_0_gemv reference: w_q8_0 has " + std::to_string(w->second.size()) +
                " words and x_q8 " + std::to_string(xq->second.size()) +
                "; expected ceil(rows * cols/32 * 34 / 16) * 4 = " + std::to_string(c.w_words()) +
                " and ceil(cols/512) * 16 * 9 = " + std::to_string(c.x_q8_words()));
  HostTensors out;
  out.f32["y"] = q8_0_gemv_reference(c, w->second, xq->second);
  return out;
}

} // namespace ptxkit::kernels
