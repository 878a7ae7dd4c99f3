// weights.h: a decoder's weights as Hugging Face names them, read from a checkpoint into host
// memory (f32), every tensor checked against the shape the config implies.
//
// Names (Qwen2 and Llama share them): model.embed_tokens.weight [vocab, hidden];
// model.layers.N.{input_layernorm, post_attention_layernorm}.weight [hidden];
// model.layers.N.self_attn.{q,k,v}_proj.weight [heads*head_dim | kv_heads*head_dim, hidden] with
// .bias when the config has Q/K/V biases; self_attn.o_proj.weight [hidden, heads*head_dim];
// mlp.{gate,up}_proj.weight [intermediate, hidden]; mlp.down_proj.weight [hidden, intermediate];
// model.norm.weight [hidden]; lm_head.weight [vocab, hidden] unless tied to the embedding.
#pragma once

#include "ptxkit/decoder/model_config.h"
#include "ptxkit/decoder/safetensors.h"

#include <vector>

namespace ptxkit::decoder {

struct LayerWeights {
  std::vector<float> input_norm, post_attention_norm; // [hidden]
  std::vector<float> q, k, v, o;                      // row-major [out, in]
  std::vector<float> q_bias, k_bias, v_bias;          // empty without Q/K/V biases
  std::vector<float> gate, up, down;
};

struct ModelWeights {
  ModelConfig config;
  std::vector<float> embed; // [vocab, hidden]
  std::vector<LayerWeights> layers;
  std::vector<float> final_norm; // [hidden]
  std::vector<float> lm_head;    // [vocab, hidden]; empty when tied (use embed)

  [[nodiscard]] const std::vector<float>& head() const {
    return config.tie_word_embeddings ? embed : lm_head;
  }
};

// Reads every weight `c` needs from `ck` (converted to f32); the first missing or mis-shaped
// tensor is the error, named.
[[nodiscard]] Expected<ModelWeights> read_weights(const ModelConfig& c, const Checkpoint& ck);

// config.json and the checkpoint of a model directory.
[[nodiscard]] Expected<ModelWeights> read_model(const std::filesystem::path& dir);

} // namespace ptxkit::decoder
