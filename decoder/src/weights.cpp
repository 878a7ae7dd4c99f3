// weights.cpp: the checkpoint's tensors into ModelWeights, by Hugging Face name and checked shape.
#include "ptxkit/decoder/weights.h"

#include <string>

namespace ptxkit::decoder {

Expected<ModelWeights> read_weights(const ModelConfig& c, const Checkpoint& ck) {
  ModelWeights w;
  w.config = c;
  const std::uint64_t hidden = c.hidden, q_out = std::uint64_t{c.heads} * c.head_dim,
                      kv_out = std::uint64_t{c.kv_heads} * c.head_dim, inter = c.intermediate,
                      vocab = c.vocab;
  Error first;
  bool failed = false;
  auto take = [&](const std::string& name, std::vector<std::uint64_t> shape,
                  std::vector<float>& into) {
    if (failed) return;
    auto t = ck.read_f32(name, shape);
    if (!t) {
      first = t.error();
      failed = true;
      return;
    }
    into = std::move(*t);
  };
  take("model.embed_tokens.weight", {vocab, hidden}, w.embed);
  w.layers.resize(c.layers);
  for (std::uint32_t i = 0; i < c.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    LayerWeights& l = w.layers[i];
    take(p + "input_layernorm.weight", {hidden}, l.input_norm);
    take(p + "self_attn.q_proj.weight", {q_out, hidden}, l.q);
    take(p + "self_attn.k_proj.weight", {kv_out, hidden}, l.k);
    take(p + "self_attn.v_proj.weight", {kv_out, hidden}, l.v);
    if (c.qkv_bias) {
      take(p + "self_attn.q_proj.bias", {q_out}, l.q_bias);
      take(p + "self_attn.k_proj.bias", {kv_out}, l.k_bias);
      take(p + "self_attn.v_proj.bias", {kv_out}, l.v_bias);
    }
    take(p + "self_attn.o_proj.weight", {hidden, q_out}, l.o);
    take(p + "post_attention_layernorm.weight", {hidden}, l.post_attention_norm);
    take(p + "mlp.gate_proj.weight", {inter, hidden}, l.gate);
    take(p + "mlp.up_proj.weight", {inter, hidden}, l.up);
    take(p + "mlp.down_proj.weight", {hidden, inter}, l.down);
  }
  take("model.norm.weight", {hidden}, w.final_norm);
  if (!c.tie_word_embeddings) take("lm_head.weight", {vocab, hidden}, w.lm_head);
  if (failed) return first;
  return w;
}

Expected<ModelWeights> read_model(const std::filesystem::path& dir) {
  auto c = read_model_config(dir / "config.json");
  if (!c) return c.error();
  auto ck = Checkpoint::open(dir);
  if (!ck) return ck.error();
  return read_weights(*c, *ck);
}

} // namespace ptxkit::decoder
