// model_config.cpp: config.json to ModelConfig, with Hugging Face's defaults where it has them.
#include "ptxkit/decoder/model_config.h"

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ptxkit::decoder {
namespace {

Error error_in(const std::string& origin, std::string message) {
  return Error{.message = std::move(message), .file = origin};
}

// A positive integer field; `fallback` 0 means the field is required.
Expected<std::uint32_t> uint_field(const nlohmann::json& j, const char* name,
                                   std::uint32_t fallback, const std::string& origin) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) {
    if (fallback != 0) return fallback;
    return error_in(origin, std::string("field \"") + name + "\" is missing");
  }
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() == 0 ||
      it->get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max())
    return error_in(origin, std::string("field \"") + name + "\" is " + it->dump() +
                                ", not a positive 32-bit integer");
  return static_cast<std::uint32_t>(it->get<std::uint64_t>());
}

Expected<double> positive_number(const nlohmann::json& j, const char* name, double fallback,
                                 const std::string& origin) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number() || !(it->get<double>() > 0))
    return error_in(origin, std::string("field \"") + name + "\" is " + it->dump() +
                                ", not a positive number");
  return it->get<double>();
}

Expected<bool> bool_field(const nlohmann::json& j, const char* name, bool fallback,
                          const std::string& origin) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean())
    return error_in(origin,
                    std::string("field \"") + name + "\" is " + it->dump() + ", not a boolean");
  return it->get<bool>();
}

} // namespace

Expected<void> ModelConfig::validate() const {
  auto bad = [](std::string m) { return Error{.message = std::move(m), .file = {}}; };
  if (heads % kv_heads != 0)
    return bad("num_key_value_heads = " + std::to_string(kv_heads) +
               " does not divide num_attention_heads = " + std::to_string(heads));
  if (head_dim % 2 != 0)
    return bad("head_dim = " + std::to_string(head_dim) + " is odd (RoPE pairs)");
  return {};
}

Expected<ModelConfig> parse_model_config(const std::string& text, const std::string& origin) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return error_in(origin, "not a JSON object");
  ModelConfig c;
  const auto arch = j.find("architectures");
  const auto model_type = j.find("model_type");
  std::string name;
  if (arch != j.end() && arch->is_array() && !arch->empty() && (*arch)[0].is_string())
    name = (*arch)[0].get<std::string>();
  else if (model_type != j.end() && model_type->is_string())
    name = model_type->get<std::string>();
  if (name == "Qwen2ForCausalLM" || name == "qwen2") {
    c.arch = Architecture::kQwen2;
  } else if (name == "LlamaForCausalLM" || name == "llama") {
    c.arch = Architecture::kLlama;
  } else {
    return error_in(origin, "architecture '" + name +
                                "' is not supported (Qwen2ForCausalLM and LlamaForCausalLM are)");
  }

#define PTXKIT_TAKE(field, expr)                                                                   \
  do {                                                                                             \
    auto v = (expr);                                                                               \
    if (!v) return v.error();                                                                      \
    c.field = *v;                                                                                  \
  } while (0)
  PTXKIT_TAKE(hidden, uint_field(j, "hidden_size", 0, origin));
  PTXKIT_TAKE(layers, uint_field(j, "num_hidden_layers", 0, origin));
  PTXKIT_TAKE(heads, uint_field(j, "num_attention_heads", 0, origin));
  PTXKIT_TAKE(kv_heads, uint_field(j, "num_key_value_heads", c.heads, origin));
  if (c.hidden % c.heads != 0 && j.find("head_dim") == j.end())
    return error_in(origin, "hidden_size is not a multiple of num_attention_heads and there is "
                            "no \"head_dim\"");
  PTXKIT_TAKE(head_dim, uint_field(j, "head_dim", c.hidden / c.heads, origin));
  PTXKIT_TAKE(intermediate, uint_field(j, "intermediate_size", 0, origin));
  PTXKIT_TAKE(vocab, uint_field(j, "vocab_size", 0, origin));
  PTXKIT_TAKE(max_positions, uint_field(j, "max_position_embeddings", 2048, origin));
  // transformers 5 writes the RoPE settings as "rope_parameters" {"rope_theta", "rope_type"};
  // earlier versions a top-level "rope_theta" and an optional "rope_scaling".
  const auto params = j.find("rope_parameters");
  const bool nested = params != j.end() && params->is_object();
  PTXKIT_TAKE(rope_theta, positive_number(nested && params->contains("rope_theta") ? *params : j,
                                          "rope_theta", 10000.0, origin));
  PTXKIT_TAKE(rms_norm_eps, positive_number(j, "rms_norm_eps", 1e-6, origin));
  PTXKIT_TAKE(tie_word_embeddings, bool_field(j, "tie_word_embeddings", false, origin));
  // Qwen2's attention always has Q/K/V biases; Llama's only with attention_bias.
  if (c.arch == Architecture::kQwen2)
    c.qkv_bias = true;
  else
    PTXKIT_TAKE(qkv_bias, bool_field(j, "attention_bias", false, origin));
#undef PTXKIT_TAKE
  // Only the unscaled rotary embedding: a rope_type other than "default" is refused.
  for (const char* key : {"rope_scaling", "rope_parameters"}) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) continue;
    const auto type = it->is_object() ? it->value("rope_type", it->value("type", std::string()))
                                      : std::string("?");
    if (type != "default" && !(type.empty() && std::string(key) == "rope_parameters"))
      return error_in(origin, std::string("\"") + key + "\" asks for RoPE type '" + type +
                                  "': only the unscaled (default) rotary embedding is supported");
  }
  if (auto ok = c.validate(); !ok) return error_in(origin, ok.error().message);
  return c;
}

Expected<ModelConfig> read_model_config(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return error_in(path.string(), "cannot open it for reading");
  std::stringstream s;
  s << in.rdbuf();
  return parse_model_config(s.str(), path.string());
}

} // namespace ptxkit::decoder
