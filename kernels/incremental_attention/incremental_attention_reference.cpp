// incremental_attention_reference.cpp: the single-sequence attention kernel's CPU reference,
// launch contract, inputs and reference configs.
//
// The reference is an online softmax in double, one position at a time, with the running max
// snapshot taken before each update -- the kernel's algorithm in exact-enough arithmetic. It is
// checked against the two-pass softmax of batched_incremental_attention (which shares no
// structure with it) and against chunk + reduce of flash decoding.
#include "error_p.h"
#include "incremental_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptxkit::kernels {

float IncrementalAttentionConfig::effective_scale() const {
  return common::effective_attention_scale(scale, head_dim);
}

std::vector<NamedConfig<IncrementalAttentionConfig>> IncrementalAttention::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5-0.5B: head_dim 64, 14 heads, 2 KV heads, 2048 context",
       Config{
           .head_dim = 64, .num_heads = 14, .num_kv_heads = 2, .max_seq_len = 2048, .scale = 0.0f}},
      {"qwen15b_coder", "Qwen2.5-Coder-1.5B: head_dim 128, 12 heads, 2 KV heads, 2048 context",
       Config{.head_dim = 128,
              .num_heads = 12,
              .num_kv_heads = 2,
              .max_seq_len = 2048,
              .scale = 0.0f}},
  };
}

ptxkit::Expected<void> IncrementalAttention::validate(const Config& c) {
  if (c.head_dim != 32 && c.head_dim != 64 && c.head_dim != 128)
    return fail("field 'head_dim' = " + std::to_string(c.head_dim) +
                " must be 32, 64 or 128 (each lane loads head_dim/32 contiguous elements as one "
                "scalar, .v2 or .v4 access)");
  if (c.num_heads % c.num_kv_heads != 0)
    return fail("num_kv_heads = " + std::to_string(c.num_kv_heads) +
                " must divide num_heads = " + std::to_string(c.num_heads) +
                " (each KV head serves num_heads / num_kv_heads query heads)");
  std::uint64_t cache = std::uint64_t{c.num_kv_heads} * c.max_seq_len * c.head_dim;
  if (cache >= (std::uint64_t{1} << 31))
    return fail("num_kv_heads * max_seq_len * head_dim = " + std::to_string(cache) +
                " must be < 2^31 (element offsets into the cache are 32-bit)");
  return {};
}

LaunchDims IncrementalAttention::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.num_heads;
  d.block[0] = kThreads;
  d.dynamic_smem_bytes = 0; // the warps' states live in static shared memory
  return d;
}

std::vector<ParamSpec> IncrementalAttention::params(const Config& c) {
  std::size_t qo = std::size_t{c.num_heads} * c.head_dim;
  std::size_t cache = std::size_t{c.num_kv_heads} * c.max_seq_len * c.head_dim;
  return {
      {.name = "q", .kind = ParamKind::kInput, .buffer = "q", .elems = qo},
      {.name = "k_cache", .kind = ParamKind::kInput, .buffer = "k_cache", .elems = cache},
      {.name = "v_cache", .kind = ParamKind::kInput, .buffer = "v_cache", .elems = cache},
      {.name = "out", .kind = ParamKind::kOutput, .buffer = "out", .elems = qo},
      {.name = "seq_len",
       .kind = ParamKind::kInput,
       .buffer = "seq_len",
       .elem = ElemType::kU32,
       .elems = 1},
  };
}

HostTensors IncrementalAttention::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  std::size_t cache = std::size_t{c.num_kv_heads} * c.max_seq_len * c.head_dim;
  t.f32["q"] = rng.uniform_vector(std::size_t{c.num_heads} * c.head_dim, -1, 1);
  t.f32["k_cache"] = rng.uniform_vector(cache, -1, 1);
  t.f32["v_cache"] = rng.uniform_vector(cache, -1, 1);
  t.u32["seq_len"] = {1 + static_cast<std::uint32_t>(rng.next_u64() % c.max_seq_len)};
  return t;
}

std::vector<float> incremental_attention_reference(const IncrementalAttentionConfig& c,
                                                   const std::vector<float>& q,
                                                   const std::vector<float>& k_cache,
                                                   const std::vector<float>& v_cache,
                                                   std::uint32_t seq_len) {
  const std::size_t hd = c.head_dim;
  const std::uint32_t group = c.num_heads / c.num_kv_heads;
  const double scale = c.effective_scale();
  std::vector<float> out(std::size_t{c.num_heads} * hd, 0.0f);
  std::vector<double> acc(hd);
  for (std::size_t h = 0; h < c.num_heads; ++h) {
    const float* qh = q.data() + h * hd;
    const std::size_t kv = h / group;
    const float* kh = k_cache.data() + kv * c.max_seq_len * hd;
    const float* vh = v_cache.data() + kv * c.max_seq_len * hd;
    double running_max = -std::numeric_limits<double>::infinity();
    double sum = 0.0;
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::size_t p = 0; p < seq_len; ++p) {
      double s = 0.0;
      for (std::size_t d = 0; d < hd; ++d)
        s += double{qh[d]} * double{kh[p * hd + d]};
      s *= scale;
      const double old_max = running_max; // the snapshot, taken before the update
      running_max = std::max(old_max, s);
      const double corr = std::exp(old_max - running_max);
      const double w = std::exp(s - running_max);
      sum = sum * corr + w;
      for (std::size_t d = 0; d < hd; ++d)
        acc[d] = acc[d] * corr + w * double{vh[p * hd + d]};
    }
    if (seq_len == 0) continue;
    for (std::size_t d = 0; d < hd; ++d)
      out[h * hd + d] = static_cast<float>(acc[d] / sum);
  }
  return out;
}

ptxkit::Expected<HostTensors> IncrementalAttention::reference(const Config& c,
                                                              const HostTensors& in) {
  auto q = in.f32.find("q");
  auto k = in.f32.find("k_cache");
  auto v = in.f32.find("v_cache");
  auto len = in.u32.find("seq_len");
  if (q == in.f32.end() || k == in.f32.end() || v == in.f32.end() || len == in.u32.end())
    return fail("incremental_attention reference: inputs q, k_cache, v_cache (f32) and seq_len "
                "(u32) are required");
  std::size_t qo = std::size_t{c.num_heads} * c.head_dim;
  std::size_t cache = std::size_t{c.num_kv_heads} * c.max_seq_len * c.head_dim;
  if (q->second.size() != qo || k->second.size() != cache || v->second.size() != cache ||
      len->second.size() != 1)
    return fail("incremental_attention reference: buffer sizes do not match the config (q " +
                std::to_string(qo) + ", k_cache/v_cache " + std::to_string(cache) +
                ", seq_len 1 element expected)");
  if (len->second[0] > c.max_seq_len)
    return fail("incremental_attention reference: seq_len = " + std::to_string(len->second[0]) +
                " exceeds max_seq_len = " + std::to_string(c.max_seq_len));
  HostTensors out;
  out.f32["out"] =
      incremental_attention_reference(c, q->second, k->second, v->second, len->second[0]);
  return out;
}

} // namespace ptxkit::kernels
