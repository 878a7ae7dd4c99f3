// qkv_rope_append_reference.cpp: the fused bias + RoPE + KV append's CPU reference (double),
// launch contract (with the host-side position check), inputs, reference configs and bench case.
#include "common/kv_cache_slots.h"
#include "error_p.h"
#include "qkv_rope_append.h"

#include <algorithm>
#include <cmath>

namespace ptxkit::kernels {

namespace {
constexpr std::uint32_t kMaxThreads = 128;

std::size_t row_elems(const QkvRopeAppendConfig& c) {
  return std::size_t{c.heads_in_row()} * c.head_dim;
}
std::size_t cache_elems(const QkvRopeAppendConfig& c) {
  return std::size_t{c.batch_size} * c.num_kv_heads * c.max_seq_len * c.head_dim;
}
} // namespace

std::vector<NamedConfig<QkvRopeAppendConfig>> QkvRopeAppend::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5-0.5B: 14 heads, 2 KV heads, head_dim 64, theta 1e6, biases, 4 slots",
       Config{.head_dim = 64,
              .num_heads = 14,
              .num_kv_heads = 2,
              .theta = 1e6f,
              .has_bias = true,
              .max_seq_len = 2048,
              .batch_size = 4}},
      {"llama3_8b", "Llama-3-8B: 32 heads, 8 KV heads, head_dim 128, theta 5e5, no biases, 2 slots",
       Config{.head_dim = 128,
              .num_heads = 32,
              .num_kv_heads = 8,
              .theta = 5e5f,
              .has_bias = false,
              .max_seq_len = 1024,
              .batch_size = 2}},
      {"odd",
       "scalar path: head_dim 6 (3 pairs), 3 heads, 1 KV head, biases, 17 positions, "
       "3 slots",
       Config{.head_dim = 6,
              .num_heads = 3,
              .num_kv_heads = 1,
              .theta = 1e4f,
              .has_bias = true,
              .max_seq_len = 17,
              .batch_size = 3}},
  };
}

std::vector<BenchCase> QkvRopeAppend::bench_cases() {
  return {{.name = "qkv_rope_append_qwen05b_b4",
           .config = "qwen05b",
           .shape = "4 slots x (14 + 2 + 2) heads x 64, biases, append at 2048-position caches"}};
}

ptxkit::Expected<void> QkvRopeAppend::validate(const Config& c) {
  PTXKIT_TRY(validate_rope(c.geometry()));
  const std::uint64_t per_slot = std::uint64_t{c.num_kv_heads} * c.max_seq_len * c.head_dim;
  if (per_slot >= (std::uint64_t{1} << 31))
    return fail("num_kv_heads * max_seq_len * head_dim = " + std::to_string(per_slot) +
                " must be < 2^31 (element offsets inside one slot's cache are 32-bit)");
  return {};
}

ptxkit::Expected<void> QkvRopeAppend::check_positions(const Config& c,
                                                      std::span<const std::uint32_t> positions) {
  return common::check_append_positions(kName, c.batch_size, c.max_seq_len, positions);
}

std::uint32_t qkv_rope_append_threads(const QkvRopeAppendConfig& c) {
  const std::uint32_t groups = rope_groups_per_row(c.geometry());
  return std::min(kMaxThreads, (groups + 31) / 32 * 32);
}

std::uint32_t qkv_rope_append_blocks_per_slot(const QkvRopeAppendConfig& c) {
  const std::uint32_t t = qkv_rope_append_threads(c);
  return (rope_groups_per_row(c.geometry()) + t - 1) / t;
}

LaunchDims QkvRopeAppend::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = qkv_rope_append_blocks_per_slot(c);
  d.grid[1] = c.batch_size;
  d.block[0] = qkv_rope_append_threads(c);
  return d;
}

std::vector<ParamSpec> QkvRopeAppend::params(const Config& c) {
  std::vector<ParamSpec> p = {{.name = "qkv",
                               .kind = ParamKind::kInput,
                               .buffer = "qkv",
                               .elem = ElemType::kF32,
                               .elems = c.batch_size * row_elems(c)}};
  if (c.has_bias)
    p.push_back({.name = "bias",
                 .kind = ParamKind::kInput,
                 .buffer = "bias",
                 .elem = ElemType::kF32,
                 .elems = row_elems(c)});
  p.push_back({.name = "positions",
               .kind = ParamKind::kInput,
               .buffer = "positions",
               .elem = ElemType::kU32,
               .elems = c.batch_size});
  // Read-modify-write: a slot past its cache leaves q unchanged too, so all three are inputs.
  p.push_back({.name = "q",
               .kind = ParamKind::kOutput,
               .buffer = "q",
               .elem = ElemType::kF32,
               .elems = std::size_t{c.batch_size} * c.num_heads * c.head_dim});
  p.push_back({.name = "k_cache",
               .kind = ParamKind::kOutput,
               .buffer = "k_cache",
               .elem = ElemType::kF32,
               .elems = cache_elems(c)});
  p.push_back({.name = "v_cache",
               .kind = ParamKind::kOutput,
               .buffer = "v_cache",
               .elem = ElemType::kF32,
               .elems = cache_elems(c)});
  return p;
}

