// decoder.cpp: the GPU decoder: weights uploaded in the mode's format, the kernels of one step
// generated, verified and loaded, and the step planned as a list of launches (decoder.h).
#include "ptxkit/decoder/decoder.h"

#include "ptxkit/decoder/q4k_quantize.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/runtime/embedded.h>
#include <ptxkit/runtime/graph.h>

namespace ptxkit::decoder {
namespace {

// A device buffer as the plan sees it: its address and size, so that every launch can be checked
// against the sizes its kernel's parameters state.
struct Buf {
  rt::cu::DevicePtr ptr = 0;
  std::size_t bytes = 0;
  [[nodiscard]] Buf offset(std::size_t byte_offset) const {
    return {ptr + byte_offset, bytes - std::min(bytes, byte_offset)};
  }
};

rt::Unexpected bad(std::string message) {
  return rt::fail(rt::ErrorKind::kBadArgument, "decoder: " + std::move(message));
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

} // namespace

std::string_view weight_mode_name(WeightMode m) {
  switch (m) {
  case WeightMode::kF32:
    return "f32";
  case WeightMode::kBF16:
    return "bf16";
  case WeightMode::kQ4K:
    return "q4k";
  }
  return "?";
}

struct Decoder::State {
  rt::KernelCache* cache = nullptr;
  ptxgen::Target target;
  std::vector<rt::DeviceBuffer<std::uint32_t>> owned;
  std::map<std::string, std::unique_ptr<rt::Function>> functions; // by cache key and launch shape

  Buf ids, positions, seq_lens, next, logits;
  std::optional<rt::Graph> graph; // the step, captured at the first step when options ask

  explicit State(const ptxgen::Target& t) : target(t) {}

  rt::Expected<Buf> alloc(std::size_t bytes) {
    auto b = rt::DeviceBuffer<std::uint32_t>::allocate(cache->context(), (bytes + 3) / 4);
    if (!b) return rt::fail(std::move(b).error());
    PTXKIT_RT_TRY(b->fill_bytes(0));
    Buf out{b->device_ptr(), b->bytes()};
    owned.push_back(std::move(*b));
    return out;
  }
  rt::Expected<Buf> upload(const void* data, std::size_t bytes) {
    auto b = alloc(bytes);
    if (!b) return b;
    std::vector<std::uint32_t> words((bytes + 3) / 4, 0);
    std::memcpy(words.data(), data, bytes);
    PTXKIT_RT_TRY(owned.back().upload(words));
    return b;
  }

