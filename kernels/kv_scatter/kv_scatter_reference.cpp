// kv_scatter_reference.cpp: the KV-cache scatter's CPU reference, launch contract (with the
// host-side position check), inputs and reference configs.
#include "common/kv_cache_slots.h"
#include "error_p.h"
#include "kv_scatter.h"

#include <algorithm>

namespace ptxkit::kernels {

std::vector<NamedConfig<KvScatterConfig>> KvScatter::reference_configs() {
  return {
      {"qwen15b_coder", "Qwen2.5-Coder-1.5B: head_dim 128, 2 KV heads, 2048 context, 4 slots",
       Config{.head_dim = 128, .num_kv_heads = 2, .max_seq_len = 2048, .batch_size = 4}},
      {"qwen05b", "Qwen2.5-0.5B: head_dim 64, 2 KV heads, 2048 context, 4 slots",
       Config{.head_dim = 64, .num_kv_heads = 2, .max_seq_len = 2048, .batch_size = 4}},
      {"qwen05b_bf16", "Qwen2.5-0.5B, bf16 caches: head_dim 64, 2 KV heads, 2048 context, 4 slots",
       Config{.head_dim = 64,
              .num_kv_heads = 2,
              .max_seq_len = 2048,
              .batch_size = 4,
              .dtype = DType::kBF16}},
      {"qwen15b_coder_f16",
       "Qwen2.5-Coder-1.5B, f16 caches: head_dim 128, 2 KV heads, 2048 context, 4 slots",
       Config{.head_dim = 128,
              .num_kv_heads = 2,
              .max_seq_len = 2048,
              .batch_size = 4,
              .dtype = DType::kF16}},
  };
}

ptxkit::Expected<void> KvScatter::validate(const Config& c) {
  const std::uint64_t per_slot = std::uint64_t{c.num_kv_heads} * c.max_seq_len * c.head_dim;
  if (per_slot >= (std::uint64_t{1} << 31))
    return fail("num_kv_heads * max_seq_len * head_dim = " + std::to_string(per_slot) +
                " must be < 2^31 (element offsets inside one slot's cache are 32-bit)");
  return {};
}

ptxkit::Expected<void> KvScatter::check_positions(const Config& c,
                                                  std::span<const std::uint32_t> positions) {
  return common::check_append_positions(kName, c.batch_size, c.max_seq_len, positions);
}

std::uint32_t kv_scatter_threads(const KvScatterConfig& c) {
  const std::uint32_t chunks = c.num_kv_heads * c.head_dim / 4;
  return std::min<std::uint32_t>(256, (chunks + 31) / 32 * 32);
}

std::uint32_t kv_scatter_blocks_per_slot(const KvScatterConfig& c) {
  const std::uint32_t chunks = c.num_kv_heads * c.head_dim / 4;
  const std::uint32_t t = kv_scatter_threads(c);
  return (chunks + t - 1) / t;
}

LaunchDims KvScatter::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = kv_scatter_blocks_per_slot(c);
  d.grid[1] = c.batch_size;
  d.block[0] = kv_scatter_threads(c);
  return d;
}

std::vector<ParamSpec> KvScatter::params(const Config& c) {
  const std::size_t fresh = std::size_t{c.batch_size} * c.num_kv_heads * c.head_dim;
  const std::size_t cache = fresh * c.max_seq_len;
  const ElemType e = elem_type(c.dtype);
  return {
      {.name = "k_new", .kind = ParamKind::kInput, .buffer = "k_new", .elem = e, .elems = fresh},
      {.name = "v_new", .kind = ParamKind::kInput, .buffer = "v_new", .elem = e, .elems = fresh},
      {.name = "positions",
       .kind = ParamKind::kInput,
       .buffer = "positions",
       .elem = ElemType::kU32,
       .elems = c.batch_size},
      // Read-modify-write: the buffers are also inputs (make_inputs fills them).
      {.name = "k_cache",
       .kind = ParamKind::kOutput,
       .buffer = "k_cache",
       .elem = e,
       .elems = cache},
      {.name = "v_cache",
       .kind = ParamKind::kOutput,
       .buffer = "v_cache",
       .elem = e,
       .elems = cache},
  };
}

