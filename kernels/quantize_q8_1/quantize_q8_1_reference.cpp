// quantize_q8_1_reference.cpp: the Q8_1 host codec (ggml's quantize_row_q8_1_ref, operation for
// operation in f32), the quantizer's reference, launch contract, inputs and reference configs.
#include "error_p.h"
#include "quantize_q8_1.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ptxkit/kernels/dtype.h>

namespace ptxkit::kernels {

namespace {
constexpr std::string_view kXFormatNames[] = {"f32", "q8_1", "f32_q8_1"};
} // namespace

std::span<const std::string_view> ptxkit_enum_names(XFormat) {
  return kXFormatNames;
}

std::vector<std::uint32_t> q8_1_quantize(std::span<const float> x, std::size_t blocks) {
  std::vector<std::uint32_t> words(blocks * kQ8_1Words, 0);
  for (std::size_t i = 0; i < blocks; ++i) {
    float v[kQ8_1Values];
    for (std::size_t j = 0; j < kQ8_1Values; ++j) {
      const std::size_t k = i * kQ8_1Values + j;
      v[j] = k < x.size() ? x[k] : 0.0f;
    }
    float amax = 0.0f;
    for (float e : v)
      amax = std::max(amax, std::fabs(e));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    std::int8_t q[kQ8_1Values];
    int sum = 0;
    for (std::size_t j = 0; j < kQ8_1Values; ++j) {
      q[j] = static_cast<std::int8_t>(std::round(v[j] * id)); // roundf: halves away from zero
      sum += q[j];
    }
    const float s = static_cast<float>(sum) * d;
    words[i * kQ8_1Words] =
        std::uint32_t{f16_bits(d)} | (std::uint32_t{f16_bits(s)} << 16); // ds: d low, s high
    std::memcpy(words.data() + i * kQ8_1Words + 1, q, sizeof q);
  }
  return words;
}

Q8_1Block q8_1_block(std::span<const std::uint32_t> words, std::size_t i) {
  Q8_1Block b;
  const std::uint32_t ds = words[i * kQ8_1Words];
  b.d = f16_value(static_cast<std::uint16_t>(ds & 0xffffu));
  b.s = f16_value(static_cast<std::uint16_t>(ds >> 16));
  std::memcpy(b.q, words.data() + i * kQ8_1Words + 1, sizeof b.q);
  return b;
}

std::vector<NamedConfig<QuantizeQ8_1Config>> QuantizeQ8_1::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5-0.5B hidden 896 (padded to 1024: two blocks-of-512, zeros past 896)",
       Config{.cols = 896}},
      {"qwen05b_ffn", "Qwen2.5-0.5B FFN 4864 (padded to 5120)", Config{.cols = 4864}},
      {"llama", "Llama hidden 4096", Config{.cols = 4096}},
  };
}

ptxkit::Expected<void> QuantizeQ8_1::validate(const Config&) {
  return {};
}

LaunchDims QuantizeQ8_1::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = (c.blocks() * 8 + kThreads - 1) / kThreads; // 8 lanes per block
  d.block[0] = kThreads;
  return d;
}

std::vector<ParamSpec> QuantizeQ8_1::params(const Config& c) {
  return {
      {.name = "x", .kind = ParamKind::kInput, .buffer = "x", .elems = c.cols},
      {.name = "x_q8",
       .kind = ParamKind::kOutput,
       .buffer = "x_q8",
       .elem = ElemType::kU32,
       .elems = c.words()},
  };
}

HostTensors QuantizeQ8_1::make_inputs(const Config& c, std::uint64_t seed) {
  // Activations of mixed magnitude: each 32-value block gets its own range (1e-3 .. 10), so d
  // spans several binades; one block in 17 is all zero (d = 0, id = 0) and some values sit on
  // exact halves of d (roundf's away-from-zero tie rule).
  InputRng rng(seed);
  HostTensors t;
  auto& x = t.f32["x"];
  x.resize(c.cols);
  for (std::size_t blk = 0; blk * kQ8_1Values < c.cols; ++blk) {
    const float range = std::ldexp(1.0f, static_cast<int>(rng.next_u64() % 14) - 10);
    const bool zero = blk % 17 == 5;
    for (std::size_t j = 0; j < kQ8_1Values && blk * kQ8_1Values + j < c.cols; ++j) {
      float v = zero ? 0.0f : rng.uniform(-range, range);
      // Every 7th value a tie: (n + 1/2) * range / 127 when the block's amax is range.
      if (!zero && j % 7 == 3)
        v = (static_cast<float>(rng.next_u64() % 100) + 0.5f) * (range / 127.0f);
      x[blk * kQ8_1Values + j] = v;
    }
    if (!zero && blk * kQ8_1Values < c.cols) x[blk * kQ8_1Values] = range; // amax = range
  }
  return t;
}

ptxkit::Expected<HostTensors> QuantizeQ8_1::reference(const Config& c, const HostTensors& in) {
  auto x = in.f32.find("x");
  if (x == in.f32.end()) return fail("quantize_q8_1 reference: input 'x' is required");
  if (x->second.size() != c.cols)
    return fail("quantize_q8_1 reference: x has " + std::to_string(x->second.size()) +
                " elements; expected cols = " + std::to_string(c.cols));
  HostTensors out;
  out.u32["x_q8"] = q8_1_quantize(x->second, c.blocks());
  return out;
}

} // namespace ptxkit::kernels
