// flash_decode_chunk_reference.cpp: the chunk pass's CPU reference, launch contract, inputs and
// reference configs.
//
// The reference computes each chunk's partial state in double from its definition (exact max of
// the chunk's scores first, then sums), so it shares no arithmetic with the kernel's butterflies
// and ex2.approx; combined by flash_decode_reduce's reference it must equal one-pass attention.
// With a half kv_dtype the K and V values are those of the format (make_inputs rounds them, and
// reference() rounds what it is given, as the device's upload does); the arithmetic stays exact,
// so the tolerance is the f32 one.
#include "common/kv_cache_slots.h"
#include "error_p.h"
#include "flash_decode_chunk.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptxkit::kernels {

namespace {
common::KvCacheSlots slots(const FlashDecodeChunkConfig& c) {
  return {c.head_dim, c.num_heads, c.num_kv_heads, c.max_seq_len, c.batch_size};
}
} // namespace

namespace {
constexpr double kLog2e = 1.4426950408889634;
}

float FlashDecodeChunkConfig::effective_scale() const {
  return common::effective_attention_scale(scale, head_dim);
}

std::uint64_t FlashDecodeChunkConfig::shared_bytes() const {
  const std::uint64_t g = group();
  return 4 * (g * head_dim * (1 + FlashDecodeChunk::kWarps) + g * chunk_size);
}

std::vector<NamedConfig<FlashDecodeChunkConfig>> FlashDecodeChunk::reference_configs() {
  return {
      {"qwen15b_coder",
       "Qwen2.5-Coder-1.5B: head_dim 128, 12 heads, 2 KV heads, 2048 context, 4 slots, chunks of "
       "64",
       Config{.head_dim = 128,
              .num_heads = 12,
              .num_kv_heads = 2,
              .max_seq_len = 2048,
              .scale = 0.0f,
              .chunk_size = 64,
              .batch_size = 4}},
      {"qwen15b_coder_bf16",
       "Qwen2.5-Coder-1.5B with a bf16 KV cache: head_dim 128, 12 heads, 2 KV heads, 2048 "
       "context, 4 slots, chunks of 64",
       Config{.head_dim = 128,
              .num_heads = 12,
              .num_kv_heads = 2,
              .max_seq_len = 2048,
              .scale = 0.0f,
              .chunk_size = 64,
              .batch_size = 4,
              .kv_dtype = DType::kBF16}},
      {"qwen15b_coder_f16",
       "Qwen2.5-Coder-1.5B with an f16 KV cache: head_dim 128, 12 heads, 2 KV heads, 2048 "
       "context, 4 slots, chunks of 64",
       Config{.head_dim = 128,
              .num_heads = 12,
              .num_kv_heads = 2,
              .max_seq_len = 2048,
              .scale = 0.0f,
              .chunk_size = 64,
              .batch_size = 4,
              .kv_dtype = DType::kF16}},
      {"qwen05b",
       "Qwen2.5-0.5B: head_dim 64, 14 heads, 2 KV heads, 2048 context, 4 slots, chunks of 64",
       Config{.head_dim = 64,
              .num_heads = 14,
              .num_kv_heads = 2,
              .max_seq_len = 2048,
              .scale = 0.0f,
              .chunk_size = 64,
              .batch_size = 4}},
  };
}

ptxkit::Expected<void> FlashDecodeChunk::validate(const Config& c) {
  if (c.head_dim != 32 && c.head_dim != 64 && c.head_dim != 128)
    return fail("field 'head_dim' = " + std::to_string(c.head_dim) +
                " must be 32, 64 or 128 (rows are read as head_dim/4 float4s, 8 lanes per row)");
  if (c.num_heads % c.num_kv_heads != 0)
    return fail("num_kv_heads = " + std::to_string(c.num_kv_heads) +
                " must divide num_heads = " + std::to_string(c.num_heads) +
                " (each KV head serves num_heads / num_kv_heads query heads)");
  if (c.shared_bytes() > 48 * 1024)
    return fail("static shared memory 4 * (group * head_dim * 5 + group * chunk_size) = " +
                std::to_string(c.shared_bytes()) + " bytes exceeds 49152 (group = " +
                std::to_string(c.group()) + "): use a smaller chunk_size or more KV heads");
  std::uint64_t cache = std::uint64_t{c.num_kv_heads} * c.max_seq_len * c.head_dim;
  if (cache >= (std::uint64_t{1} << 31))
    return fail("num_kv_heads * max_seq_len * head_dim = " + std::to_string(cache) +
                " must be < 2^31 (element offsets into one slot's cache are 32-bit)");
  std::uint64_t parts = std::uint64_t{c.batch_size} * c.num_heads * c.num_chunks() * c.head_dim;
  if (parts >= (std::uint64_t{1} << 31))
    return fail("batch_size * num_heads * num_chunks * head_dim = " + std::to_string(parts) +
                " must be < 2^31 (element offsets into partial_out are 32-bit)");
  return {};
}

LaunchDims FlashDecodeChunk::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.num_chunks();
  d.grid[1] = c.num_kv_heads;
  d.grid[2] = c.batch_size;
  d.block[0] = kThreads;
  d.dynamic_smem_bytes = 0; // q, scores and warp partials live in static shared memory
  return d;
}

