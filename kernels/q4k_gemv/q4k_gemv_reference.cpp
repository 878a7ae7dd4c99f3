// q4k_gemv_reference.cpp: the Q4_K codec (ggml's layout), the GEMV's CPU reference, launch
// contract, inputs, reference configs and bench cases.
//
// The reference dequantizes exactly as ggml's dequantize_row_q4_K (value = d*sc*q - dmin*m) and
// sums in double over k < cols only, so a kernel that lets padding or x past cols into a row sum
// disagrees with it. It shares nothing with the kernel's denormal-nibble arithmetic. A batch is
// the same reference once per vector, each on its own x and writing its own y.
#include "error_p.h"
#include "q4k_gemv.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

namespace ptxkit::kernels {

float q4k_half_to_float(std::uint16_t h) {
  const float sign = (h & 0x8000u) != 0 ? -1.0f : 1.0f;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  if (exp == 0) return sign * std::ldexp(static_cast<float>(mant), -24);
  if (exp == 31) return mant == 0 ? sign * INFINITY : NAN;
  return sign * std::ldexp(static_cast<float>(1024 + mant), exp - 25);
}

std::uint16_t q4k_float_to_half(float f) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t u = bits & 0x7fffffffu;
  if (u >= 0x7f800000u) return sign | (u > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (u >= 0x477ff000u) return sign | 0x7c00u; // rounds to infinity (>= 65520)
  if (u < 0x38800000u) {                       // below 2^-14: a subnormal half (or zero)
    const float scaled = std::bit_cast<float>(u) * 16777216.0f; // exact: units of 2^-24
    return sign | static_cast<std::uint16_t>(std::nearbyint(scaled));
  }
  std::uint32_t h = ((((u >> 23) - 127 + 15) << 10) | ((u & 0x7fffffu) >> 13));
  const std::uint32_t rest = u & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0)) ++h; // nearest, ties to even
  return sign | static_cast<std::uint16_t>(h);
}

