// model_config.h: the decoder architecture a Hugging Face config.json describes (Qwen2 and Llama).
//
// Both are pre-norm decoders with RMSNorm, rotary embeddings applied NeoX-style (rotate_half:
// element i pairs with i + head_dim/2), grouped-query attention and a SwiGLU FFN; they differ in
// the Q/K/V biases (Qwen2 has them, Llama only with "attention_bias": true), the RoPE base and
// whether the LM head is tied to the token embedding. Fields the architecture needs and the file
// lacks are an error naming the field; fields with a Hugging Face default take that default.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ptxkit/ptxgen/expected.h>
#include <string>

namespace ptxkit::decoder {

enum class Architecture { kQwen2, kLlama };

struct ModelConfig {
  Architecture arch = Architecture::kQwen2;
  std::uint32_t hidden = 0;         // hidden_size
  std::uint32_t layers = 0;         // num_hidden_layers
  std::uint32_t heads = 0;          // num_attention_heads
  std::uint32_t kv_heads = 0;       // num_key_value_heads (default: heads)
  std::uint32_t head_dim = 0;       // head_dim (default: hidden / heads)
  std::uint32_t intermediate = 0;   // intermediate_size
  std::uint32_t vocab = 0;          // vocab_size
  std::uint32_t max_positions = 0;  // max_position_embeddings
  double rope_theta = 10000.0;      // rope_theta
  double rms_norm_eps = 1e-6;       // rms_norm_eps
  bool tie_word_embeddings = false; // the LM head is model.embed_tokens.weight
  bool qkv_bias = false;            // q_proj/k_proj/v_proj have biases

  // Consistency the kernels rely on: heads a multiple of kv_heads, head_dim even, and so on.
  [[nodiscard]] Expected<void> validate() const;
};

// Reads `path` (a config.json); the error names the file and the field.
[[nodiscard]] Expected<ModelConfig> read_model_config(const std::filesystem::path& path);
// The same from JSON text (for tests and embedded configs); `origin` names it in errors.
[[nodiscard]] Expected<ModelConfig> parse_model_config(const std::string& json,
                                                       const std::string& origin);

} // namespace ptxkit::decoder