std::vector<ParamSpec> FlashDecodeChunk::params(const Config& c) {
  const auto s = slots(c);
  std::size_t rows = std::size_t{c.batch_size} * c.num_heads * c.num_chunks();
  return {
      common::query_param(s),
      common::cache_pointers_param(s, "k_ptrs", "k_cache", elem_type(c.kv_dtype)),
      common::cache_pointers_param(s, "v_ptrs", "v_cache", elem_type(c.kv_dtype)),
      {.name = "partial_max", .kind = ParamKind::kOutput, .buffer = "partial_max", .elems = rows},
      {.name = "partial_sum", .kind = ParamKind::kOutput, .buffer = "partial_sum", .elems = rows},
      {.name = "partial_out",
       .kind = ParamKind::kOutput,
       .buffer = "partial_out",
       .elems = rows * c.head_dim},
      common::seq_lens_param(s),
  };
}

HostTensors FlashDecodeChunk::make_inputs(const Config& c, std::uint64_t seed) {
  HostTensors t = common::kv_cache_slot_inputs(slots(c), seed);
  round_all(c.kv_dtype, t.f32["k_cache"]);
  round_all(c.kv_dtype, t.f32["v_cache"]);
  return t;
}

FlashPartials flash_decode_chunk_reference(const FlashDecodeChunkConfig& c,
                                           const std::vector<float>& q,
                                           const std::vector<float>& k_cache,
                                           const std::vector<float>& v_cache,
                                           const std::vector<std::uint32_t>& seq_lens) {
  const std::size_t hd = c.head_dim, nc = c.num_chunks(), cs = c.chunk_size;
  const std::size_t slot_elems = std::size_t{c.num_kv_heads} * c.max_seq_len * hd;
  const std::uint32_t group = c.group();
  const double scale_log2 = double{c.effective_scale()} * kLog2e;
  const std::size_t rows = std::size_t{c.batch_size} * c.num_heads * nc;
  FlashPartials p;
  p.max.assign(rows, -std::numeric_limits<float>::infinity());
  p.sum.assign(rows, 0.0f);
  p.out.assign(rows * hd, 0.0f);
  std::vector<double> s(cs), acc(hd);
  for (std::size_t b = 0; b < c.batch_size; ++b) {
    const std::size_t len = std::min<std::size_t>(seq_lens[b], c.max_seq_len);
    for (std::size_t h = 0; h < c.num_heads; ++h) {
      const float* qh = q.data() + (b * c.num_heads + h) * hd;
      const std::size_t kv = h / group;
      const float* kh = k_cache.data() + b * slot_elems + kv * c.max_seq_len * hd;
      const float* vh = v_cache.data() + b * slot_elems + kv * c.max_seq_len * hd;
      for (std::size_t ch = 0; ch < nc; ++ch) {
        const std::size_t begin = ch * cs, end = std::min(len, begin + cs);
        if (begin >= end) continue; // the empty state set above
        double m = -std::numeric_limits<double>::infinity();
        for (std::size_t pos = begin; pos < end; ++pos) {
          double dot = 0.0;
          for (std::size_t d = 0; d < hd; ++d)
            dot += double{qh[d]} * double{kh[pos * hd + d]};
          s[pos - begin] = dot * scale_log2;
          m = std::max(m, s[pos - begin]);
        }
        double l = 0.0;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::size_t pos = begin; pos < end; ++pos) {
          const double w = std::exp2(s[pos - begin] - m);
          l += w;
          for (std::size_t d = 0; d < hd; ++d)
            acc[d] += w * double{vh[pos * hd + d]};
        }
        const std::size_t row = (b * c.num_heads + h) * nc + ch;
        p.max[row] = static_cast<float>(m);
        p.sum[row] = static_cast<float>(l);
        for (std::size_t d = 0; d < hd; ++d)
          p.out[row * hd + d] = static_cast<float>(acc[d]);
      }
    }
  }
  return p;
}

ptxkit::Expected<HostTensors> FlashDecodeChunk::reference(const Config& c, const HostTensors& in) {
  auto q = in.f32.find("q");
  auto k = in.f32.find("k_cache");
  auto v = in.f32.find("v_cache");
  auto lens = in.u32.find("seq_lens");
  if (q == in.f32.end() || k == in.f32.end() || v == in.f32.end() || lens == in.u32.end())
    return fail("flash_decode_chunk reference: inputs q, k_cache, v_cache (f32) and seq_lens "
                "(u32) are required");
  std::size_t qo = std::size_t{c.batch_size} * c.num_heads * c.head_dim;
  std::size_t cache = std::size_t{c.batch_size} * c.num_kv_heads * c.max_seq_len * c.head_dim;
  if (q->second.size() != qo || k->second.size() != cache || v->second.size() != cache ||
      lens->second.size() != c.batch_size)
    return fail("flash_decode_chunk reference: buffer sizes do not match the config (q " +
                std::to_string(qo) + ", k_cache/v_cache " + std::to_string(cache) + ", seq_lens " +
                std::to_string(c.batch_size) + " elements expected)");
  for (std::size_t s = 0; s < lens->second.size(); ++s)
    if (lens->second[s] > c.max_seq_len)
      return fail("flash_decode_chunk reference: seq_lens[" + std::to_string(s) +
                  "] = " + std::to_string(lens->second[s]) +
                  " exceeds max_seq_len = " + std::to_string(c.max_seq_len));
  // The caches as the device holds them (the identity for f32).
  std::vector<float> k_cache = k->second, v_cache = v->second;
  round_all(c.kv_dtype, k_cache);
  round_all(c.kv_dtype, v_cache);
  FlashPartials p = flash_decode_chunk_reference(c, q->second, k_cache, v_cache, lens->second);
  HostTensors out;
  out.f32["partial_max"] = std::move(p.max);
  out.f32["partial_sum"] = std::move(p.sum);
  out.f32["partial_out"] = std::move(p.out);
  return out;
}

} // namespace ptxkit::kernels