void q4k_scale_min(int j, const std::uint8_t* q, std::uint8_t& sc, std::uint8_t& m) {
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = static_cast<std::uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

std::array<double, 256> q4k_dequantize_block(const std::uint8_t* block) {
  std::array<double, 256> y{};
  const double d = q4k_half_to_float(static_cast<std::uint16_t>(block[0] | (block[1] << 8)));
  const double dmin = q4k_half_to_float(static_cast<std::uint16_t>(block[2] | (block[3] << 8)));
  const std::uint8_t* scales = block + 4;
  const std::uint8_t* qs = block + 16;
  for (int g = 0; g < 4; ++g) {
    std::uint8_t sc1, m1, sc2, m2;
    q4k_scale_min(2 * g, scales, sc1, m1);
    q4k_scale_min(2 * g + 1, scales, sc2, m2);
    for (int l = 0; l < 32; ++l) {
      y[static_cast<std::size_t>(64 * g + l)] = d * sc1 * (qs[32 * g + l] & 0xF) - dmin * m1;
      y[static_cast<std::size_t>(64 * g + 32 + l)] = d * sc2 * (qs[32 * g + l] >> 4) - dmin * m2;
    }
  }
  return y;
}

std::vector<float> q4k_gemv_reference(const Q4kGemvConfig& c,
                                      const std::vector<std::uint32_t>& w_words,
                                      const std::vector<float>& x) {
  std::vector<float> y(c.rows);
  std::vector<std::uint8_t> block(Q4kGemv::kBlockBytes);
  for (std::size_t r = 0; r < c.rows; ++r) {
    double acc = 0.0;
    for (std::size_t sb = 0; sb < c.blocks_per_row(); ++sb) {
      std::memcpy(block.data(), w_words.data() + r * c.row_words() + sb * 36, block.size());
      const auto v = q4k_dequantize_block(block.data());
      for (std::size_t i = 0; i < 256 && sb * 256 + i < c.cols; ++i)
        acc += v[i] * double{x[sb * 256 + i]};
    }
    y[r] = static_cast<float>(acc);
  }
  return y;
}

std::vector<float> q4k_gemv_q8_1_reference(const Q4kGemvConfig& c,
                                           const std::vector<std::uint32_t>& w_words,
                                           const std::vector<std::uint32_t>& x_q8) {
  std::vector<float> y(c.rows);
  std::vector<std::uint8_t> block(Q4kGemv::kBlockBytes);
  for (std::size_t r = 0; r < c.rows; ++r) {
    double acc = 0.0;
    for (std::size_t sb = 0; sb < c.blocks_per_row(); ++sb) {
      std::memcpy(block.data(), w_words.data() + r * c.row_words() + sb * 36, block.size());
      const double d = q4k_half_to_float(static_cast<std::uint16_t>(block[0] | (block[1] << 8)));
      const double dmin = q4k_half_to_float(static_cast<std::uint16_t>(block[2] | (block[3] << 8)));
      for (int j = 0; j < 8; ++j) {
        std::uint8_t sc, m;
        q4k_scale_min(j, block.data() + 4, sc, m);
        const Q8_1Block xb = q8_1_block(x_q8, sb * 8 + static_cast<std::size_t>(j));
        // Sub-block j: the low (j even) or high (j odd) nibbles of qs[32*(j/2) .. +31].
        std::int64_t dot = 0;
        for (int l = 0; l < 32; ++l) {
          const int q4 =
              (block[static_cast<std::size_t>(16 + 32 * (j / 2) + l)] >> (4 * (j % 2))) & 0xF;
          dot += q4 * xb.q[l];
        }
        acc += d * sc * double{xb.d} * static_cast<double>(dot) - dmin * m * double{xb.s};
      }
    }
    y[r] = static_cast<float>(acc);
  }
  return y;
}

std::vector<NamedConfig<Q4kGemvConfig>> Q4kGemv::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5-0.5B FFN gate/up: 4864 x 896 (cols not a multiple of 256)",
       Config{.rows = 4864, .cols = 896}},
      {"qwen05b_down", "Qwen2.5-0.5B FFN down: 896 x 4864 (19 super-blocks per row)",
       Config{.rows = 896, .cols = 4864}},
      {"llama", "Llama attention projection: 4096 x 4096", Config{.rows = 4096, .cols = 4096}},
      {"qwen05b_q8_1", "Qwen2.5-0.5B FFN gate/up, Q8_1 x (dp4a): 4864 x 896",
       Config{.rows = 4864, .cols = 896, .x_format = XFormat::kQ8_1}},
      {"qwen05b_down_q8_1", "Qwen2.5-0.5B FFN down, Q8_1 x: 896 x 4864",
       Config{.rows = 896, .cols = 4864, .x_format = XFormat::kQ8_1}},
      {"llama_q8_1", "Llama attention projection, Q8_1 x: 4096 x 4096",
       Config{.rows = 4096, .cols = 4096, .x_format = XFormat::kQ8_1}},
      {"qwen05b_f32_q8_1",
       "Qwen2.5-0.5B FFN gate/up, f32 x quantized to Q8_1 in each block: 4864 x 896 (one guarded "
       "step)",
       Config{.rows = 4864, .cols = 896, .x_format = XFormat::kF32Q8_1}},
      {"qwen05b_down_f32_q8_1",
       "Qwen2.5-0.5B FFN down, f32 x quantized in each block: 896 x 4864 (steps split over 4 "
       "warps, a tail step)",
       Config{.rows = 896, .cols = 4864, .x_format = XFormat::kF32Q8_1}},
      {"llama_f32_q8_1", "Llama attention projection, f32 x quantized in each block: 4096 x 4096",
       Config{.rows = 4096, .cols = 4096, .x_format = XFormat::kF32Q8_1}},
      {"qwen05b_b4", "Qwen2.5-0.5B FFN gate/up, 4 sequences: 4864 x 896, x [4, 896]",
       Config{.rows = 4864, .cols = 896, .batch = 4}},
      {"qwen05b_down_b4", "Qwen2.5-0.5B FFN down, 4 sequences: 896 x 4864 (split steps, a tail)",
       Config{.rows = 896, .cols = 4864, .batch = 4}},
      {"qwen05b_f32_q8_1_b4",
       "Qwen2.5-0.5B FFN gate/up, 4 sequences, each x quantized in each block: 4864 x 896",
       Config{.rows = 4864, .cols = 896, .x_format = XFormat::kF32Q8_1, .batch = 4}},
      {"qwen05b_down_f32_q8_1_b4",
       "Qwen2.5-0.5B FFN down, 4 sequences quantized in each block: 896 x 4864 (4 regions of "
       "8192 values: the shared bound exactly)",
       Config{.rows = 896, .cols = 4864, .x_format = XFormat::kF32Q8_1, .batch = 4}},
  };
}