HostTensors KvScatter::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  const std::size_t fresh = std::size_t{c.batch_size} * c.num_kv_heads * c.head_dim;
  t.f32["k_new"] = rng.uniform_vector(fresh, -1.0f, 1.0f);
  t.f32["v_new"] = rng.uniform_vector(fresh, -1.0f, 1.0f);
  t.f32["k_cache"] = rng.uniform_vector(fresh * c.max_seq_len, -1.0f, 1.0f);
  t.f32["v_cache"] = rng.uniform_vector(fresh * c.max_seq_len, -1.0f, 1.0f);
  // Half buffers hold values of their format (the copy is then exact).
  for (const char* name : {"k_new", "v_new", "k_cache", "v_cache"})
    round_all(c.dtype, t.f32[name]);
  // A different position per slot; slot 0 writes the last row of its cache.
  auto& pos = t.u32["positions"];
  for (std::uint32_t s = 0; s < c.batch_size; ++s)
    pos.push_back(s == 0 ? c.max_seq_len - 1
                         : static_cast<std::uint32_t>(rng.next_u64() % c.max_seq_len));
  return t;
}

void kv_scatter_reference(const KvScatterConfig& c, const std::vector<float>& k_new,
                          const std::vector<float>& v_new,
                          const std::vector<std::uint32_t>& positions, std::vector<float>& k_cache,
                          std::vector<float>& v_cache) {
  const std::size_t hd = c.head_dim;
  const std::size_t slot_elems = std::size_t{c.num_kv_heads} * c.max_seq_len * hd;
  for (std::size_t s = 0; s < c.batch_size; ++s) {
    if (positions[s] >= c.max_seq_len) continue; // the device guard: nothing is written
    for (std::size_t kv = 0; kv < c.num_kv_heads; ++kv) {
      const std::size_t src = (s * c.num_kv_heads + kv) * hd;
      const std::size_t dst = s * slot_elems + (kv * c.max_seq_len + positions[s]) * hd;
      for (std::size_t i = 0; i < hd; ++i) {
        k_cache[dst + i] = k_new[src + i];
        v_cache[dst + i] = v_new[src + i];
      }
    }
  }
}

ptxkit::Expected<HostTensors> KvScatter::reference(const Config& c, const HostTensors& in) {
  auto k = in.f32.find("k_new");
  auto v = in.f32.find("v_new");
  auto kc = in.f32.find("k_cache");
  auto vc = in.f32.find("v_cache");
  auto pos = in.u32.find("positions");
  if (k == in.f32.end() || v == in.f32.end() || kc == in.f32.end() || vc == in.f32.end() ||
      pos == in.u32.end())
    return fail("kv_scatter reference: inputs k_new, v_new, k_cache, v_cache (f32) and positions "
                "(u32) are required");
  const std::size_t fresh = std::size_t{c.batch_size} * c.num_kv_heads * c.head_dim;
  const std::size_t cache = fresh * c.max_seq_len;
  if (k->second.size() != fresh || v->second.size() != fresh || kc->second.size() != cache ||
      vc->second.size() != cache || pos->second.size() != c.batch_size)
    return fail("kv_scatter reference: buffer sizes do not match the config (k_new/v_new " +
                std::to_string(fresh) + ", k_cache/v_cache " + std::to_string(cache) +
                ", positions " + std::to_string(c.batch_size) + " elements expected)");
  HostTensors out;
  out.f32["k_cache"] = kc->second;
  out.f32["v_cache"] = vc->second;
  kv_scatter_reference(c, k->second, v->second, pos->second, out.f32["k_cache"],
                       out.f32["v_cache"]);
  return out;
}

} // namespace ptxkit::kernels