HostTensors QkvRopeAppend::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  t.f32["qkv"] = rng.uniform_vector(c.batch_size * row_elems(c), -1.0f, 1.0f);
  if (c.has_bias) t.f32["bias"] = rng.uniform_vector(row_elems(c), -0.5f, 0.5f);
  t.f32["q"] = rng.uniform_vector(std::size_t{c.batch_size} * c.num_heads * c.head_dim, -1, 1);
  t.f32["k_cache"] = rng.uniform_vector(cache_elems(c), -1.0f, 1.0f);
  t.f32["v_cache"] = rng.uniform_vector(cache_elems(c), -1.0f, 1.0f);
  // Slot 0 appends at the last row of its caches; slot 2 (where there is one) is past the end,
  // so every device run of a config with three slots also checks the guard.
  auto& pos = t.u32["positions"];
  for (std::uint32_t s = 0; s < c.batch_size; ++s)
    pos.push_back(s == 0   ? c.max_seq_len - 1
                  : s == 2 ? c.max_seq_len + 2
                           : static_cast<std::uint32_t>(rng.next_u64() % c.max_seq_len));
  return t;
}

Tolerance QkvRopeAppend::tolerance(const Config&, const HostTensors& in) {
  // RoPE's bound for |x| <= 1 (rope_tolerance), scaled by the largest |qkv + bias| (1.5 with
  // the inputs' ranges); the V heads are one f32 add, within it.
  double max_pos = 0;
  if (auto p = in.u32.find("positions"); p != in.u32.end())
    for (auto v : p->second)
      max_pos = std::max(max_pos, static_cast<double>(v));
  return {1.5 * (1e-5 + 1.5e-7 * max_pos) * std::sqrt(2.0), 0,
          "RoPE's f32 bound (1e-5 + 1.5e-7 * max position) * sqrt(2) for |x| <= 1, times the "
          "largest |qkv + bias| (1.5); the V heads are one f32 add"};
}

ptxkit::Expected<HostTensors> QkvRopeAppend::reference(const Config& c, const HostTensors& in) {
  auto qkv = in.f32.find("qkv");
  auto bias = in.f32.find("bias");
  auto q = in.f32.find("q");
  auto kc = in.f32.find("k_cache");
  auto vc = in.f32.find("v_cache");
  auto pos = in.u32.find("positions");
  if (qkv == in.f32.end() || q == in.f32.end() || kc == in.f32.end() || vc == in.f32.end() ||
      pos == in.u32.end() || (c.has_bias && bias == in.f32.end()))
    return fail("qkv_rope_append reference: inputs qkv, q, k_cache, v_cache (f32), positions "
                "(u32) and, with has_bias, bias (f32) are required");
  const std::size_t row = row_elems(c);
  if (qkv->second.size() != c.batch_size * row || pos->second.size() != c.batch_size ||
      q->second.size() != std::size_t{c.batch_size} * c.num_heads * c.head_dim ||
      kc->second.size() != cache_elems(c) || vc->second.size() != cache_elems(c) ||
      (c.has_bias && bias->second.size() != row))
    return fail("qkv_rope_append reference: buffer sizes do not match the config (qkv " +
                std::to_string(c.batch_size * row) + ", caches " + std::to_string(cache_elems(c)) +
                " elements expected)");
  HostTensors out;
  std::vector<float>& q_out = out.f32["q"] = q->second;
  std::vector<float>& k_out = out.f32["k_cache"] = kc->second;
  std::vector<float>& v_out = out.f32["v_cache"] = vc->second;
  const std::size_t hd = c.head_dim, half = hd / 2;
  for (std::size_t s = 0; s < c.batch_size; ++s) {
    const std::uint32_t p = pos->second[s];
    if (p >= c.max_seq_len) continue; // the device guard: the slot writes nothing
    for (std::size_t h = 0; h < c.heads_in_row(); ++h) {
      std::vector<double> x(hd);
      for (std::size_t i = 0; i < hd; ++i)
        x[i] = double{qkv->second[s * row + h * hd + i]} +
               (c.has_bias ? double{bias->second[h * hd + i]} : 0.0);
      std::vector<double> y = x;
      if (h < std::size_t{c.num_heads} + c.num_kv_heads)
        for (std::size_t i = 0; i < half; ++i) {
          const double inv_freq =
              std::pow(double{c.theta}, -2.0 * static_cast<double>(i) / static_cast<double>(hd));
          const double angle = static_cast<double>(p) * inv_freq;
          y[i] = x[i] * std::cos(angle) - x[i + half] * std::sin(angle);
          y[i + half] = x[i] * std::sin(angle) + x[i + half] * std::cos(angle);
        }
      float* dst;
      if (h < c.num_heads) {
        dst = &q_out[(s * c.num_heads + h) * hd];
      } else {
        const bool is_k = h < std::size_t{c.num_heads} + c.num_kv_heads;
        const std::size_t kv = h - c.num_heads - (is_k ? 0 : c.num_kv_heads);
        const std::size_t at = ((s * c.num_kv_heads + kv) * c.max_seq_len + p) * hd;
        dst = is_k ? &k_out[at] : &v_out[at];
      }
      for (std::size_t i = 0; i < hd; ++i)
        dst[i] = static_cast<float>(y[i]);
    }
  }
  return out;
}

} // namespace ptxkit::kernels