std::vector<BenchCase> Q4kGemv::bench_cases() {
  // Large projections; the bytes are the quantized weights' (144 B per super-block of 256
  // values; x and y are noise beside them). Most are also timed back to back.
  auto gemv = [](std::uint32_t n, std::uint32_t k, bool back_to_back) {
    const std::string rows = std::to_string(n), cols = std::to_string(k);
    return BenchCase{.name = "q4k_gemv_" + rows + "x" + cols,
                     .sets = {"rows=" + rows, "cols=" + cols},
                     .shape = "W " + rows + " x " + cols + " Q4_K (144 B per 256 values)",
                     .target =
                         BenchTarget{.min_pct_of_copy = 80, .qualifier = "on the weight bytes"},
                     .bytes = 144.0 * ((k + 255) / 256) * n,
                     .flops = 2.0 * n * k,
                     .back_to_back = back_to_back};
  };
  // The Q8_1 path fed x already quantized (llama.cpp's mmvq step alone, Q4_K x Q8_1 with dp4a):
  // the bytes add x's Q8_1 blocks. ggml's timed op also quantizes x, so the like-for-like
  // comparison is the f32_q8_1 cases below.
  auto gemv_q8 = [](std::uint32_t n, std::uint32_t k) {
    const std::string rows = std::to_string(n), cols = std::to_string(k);
    const double sbs = (k + 255) / 256;
    return BenchCase{
        .name = "q4k_gemv_q8_1_" + rows + "x" + cols,
        .sets = {"rows=" + rows, "cols=" + cols, "x_format=q8_1"},
        .shape = "W " + rows + " x " + cols + " Q4_K, x Q8_1 (dp4a)",
        .target = BenchTarget{.min_pct_of_copy = 80, .qualifier = "on the weight + Q8_1 bytes"},
        .bytes = 144.0 * sbs * n + 36.0 * 8 * sbs,
        .flops = 2.0 * n * k,
        .back_to_back = true};
  };
  // f32 x quantized to Q8_1 inside the GEMV: like for like with ggml's MUL_MAT, which takes f32
  // x and quantizes it itself (its quantize kernel and mat-vec timed together); the bytes are the
  // weights' and x's f32 values.
  auto gemv_f32_q8 = [](std::uint32_t n, std::uint32_t k) {
    const std::string rows = std::to_string(n), cols = std::to_string(k);
    return BenchCase{.name = "q4k_gemv_f32_q8_1_" + rows + "x" + cols,
                     .sets = {"rows=" + rows, "cols=" + cols, "x_format=f32_q8_1"},
                     .shape = "W " + rows + " x " + cols +
                              " Q4_K, f32 x quantized to Q8_1 in "
                              "each block (dp4a)",
                     .target = BenchTarget{.min_pct_of_copy = 80,
                                           .qualifier = "on the weight + f32 x bytes; >= 1.25x "
                                                        "ggml's MUL_MAT (quantize + mmvq)"},
                     .bytes = 144.0 * ((k + 255) / 256) * n + 4.0 * k,
                     .flops = 2.0 * n * k,
                     .back_to_back = true};
  };
  // 4 sequences a step (a decoder's batch): the weights read once for 4 f32 x vectors, each
  // quantized in each block; the bytes are the weights' and the 4 vectors', the flops 4 times
  // batch 1's. The figure to compare is the time against 4 batch-1 launches of the same shape.
  auto gemv_f32_q8_b4 = [](std::uint32_t n, std::uint32_t k) {
    const std::string rows = std::to_string(n), cols = std::to_string(k);
    return BenchCase{
        .name = "q4k_gemv_f32_q8_1_" + rows + "x" + cols + "_b4",
        .sets = {"rows=" + rows, "cols=" + cols, "x_format=f32_q8_1", "batch=4"},
        .shape = "W " + rows + " x " + cols +
                 " Q4_K read once for 4 f32 x vectors, each quantized to Q8_1 in "
                 "each block (dp4a)",
        .target = BenchTarget{.min_pct_of_copy = 80, .qualifier = "on the weight + f32 x bytes"},
        .bytes = 144.0 * ((k + 255) / 256) * n + 4.0 * 4 * k,
        .flops = 2.0 * 4 * n * k,
        .back_to_back = true};
  };
  return {gemv(4096, 4096, true),    gemv(11008, 4096, true),    gemv(14336, 4096, true),
          gemv(4096, 14336, true),   gemv(151936, 896, false),   gemv(128256, 4096, false),
          gemv_q8(4096, 4096),       gemv_q8(11008, 4096),       gemv_q8(14336, 4096),
          gemv_q8(4096, 14336),      gemv_q8(128256, 4096),      gemv_f32_q8(4096, 4096),
          gemv_f32_q8(11008, 4096),  gemv_f32_q8(14336, 4096),   gemv_f32_q8(4096, 14336),
          gemv_f32_q8(128256, 4096), gemv_f32_q8_b4(4096, 4096), gemv_f32_q8_b4(11008, 4096)};
}