  // One kernel instance at `sets`, loaded with its launch contract; `args` by .param name, each
  // checked against the size the kernel's parameter list states for this config.
  rt::Expected<PlannedLaunch> launch(const std::string& name, const std::vector<std::string>& sets,
                                     const std::map<std::string, Buf>& args) {
    const kernels::Kernel* k = kernels::KernelRegistry::find(name);
    if (!k) return bad("no library kernel '" + name + "'");
    auto values = kernels::config_from_assignments(*k, sets);
    if (!values) return bad(name + ": " + values.error().to_string());
    const kernels::LaunchDims d = k->launch(*values);
    rt::LaunchDims dims;
    dims.grid = {d.grid[0], d.grid[1], d.grid[2]};
    dims.block = {d.block[0], d.block[1], d.block[2]};
    dims.dynamic_smem_bytes = d.dynamic_smem_bytes;
    const std::string key = kernels::cache_key(*k, *values, std::string(target.name()));
    const std::string fkey = key + "|" + dims.grid.str() + dims.block.str();
    auto it = functions.find(fkey);
    if (it == functions.end()) {
      auto ptx = k->generate(*values, target);
      if (!ptx) return bad(name + ": " + ptx.error().to_string());
      auto fn = rt::load_kernel(*cache, std::move(ptx->text), key, name, dims);
      if (!fn) return rt::fail(std::move(fn).error());
      it = functions.emplace(fkey, std::make_unique<rt::Function>(std::move(*fn))).first;
    }
    PlannedLaunch l;
    l.kernel = name;
    l.function = it->second.get();
    l.dims = dims;
    for (const kernels::ParamSpec& p : k->params(*values)) {
      auto a = args.find(p.name);
      if (a == args.end()) return bad(name + ": no buffer given for parameter '" + p.name + "'");
      const std::size_t need = p.kind == kernels::ParamKind::kPointerArray
                                   ? p.count * sizeof(rt::cu::DevicePtr)
                                   : p.elems * kernels::elem_bytes(p.elem);
      if (a->second.bytes < need)
        return bad(name + ": parameter '" + p.name + "' needs " + std::to_string(need) +
                   " bytes, the buffer given has " + std::to_string(a->second.bytes));
      l.args.push_back(a->second.ptr);
    }
    if (l.args.size() != args.size())
      return bad(name + ": " + std::to_string(args.size()) + " buffers given for " +
                 std::to_string(l.args.size()) + " parameters");
    return l;
  }
};

Decoder::Decoder(Decoder&&) noexcept = default;
Decoder& Decoder::operator=(Decoder&&) noexcept = default;
Decoder::~Decoder() = default;

rt::Expected<Decoder> Decoder::create(rt::KernelCache& cache, const ptxgen::Target& target,
                                      const ModelWeights& w, const DecoderOptions& o) {
  const ModelConfig& c = w.config;
  if (o.batch == 0 || o.batch > 65535) return bad("batch must be in [1, 65535]");
  if (o.max_seq_len == 0) return bad("max_seq_len must be at least 1");
  if (c.head_dim != 32 && c.head_dim != 64 && c.head_dim != 128)
    return bad("head_dim " + std::to_string(c.head_dim) +
               " is not supported by flash_decode (32, 64 or 128)");
  Decoder dec;
  dec.config_ = c;
  dec.options_ = o;
  dec.state_ = std::make_unique<State>(target);
  State& s = *dec.state_;
  s.cache = &cache;

  const std::size_t M = o.batch, H = c.hidden, I = c.intermediate, V = c.vocab, hd = c.head_dim;
  const std::size_t q_out = std::size_t{c.heads} * hd, kv_out = std::size_t{c.kv_heads} * hd;
  const std::size_t qkv_out = q_out + 2 * kv_out;
  const std::string rows = "rows=" + std::to_string(M);
  const std::string eps = "eps=" + num(c.rms_norm_eps);

  // A weight matrix [out, in] uploaded in the mode's format, with the GEMV that reads it: one
  // launch per slot (each slot's x and y rows at their offsets).
  struct Matrix {
    Buf w;
    std::size_t out = 0, in = 0;
  };
  auto upload_matrix = [&](const std::vector<float>& m, std::size_t out,
                           std::size_t in) -> rt::Expected<Matrix> {
    Matrix mx{{}, out, in};
    if (o.weights == WeightMode::kF32) {
      auto b = s.upload(m.data(), m.size() * 4);
      if (!b) return rt::fail(std::move(b).error());
      mx.w = *b;
    } else if (o.weights == WeightMode::kBF16) {
      std::vector<std::uint16_t> h(m.size());
      for (std::size_t i = 0; i < m.size(); ++i)
        h[i] = kernels::bf16_bits(m[i]);
      auto b = s.upload(h.data(), h.size() * 2);
      if (!b) return rt::fail(std::move(b).error());
      mx.w = *b;
    } else {
      auto q = q4k_quantize(m, static_cast<std::uint32_t>(out), static_cast<std::uint32_t>(in));
      if (!q) return bad(q.error().message);
      auto b = s.upload(q->data(), q->size() * 4);
      if (!b) return rt::fail(std::move(b).error());
      mx.w = *b;
    }
    dec.weight_bytes_ += mx.w.bytes;
    return mx;
  };
  // Vectors (norm weights, biases) and the gathered embedding stay f32 on the device. In bf16
  // mode their values are rounded to bf16 like the matrices', so the model on the device is the
  // checkpoint in bf16 (what transformers runs after .to(torch.bfloat16)), only its arithmetic f32.
  auto values = [&](const std::vector<float>& v) {
    std::vector<float> r = v;
    if (o.weights == WeightMode::kBF16) kernels::round_all(kernels::DType::kBF16, r);
    return r;
  };
  auto vec = [&](const std::vector<float>& v) -> rt::Expected<Buf> {
    const std::vector<float> r = values(v);
    auto b = s.upload(r.data(), r.size() * 4);
    if (b) dec.weight_bytes_ += b->bytes;
    return b;
  };
  // The GEMVs take the whole batch in one launch (`batch`: each weight read and decoded once for
  // every slot); batches past the kernels' limit launch once per slot.
  constexpr std::size_t kMaxBatch = 8;
  auto gemv = [&](const Matrix& m, Buf x, Buf y) -> rt::Expected<void> {
    const std::string n = std::to_string(m.out), k = std::to_string(m.in);
    const bool batched = M <= kMaxBatch;
    for (std::size_t slot = 0; slot < (batched ? 1 : M); ++slot) {
      const Buf xs = x.offset(slot * m.in * 4), ys = y.offset(slot * m.out * 4);
      const std::string batch = "batch=" + std::to_string(batched ? M : 1);
      rt::Expected<PlannedLaunch> l = bad("unreachable");
      if (o.weights == WeightMode::kF32)
        l = s.launch("gemv_f32", {"n=" + n, "k=" + k, batch}, {{"w", m.w}, {"x", xs}, {"y", ys}});
      else if (o.weights == WeightMode::kBF16)
        l = s.launch("gemv_half",
                     {"n=" + n, "k=" + k, "weight_dtype=bf16", "x_dtype=f32", "y_dtype=f32", batch},
                     {{"w", m.w}, {"x", xs}, {"y", ys}});
      else
        l = s.launch("q4k_gemv", {"rows=" + n, "cols=" + k, batch},
                     {{"w_q4k", m.w}, {"x", xs}, {"y", ys}});
      if (!l) return rt::fail(std::move(l).error());
      dec.plan_.push_back(std::move(*l));
    }
    return {};
  };
  auto add = [&](rt::Expected<PlannedLaunch> l) -> rt::Expected<void> {
    if (!l) return rt::fail(std::move(l).error());
    dec.plan_.push_back(std::move(*l));
    return {};
  };
#define PTXKIT_DEC_TRY_ASSIGN(var, expr)                                                           \
  auto var##_r = (expr);                                                                           \
  if (!var##_r) return rt::fail(std::move(var##_r).error());                                       \
  auto var = std::move(*var##_r)

  // Step inputs and activations.
  PTXKIT_DEC_TRY_ASSIGN(ids, s.alloc(M * 4));
  PTXKIT_DEC_TRY_ASSIGN(positions, s.alloc(M * 4));
  PTXKIT_DEC_TRY_ASSIGN(seq_lens, s.alloc(M * 4));
  s.ids = ids;
  s.positions = positions;
  s.seq_lens = seq_lens;
  PTXKIT_DEC_TRY_ASSIGN(x0, s.alloc(M * H * 4));
  PTXKIT_DEC_TRY_ASSIGN(x1, s.alloc(M * H * 4));
  PTXKIT_DEC_TRY_ASSIGN(h, s.alloc(M * H * 4));
  PTXKIT_DEC_TRY_ASSIGN(qkv, s.alloc(M * qkv_out * 4));
  PTXKIT_DEC_TRY_ASSIGN(q, s.alloc(M * q_out * 4));
  PTXKIT_DEC_TRY_ASSIGN(attn, s.alloc(M * q_out * 4));
  PTXKIT_DEC_TRY_ASSIGN(proj, s.alloc(M * H * 4));
  PTXKIT_DEC_TRY_ASSIGN(gate, s.alloc(M * I * 4));
  PTXKIT_DEC_TRY_ASSIGN(up, s.alloc(M * I * 4));
  PTXKIT_DEC_TRY_ASSIGN(act, s.alloc(M * I * 4));
  PTXKIT_DEC_TRY_ASSIGN(logits, s.alloc(M * V * 4));
  s.logits = logits;

  // Weights that are not matrices stay f32 (norm weights, biases, the gathered embedding).
  // The embedding table: a step gathers only `batch` rows of it, so it counts towards the
  // weight bytes a step reads only where it is also the (tied) f32 LM head.
  const std::vector<float> embed_values = values(w.embed);
  PTXKIT_DEC_TRY_ASSIGN(embed, s.upload(embed_values.data(), embed_values.size() * 4));
  PTXKIT_DEC_TRY_ASSIGN(final_norm, vec(w.final_norm));

  // flash_decode's workspace (scratch partials, counters zeroed once) and, per layer, the KV
  // caches [slot, kv_heads, max_seq_len, head_dim] with the per-slot pointer arrays.
  const std::vector<std::string> attn_sets = {"head_dim=" + std::to_string(hd),
                                              "num_heads=" + std::to_string(c.heads),
                                              "num_kv_heads=" + std::to_string(c.kv_heads),
                                              "max_seq_len=" + std::to_string(o.max_seq_len),
                                              "chunk_size=64",
                                              "batch_size=" + std::to_string(M)};
  const std::size_t chunks = (o.max_seq_len + 63) / 64;
  PTXKIT_DEC_TRY_ASSIGN(partial_max, s.alloc(M * c.heads * chunks * 4));
  PTXKIT_DEC_TRY_ASSIGN(partial_sum, s.alloc(M * c.heads * chunks * 4));
  PTXKIT_DEC_TRY_ASSIGN(partial_out, s.alloc(M * c.heads * chunks * hd * 4));
  PTXKIT_DEC_TRY_ASSIGN(counters, s.alloc(M * c.kv_heads * 4));
  const std::size_t slot_cache = kv_out * o.max_seq_len; // elements per slot and layer

  Buf x = x0, x_next = x1;
  // h = RMSNorm(embedding rows) with the first layer's input norm.
  PTXKIT_RT_TRY(add(s.launch(
      "embedding_gather",
      {"vocab=" + std::to_string(V), "hidden=" + std::to_string(H), "tokens=" + std::to_string(M)},
      {{"table", embed}, {"ids", ids}, {"output", x}})));
  PTXKIT_DEC_TRY_ASSIGN(norm0, vec(w.layers.front().input_norm));
  PTXKIT_RT_TRY(add(s.launch("rmsnorm", {"hidden=" + std::to_string(H), eps, rows},
                             {{"input", x}, {"output", h}, {"gamma", norm0}})));
  for (std::size_t li = 0; li < c.layers; ++li) {
    const LayerWeights& l = w.layers[li];
    // Q, K and V as one [q_out + 2 kv_out, H] matrix: one GEMV for the three projections.
    std::vector<float> qkv_rows = l.q;
    qkv_rows.insert(qkv_rows.end(), l.k.begin(), l.k.end());
    qkv_rows.insert(qkv_rows.end(), l.v.begin(), l.v.end());
    PTXKIT_DEC_TRY_ASSIGN(wqkv, upload_matrix(qkv_rows, qkv_out, H));
    PTXKIT_DEC_TRY_ASSIGN(wo, upload_matrix(l.o, H, q_out));
    PTXKIT_DEC_TRY_ASSIGN(wgate, upload_matrix(l.gate, I, H));
    PTXKIT_DEC_TRY_ASSIGN(wup, upload_matrix(l.up, I, H));
    PTXKIT_DEC_TRY_ASSIGN(wdown, upload_matrix(l.down, H, I));
    PTXKIT_DEC_TRY_ASSIGN(post_norm, vec(l.post_attention_norm));
    PTXKIT_DEC_TRY_ASSIGN(k_cache, s.alloc(M * slot_cache * 4));
    PTXKIT_DEC_TRY_ASSIGN(v_cache, s.alloc(M * slot_cache * 4));
    std::vector<rt::cu::DevicePtr> kp(M), vp(M);
    for (std::size_t slot = 0; slot < M; ++slot) {
      kp[slot] = k_cache.ptr + slot * slot_cache * 4;
      vp[slot] = v_cache.ptr + slot * slot_cache * 4;
    }
    PTXKIT_DEC_TRY_ASSIGN(k_ptrs, s.upload(kp.data(), M * 8));
    PTXKIT_DEC_TRY_ASSIGN(v_ptrs, s.upload(vp.data(), M * 8));

    PTXKIT_RT_TRY(gemv(wqkv, h, qkv));
    // The biases, RoPE on Q and K, and K and V into the caches at each slot's position: one
    // launch (qkv_rope_append) for what is otherwise bias_add, two RoPEs and kv_scatter.
    std::map<std::string, Buf> append_args = {{"qkv", qkv},
                                              {"positions", positions},
                                              {"q", q},
                                              {"k_cache", k_cache},
                                              {"v_cache", v_cache}};
    if (c.qkv_bias) {
      std::vector<float> bias = l.q_bias;
      bias.insert(bias.end(), l.k_bias.begin(), l.k_bias.end());
      bias.insert(bias.end(), l.v_bias.begin(), l.v_bias.end());
      PTXKIT_DEC_TRY_ASSIGN(b, vec(bias));
      append_args["bias"] = b;
    }
    PTXKIT_RT_TRY(add(s.launch(
        "qkv_rope_append",
        {"head_dim=" + std::to_string(hd), "num_heads=" + std::to_string(c.heads),
         "num_kv_heads=" + std::to_string(c.kv_heads), "theta=" + num(c.rope_theta),
         std::string("has_bias=") + (c.qkv_bias ? "true" : "false"),
         "max_seq_len=" + std::to_string(o.max_seq_len), "batch_size=" + std::to_string(M)},
        append_args)));
    PTXKIT_RT_TRY(add(s.launch("flash_decode", attn_sets,
                               {{"q", q},
                                {"k_ptrs", k_ptrs},
                                {"v_ptrs", v_ptrs},
                                {"partial_max", partial_max},
                                {"partial_sum", partial_sum},
                                {"partial_out", partial_out},
                                {"seq_lens", seq_lens},
                                {"counters", counters},
                                {"out", attn}})));
    PTXKIT_RT_TRY(gemv(wo, attn, proj));
    // x_next = x + o; h = RMSNorm(x_next) * post-attention norm.
    PTXKIT_RT_TRY(add(s.launch(
        "fused_residual_rmsnorm", {"hidden=" + std::to_string(H), eps, rows},
        {{"input", proj}, {"residual", x}, {"gamma", post_norm}, {"sum", x_next}, {"output", h}})));
    std::swap(x, x_next);
    PTXKIT_RT_TRY(gemv(wgate, h, gate));
    PTXKIT_RT_TRY(gemv(wup, h, up));
    PTXKIT_RT_TRY(add(s.launch("swiglu", {"n=" + std::to_string(M * I)},
                               {{"gate", gate}, {"up", up}, {"output", act}})));
    PTXKIT_RT_TRY(gemv(wdown, act, proj));
    // x_next = x + down; h = RMSNorm(x_next) with the next layer's input norm (or the final one).
    Buf next_norm = final_norm;
    if (li + 1 < c.layers) {
      PTXKIT_DEC_TRY_ASSIGN(nn, vec(w.layers[li + 1].input_norm));
      next_norm = nn;
    }
    PTXKIT_RT_TRY(add(s.launch(
        "fused_residual_rmsnorm", {"hidden=" + std::to_string(H), eps, rows},
        {{"input", proj}, {"residual", x}, {"gamma", next_norm}, {"sum", x_next}, {"output", h}})));
    std::swap(x, x_next);
  }
  // Logits and the greedy ids.
  // A tied f32 head is the embedding buffer itself; otherwise the head in the mode's format.
  Matrix head{embed, V, H};
  if (c.tie_word_embeddings && o.weights == WeightMode::kF32) {
    dec.weight_bytes_ += embed.bytes;
  } else {
    PTXKIT_DEC_TRY_ASSIGN(h_up, upload_matrix(w.head(), V, H));
    head = h_up;
  }
  PTXKIT_RT_TRY(gemv(head, h, logits));
  const kernels::Kernel* partial = kernels::KernelRegistry::find("argmax_partial");
  if (!partial) return bad("no argmax_partial kernel");
  auto pv = kernels::config_from_assignments(
      *partial, {"vocab=" + std::to_string(V), "rows=" + std::to_string(M)});
  if (!pv) return bad(pv.error().to_string());
  const std::uint32_t blocks = partial->launch(*pv).grid[0];
  PTXKIT_DEC_TRY_ASSIGN(part_value, s.alloc(M * blocks * 4));
  PTXKIT_DEC_TRY_ASSIGN(part_index, s.alloc(M * blocks * 4));
  PTXKIT_DEC_TRY_ASSIGN(max_value, s.alloc(M * 4));
  PTXKIT_DEC_TRY_ASSIGN(next, s.alloc(M * 4));
  s.next = next;
  PTXKIT_RT_TRY(add(
      s.launch("argmax_partial", {"vocab=" + std::to_string(V), "rows=" + std::to_string(M)},
               {{"input", logits}, {"partial_value", part_value}, {"partial_index", part_index}})));
  PTXKIT_RT_TRY(add(s.launch(
      "argmax_final", {"num_partials=" + std::to_string(blocks), "rows=" + std::to_string(M)},
      {{"partial_value", part_value},
       {"partial_index", part_index},
       {"max_value", max_value},
       {"index", next}})));
#undef PTXKIT_DEC_TRY_ASSIGN
  return dec;
}

rt::Expected<void> Decoder::upload_inputs(rt::Stream& stream, std::span<const std::uint32_t> tokens,
                                          std::span<const std::uint32_t> positions) {
  const std::size_t M = options_.batch;
  if (tokens.size() != M || positions.size() != M)
    return bad("a step takes " + std::to_string(M) + " tokens and positions, one per slot (" +
               std::to_string(tokens.size()) + " and " + std::to_string(positions.size()) +
               " given)");
  for (std::size_t i = 0; i < M; ++i) {
    if (tokens[i] >= config_.vocab)
      return bad("slot " + std::to_string(i) + ": token id " + std::to_string(tokens[i]) +
                 " is not below the vocabulary " + std::to_string(config_.vocab));
    if (positions[i] >= options_.max_seq_len)
      return bad("slot " + std::to_string(i) + ": position " + std::to_string(positions[i]) +
                 " is past the KV cache (max_seq_len " + std::to_string(options_.max_seq_len) +
                 ")");
  }
  State& s = *state_;
  std::vector<std::uint32_t> lens(M);
  for (std::size_t i = 0; i < M; ++i)
    lens[i] = positions[i] + 1;
  rt::Driver& d = stream.driver();
  PTXKIT_RT_TRY(rt::check(d, d.memcpy_htod(s.ids.ptr, tokens.data(), M * 4), "cuMemcpyHtoD"));
  PTXKIT_RT_TRY(
      rt::check(d, d.memcpy_htod(s.positions.ptr, positions.data(), M * 4), "cuMemcpyHtoD"));
  PTXKIT_RT_TRY(rt::check(d, d.memcpy_htod(s.seq_lens.ptr, lens.data(), M * 4), "cuMemcpyHtoD"));
  return {};
}

rt::Expected<void> Decoder::launch(std::size_t i, const rt::Stream& stream) const {
  const PlannedLaunch& l = plan_[i];
  rt::ArgRef refs[16];
  if (l.args.size() > std::size(refs)) return bad(l.kernel + ": more than 16 parameters");
  for (std::size_t a = 0; a < l.args.size(); ++a)
    refs[a] = {&l.args[a], sizeof l.args[a]};
  auto ok = l.function->launch_args(stream, l.dims, std::span(refs, l.args.size()));
  if (!ok)
    return rt::fail(rt::ErrorKind::kBadLaunch,
                    "decoder step, " + l.kernel + ": " + ok.error().message);
  return {};
}

rt::Expected<std::vector<double>> Decoder::profile_step(rt::Stream& stream,
                                                        std::span<const std::uint32_t> tokens,
                                                        std::span<const std::uint32_t> positions) {
  PTXKIT_RT_TRY(upload_inputs(stream, tokens, positions));
  const rt::Context& ctx = state_->cache->context();
  std::vector<rt::Event> events;
  for (std::size_t i = 0; i <= plan_.size(); ++i) {
    auto e = rt::Event::create(ctx);
    if (!e) return rt::fail(std::move(e).error());
    events.push_back(std::move(*e));
  }
  for (std::size_t i = 0; i < plan_.size(); ++i) // untimed: keeps the device busy
    PTXKIT_RT_TRY(launch(i, stream));
  PTXKIT_RT_TRY(events[0].record(stream));
  for (std::size_t i = 0; i < plan_.size(); ++i) {
    PTXKIT_RT_TRY(launch(i, stream));
    PTXKIT_RT_TRY(events[i + 1].record(stream));
  }
  PTXKIT_RT_TRY(events.back().synchronize());
  std::vector<double> us(plan_.size());
  for (std::size_t i = 0; i < plan_.size(); ++i) {
    auto ms = rt::Event::elapsed_ms(events[i], events[i + 1]);
    if (!ms) return rt::fail(std::move(ms).error());
    us[i] = 1e3 * *ms;
  }
  return us;
}

rt::Expected<StepResult> Decoder::step(rt::Stream& stream, std::span<const std::uint32_t> tokens,
                                       std::span<const std::uint32_t> positions, bool want_logits) {
  PTXKIT_RT_TRY(upload_inputs(stream, tokens, positions));
  State& s = *state_;
  const std::size_t M = options_.batch;
  rt::Driver& d = stream.driver();
  auto run_plan = [this](const rt::Stream& st) -> rt::Expected<void> {
    for (std::size_t i = 0; i < plan_.size(); ++i)
      PTXKIT_RT_TRY(launch(i, st));
    return {};
  };
  if (options_.use_graph) {
    if (!s.graph) {
      auto g = rt::capture(stream, run_plan);
      if (!g) return rt::fail(std::move(g).error());
      s.graph.emplace(std::move(*g));
    }
    PTXKIT_RT_TRY(s.graph->launch(stream));
  } else {
    PTXKIT_RT_TRY(run_plan(stream));
  }
  PTXKIT_RT_TRY(stream.synchronize());
  StepResult r;
  r.next.resize(M);
  PTXKIT_RT_TRY(rt::check(d, d.memcpy_dtoh(r.next.data(), s.next.ptr, M * 4), "cuMemcpyDtoH"));
  if (want_logits) {
    r.logits.resize(M * config_.vocab);
    PTXKIT_RT_TRY(rt::check(d, d.memcpy_dtoh(r.logits.data(), s.logits.ptr, r.logits.size() * 4),
                            "cuMemcpyDtoH"));
  }
  return r;
}

} // namespace ptxkit::decoder
