// batched_incremental_attention_reference.cpp: the attention kernel's CPU reference, launch
// contract, inputs, reference configs and bench case.
//
// The reference is a plain two-pass softmax in double: max first, then exponentials and sums. It
// shares no structure with the kernel's online softmax, so a rescale bug cannot hide in both.
#include "batched_incremental_attention.h"
#include "common/kv_cache_slots.h"
#include "error_p.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptxkit::kernels {

namespace {
common::KvCacheSlots slots(const BatchedIncrementalAttentionConfig& c) {
  return {c.head_dim, c.num_heads, c.num_kv_heads, c.max_seq_len, c.batch_size};
}
} // namespace

float BatchedIncrementalAttentionConfig::effective_scale() const {
  return common::effective_attention_scale(scale, head_dim);
}

std::vector<NamedConfig<BatchedIncrementalAttentionConfig>>
BatchedIncrementalAttention::reference_configs() {
  return {
      {"qwen15b_coder",
       "Qwen2.5-Coder-1.5B: head_dim 128, 12 heads, 2 KV heads, 2048 context, 4 slots",
       Config{.head_dim = 128,
              .num_heads = 12,
              .num_kv_heads = 2,
              .max_seq_len = 2048,
              .scale = 0.0f,
              .batch_size = 4}},
  };
}

std::vector<BenchCase> BatchedIncrementalAttention::bench_cases() {
  // Every slot at the full 2048 positions (make_inputs draws shorter ones), informative only: the
  // kernel is retired from decoding (flash_decode's cases carry the attention targets).
  return {{.name = "batched_incremental_attention_4x2048",
           .config = "qwen15b_coder",
           .shape = "4 slots x 12/2 heads x 2048 x 128 (one warp per head; retired: see "
                    "flash_decode)",
           .flops = 4.0 * 4 * 12 * 2048 * 128,
           .adjust_inputs = [](HostTensors& in) {
             for (auto& len : in.u32["seq_lens"])
               len = 2048;
           }}};
}

ptxkit::Expected<void> BatchedIncrementalAttention::validate(const Config& c) {
  if (c.num_heads % c.num_kv_heads != 0)
    return fail("num_kv_heads = " + std::to_string(c.num_kv_heads) +
                " must divide num_heads = " + std::to_string(c.num_heads) +
                " (each KV head serves num_heads / num_kv_heads query heads)");
  std::uint64_t per_slot = std::uint64_t{c.num_kv_heads} * c.max_seq_len * c.head_dim;
  if (per_slot >= (std::uint64_t{1} << 31))
    return fail("num_kv_heads * max_seq_len * head_dim = " + std::to_string(per_slot) +
                " must be < 2^31 (element offsets into one slot's cache are 32-bit)");
  std::uint64_t q_elems = std::uint64_t{c.batch_size} * c.num_heads * c.head_dim;
  if (q_elems >= (std::uint64_t{1} << 31))
    return fail("batch_size * num_heads * head_dim = " + std::to_string(q_elems) +
                " must be < 2^31 (element offsets into q/out are 32-bit)");
  return {};
}

LaunchDims BatchedIncrementalAttention::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.num_heads;
  d.grid[1] = c.batch_size;
  d.block[0] = 32;
  return d;
}

std::vector<ParamSpec> BatchedIncrementalAttention::params(const Config& c) {
  const auto s = slots(c);
  return {
      common::query_param(s),
      common::cache_pointers_param(s, "k_ptrs", "k_cache"),
      common::cache_pointers_param(s, "v_ptrs", "v_cache"),
      {.name = "out", .kind = ParamKind::kOutput, .buffer = "out", .elems = s.query_elems()},
      common::seq_lens_param(s),
  };
}

HostTensors BatchedIncrementalAttention::make_inputs(const Config& c, std::uint64_t seed) {
  return common::kv_cache_slot_inputs(slots(c), seed);
}

std::vector<float> attention_reference(const BatchedIncrementalAttentionConfig& c,
                                       const std::vector<float>& q,
                                       const std::vector<float>& k_cache,
                                       const std::vector<float>& v_cache,
                                       const std::vector<std::uint32_t>& seq_lens) {
  const std::size_t hd = c.head_dim;
  const std::size_t slot_elems = std::size_t{c.num_kv_heads} * c.max_seq_len * hd;
  const std::uint32_t group = c.num_heads / c.num_kv_heads;
  const double scale = c.effective_scale();
  std::vector<float> out(std::size_t{c.batch_size} * c.num_heads * hd, 0.0f);
  std::vector<double> scores;
  for (std::size_t s = 0; s < c.batch_size; ++s) {
    const std::size_t len = std::min<std::size_t>(seq_lens[s], c.max_seq_len);
    for (std::size_t h = 0; h < c.num_heads; ++h) {
      const float* qh = q.data() + (s * c.num_heads + h) * hd;
      const std::size_t kv = h / group;
      const float* kh = k_cache.data() + s * slot_elems + kv * c.max_seq_len * hd;
      const float* vh = v_cache.data() + s * slot_elems + kv * c.max_seq_len * hd;
      float* oh = out.data() + (s * c.num_heads + h) * hd;
      if (len == 0) continue;
      scores.assign(len, 0.0);
      double max = -std::numeric_limits<double>::infinity();
      for (std::size_t p = 0; p < len; ++p) {
        double dot = 0.0;
        for (std::size_t d = 0; d < hd; ++d)
          dot += double{qh[d]} * double{kh[p * hd + d]};
        scores[p] = dot * scale;
        max = std::max(max, scores[p]);
      }
      double denom = 0.0;
      for (auto& sc : scores)
        denom += (sc = std::exp(sc - max));
      for (std::size_t d = 0; d < hd; ++d) {
        double acc = 0.0;
        for (std::size_t p = 0; p < len; ++p)
          acc += scores[p] * double{vh[p * hd + d]};
        oh[d] = static_cast<float>(acc / denom);
      }
    }
  }
  return out;
}

ptxkit::Expected<HostTensors> BatchedIncrementalAttention::reference(const Config& c,
                                                                     const HostTensors& in) {
  auto q = in.f32.find("q");
  auto k = in.f32.find("k_cache");
  auto v = in.f32.find("v_cache");
  auto lens = in.u32.find("seq_lens");
  if (q == in.f32.end() || k == in.f32.end() || v == in.f32.end() || lens == in.u32.end())
    return fail("attention reference: inputs q, k_cache, v_cache (f32) and seq_lens (u32) are "
                "required");
  std::size_t qo = std::size_t{c.batch_size} * c.num_heads * c.head_dim;
  std::size_t cache = std::size_t{c.batch_size} * c.num_kv_heads * c.max_seq_len * c.head_dim;
  if (q->second.size() != qo || k->second.size() != cache || v->second.size() != cache ||
      lens->second.size() != c.batch_size)
    return fail("attention reference: buffer sizes do not match the config (q " +
                std::to_string(qo) + ", k_cache/v_cache " + std::to_string(cache) + ", seq_lens " +
                std::to_string(c.batch_size) + " elements expected)");
  for (std::size_t s = 0; s < lens->second.size(); ++s)
    if (lens->second[s] > c.max_seq_len)
      return fail("attention reference: seq_lens[" + std::to_string(s) +
                  "] = " + std::to_string(lens->second[s]) +
                  " exceeds max_seq_len = " + std::to_string(c.max_seq_len));
  HostTensors out;
  out.f32["out"] = attention_reference(c, q->second, k->second, v->second, lens->second);
  return out;
}

} // namespace ptxkit::kernels