ptxkit::Expected<void> Q4kGemv::validate(const Config& c) {
  // The warp and row arithmetic shifts by log2 of both.
  const std::pair<const char*, std::uint32_t> knobs[] = {
      {"split", c.split}, {"rows_per_warp", c.rows_per_warp_override}};
  for (const auto& [name, v] : knobs)
    if (v != 0 && !std::has_single_bit(v))
      return fail(std::string(name) + " = " + std::to_string(v) +
                  " is not 0 (automatic), 1, 2, 4 or 8");
  if (c.x_format == XFormat::kF32Q8_1 && c.cols > kMaxFusedCols)
    return fail("cols = " + std::to_string(c.cols) + " is beyond " + std::to_string(kMaxFusedCols) +
                " for x_format=f32_q8_1 (each block keeps x's Q8_1 copy in shared memory: 320 "
                "bytes per 256 values); quantize x with quantize_q8_1 and use x_format=q8_1");
  if (c.x_format == XFormat::kF32Q8_1 && c.batch * c.fused_region_cols() > kMaxFusedCols)
    return fail(
        "batch = " + std::to_string(c.batch) + " vectors of " +
        std::to_string(c.fused_region_cols()) + " values (cols = " + std::to_string(c.cols) +
        " rounded up to whole 4096-value passes) is beyond " + std::to_string(kMaxFusedCols) +
        " for x_format=f32_q8_1 (each block keeps every vector's Q8_1 copy in shared "
        "memory); use a smaller batch, or quantize x with quantize_q8_1 and use "
        "x_format=q8_1");
  const std::uint64_t words = std::uint64_t{c.rows} * c.row_words();
  if (words * 4 >= (std::uint64_t{1} << 40))
    return fail("rows * ceil(cols/256) * 144 = " + std::to_string(words * 4) +
                " bytes of weights is beyond 2^40 (1 TiB)");
  return {};
}

LaunchDims Q4kGemv::launch(const Config& c) {
  LaunchDims d;
  const std::uint32_t batches = (c.rows + c.rows_per_block() - 1) / c.rows_per_block();
  d.grid[0] = std::min(batches, kMaxBlocks);
  if (c.x_format == XFormat::kF32Q8_1 && c.batch > 1) {
    // Every block quantizes all the vectors (in its first row batch only): as many blocks as are
    // resident at once, the batches dealt out evenly (11008 x 4096: 688 batches, 230 blocks of 3,
    // where 688 blocks would quantize x 688 times in the same 3 rounds).
    const std::uint32_t rounds = (batches + kFusedBatchedBlocks - 1) / kFusedBatchedBlocks;
    d.grid[0] = (batches + rounds - 1) / rounds;
  }
  d.block[0] = kThreads;
  return d;
}

std::vector<ParamSpec> Q4kGemv::params(const Config& c) {
  return {
      {.name = "w_q4k",
       .kind = ParamKind::kInput,
       .buffer = "w_q4k",
       .elem = ElemType::kU32,
       .elems = std::size_t{c.rows} * c.row_words()},
      c.x_format == XFormat::kQ8_1 ? ParamSpec{.name = "x_q8",
                                               .kind = ParamKind::kInput,
                                               .buffer = "x_q8",
                                               .elem = ElemType::kU32,
                                               .elems = std::size_t{c.batch} * c.x_q8_words()}
                                   : ParamSpec{.name = "x",
                                               .kind = ParamKind::kInput,
                                               .buffer = "x",
                                               .elems = std::size_t{c.batch} * c.cols},
      {.name = "y",
       .kind = ParamKind::kOutput,
       .buffer = "y",
       .elems = std::size_t{c.batch} * c.rows},
  };
}

HostTensors Q4kGemv::make_inputs(const Config& c, std::uint64_t seed) {
  // Random super-blocks of realistic magnitude: d in [0.002, 0.02), dmin in [0.001, 0.01), all
  // 12 scale bytes and 128 quant bytes random -- padding values of the last block included, so
  // a kernel that sums them (or x past cols) is caught.
  InputRng rng(seed);
  HostTensors t;
  auto& words = t.u32["w_q4k"];
  words.assign(std::size_t{c.rows} * c.row_words(), 0);
  std::vector<std::uint8_t> block(kBlockBytes);
  for (std::size_t r = 0; r < c.rows; ++r)
    for (std::size_t sb = 0; sb < c.blocks_per_row(); ++sb) {
      const std::uint16_t d = q4k_float_to_half(rng.uniform(0.002f, 0.02f));
      const std::uint16_t dmin = q4k_float_to_half(rng.uniform(0.001f, 0.01f));
      block[0] = static_cast<std::uint8_t>(d & 0xff);
      block[1] = static_cast<std::uint8_t>(d >> 8);
      block[2] = static_cast<std::uint8_t>(dmin & 0xff);
      block[3] = static_cast<std::uint8_t>(dmin >> 8);
      for (std::size_t i = 4; i < kBlockBytes; ++i)
        block[i] = static_cast<std::uint8_t>(rng.next_u64() & 0xff);
      std::memcpy(words.data() + r * c.row_words() + sb * 36, block.data(), kBlockBytes);
    }
  // x: batch vectors of cols values, back to back.
  t.f32["x"] = rng.uniform_vector(std::size_t{c.batch} * c.cols, -1.0f, 1.0f);
  if (c.x_format == XFormat::kF32Q8_1) {
    // The kernel quantizes x itself: Q8_1 blocks of mixed scale (each 32 values' amax a power
    // of two in 2^-9 .. 1, so d spans several binades), one block in 17 all zero (d = 0), and
    // every 7th value on an exact half of d (roundf's away-from-zero tie); every vector alike.
    for (std::size_t m = 0; m < c.batch; ++m) {
      float* x = t.f32["x"].data() + m * c.cols;
      for (std::size_t blk = 0; blk * kQ8_1Values < c.cols; ++blk) {
        const float range = std::ldexp(1.0f, -static_cast<int>(rng.next_u64() % 10));
        for (std::size_t j = 0; j < kQ8_1Values && blk * kQ8_1Values + j < c.cols; ++j) {
          float& v = x[blk * kQ8_1Values + j];
          if (blk % 17 == 5)
            v = 0.0f;
          else if (j == 0)
            v = range; // the amax: d = range / 127
          else if (j % 7 == 3)
            v = (static_cast<float>(rng.next_u64() % 100) + 0.5f) * (range / 127.0f);
          else
            v = range * v;
        }
      }
    }
  }
  if (c.x_format == XFormat::kQ8_1) { // each vector quantized as quantize_q8_1 does, zero past cols
    auto& words = t.u32["x_q8"];
    for (std::size_t m = 0; m < c.batch; ++m) {
      const auto& all = t.f32["x"];
      const std::vector<float> xm(all.begin() + static_cast<std::ptrdiff_t>(m * c.cols),
                                  all.begin() + static_cast<std::ptrdiff_t>((m + 1) * c.cols));
      const auto q = q8_1_quantize(xm, std::size_t{c.blocks_per_row()} * 8);
      words.insert(words.end(), q.begin(), q.end());
    }
    t.f32.erase("x");
  }
  return t;
}

ptxkit::Expected<HostTensors> Q4kGemv::reference(const Config& c, const HostTensors& in) {
  // Every vector of a batch through the batch-1 reference, on its own slice of x; vector m's y at
  // m * rows.
  const std::size_t words = std::size_t{c.rows} * c.row_words();
  auto w = in.u32.find("w_q4k");
  auto batched = [&](std::size_t vector_elems, const auto& x, auto one_vector) {
    HostTensors out;
    auto& y = out.f32["y"];
    for (std::size_t m = 0; m < c.batch; ++m) {
      const auto first = x.begin() + static_cast<std::ptrdiff_t>(m * vector_elems);
      const std::vector<typename std::decay_t<decltype(x)>::value_type> xm(
          first, first + static_cast<std::ptrdiff_t>(vector_elems));
      const std::vector<float> ym = one_vector(xm);
      y.insert(y.end(), ym.begin(), ym.end());
    }
    return out;
  };
  const std::string batch_note =
      c.batch == 1 ? "" : " (times batch = " + std::to_string(c.batch) + ")";
  if (c.x_format == XFormat::kQ8_1) {
    auto xq = in.u32.find("x_q8");
    if (w == in.u32.end() || xq == in.u32.end())
      return fail("q4k_gemv reference: inputs w_q4k and x_q8 (u32 words) are required");
    if (w->second.size() != words || xq->second.size() != std::size_t{c.batch} * c.x_q8_words())
      return fail("q4k_gemv reference: w_q4k has " + std::to_string(w->second.size()) +
                  " words and x_q8 " + std::to_string(xq->second.size()) +
                  "; expected rows * ceil(cols/256) * 36 = " + std::to_string(words) +
                  " and ceil(cols/256) * 8 * 9 = " + std::to_string(c.x_q8_words()) + batch_note);
    return batched(c.x_q8_words(), xq->second, [&](const std::vector<std::uint32_t>& xm) {
      return q4k_gemv_q8_1_reference(c, w->second, xm);
    });
  }
  auto x = in.f32.find("x");
  if (w == in.u32.end() || x == in.f32.end())
    return fail("q4k_gemv reference: inputs w_q4k (u32 words) and x (f32) are required");
  if (w->second.size() != words || x->second.size() != std::size_t{c.batch} * c.cols)
    return fail("q4k_gemv reference: w_q4k has " + std::to_string(w->second.size()) +
                " words and x " + std::to_string(x->second.size()) + " elements; expected rows * " +
                "ceil(cols/256) * 36 = " + std::to_string(words) +
                " and cols = " + std::to_string(c.cols) + batch_note);
  if (c.x_format == XFormat::kF32Q8_1) {
    // The kernel's own quantization is bit-identical to q8_1_quantize: the q8_1 reference on it.
    return batched(c.cols, x->second, [&](const std::vector<float>& xm) {
      return q4k_gemv_q8_1_reference(c, w->second,
                                     q8_1_quantize(xm, std::size_t{c.blocks_per_row()} * 8));
    });
  }
  return batched(c.cols, x->second, [&](const std::vector<float>& xm) {
    return q4k_gemv_reference(c, w->second, xm);
  });
}

} // namespace ptxkit::kernels
