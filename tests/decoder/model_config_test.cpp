// model_config_test.cpp: config.json of Qwen2.5-0.5B and of a Llama model to ModelConfig, the
// defaults Hugging Face applies, and refusals that name the field.
#include <gtest/gtest.h>
#include <ptxkit/decoder/model_config.h>

namespace ptxkit::decoder {
namespace {

// Qwen2.5-0.5B's config.json, as published (fields the decoder ignores left in).
constexpr const char* kQwen05b = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
  "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 896,
  "initializer_range": 0.02, "intermediate_size": 4864, "max_position_embeddings": 32768,
  "max_window_layers": 24, "model_type": "qwen2", "num_attention_heads": 14,
  "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": true,
  "torch_dtype": "bfloat16", "transformers_version": "4.40.1", "use_cache": true,
  "use_sliding_window": false, "vocab_size": 151936})";

TEST(ModelConfig, ReadsQwen25HalfBillion) {
  auto c = parse_model_config(kQwen05b, "config.json");
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_EQ(c->arch, Architecture::kQwen2);
  EXPECT_EQ(c->hidden, 896u);
  EXPECT_EQ(c->layers, 24u);
  EXPECT_EQ(c->heads, 14u);
  EXPECT_EQ(c->kv_heads, 2u);
  EXPECT_EQ(c->head_dim, 64u); // hidden / heads
  EXPECT_EQ(c->intermediate, 4864u);
  EXPECT_EQ(c->vocab, 151936u);
  EXPECT_EQ(c->max_positions, 32768u);
  EXPECT_DOUBLE_EQ(c->rope_theta, 1e6);
  EXPECT_DOUBLE_EQ(c->rms_norm_eps, 1e-6);
  EXPECT_TRUE(c->tie_word_embeddings);
  EXPECT_TRUE(c->qkv_bias); // Qwen2's attention always has Q/K/V biases
}

TEST(ModelConfig, LlamaTakesHuggingFaceDefaults) {
  auto c = parse_model_config(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 512,
      "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1376,
      "vocab_size": 32000})",
                              "llama.json");
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_EQ(c->arch, Architecture::kLlama);
  EXPECT_EQ(c->kv_heads, 8u); // no num_key_value_heads: multi-head attention
  EXPECT_EQ(c->head_dim, 64u);
  EXPECT_DOUBLE_EQ(c->rope_theta, 1e4);
  EXPECT_FALSE(c->tie_word_embeddings);
  EXPECT_FALSE(c->qkv_bias);
  auto biased = parse_model_config(R"({"model_type": "llama", "hidden_size": 512,
      "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1376,
      "vocab_size": 32000, "attention_bias": true, "head_dim": 128})",
                                   "llama.json");
  ASSERT_TRUE(biased) << biased.error().to_string();
  EXPECT_TRUE(biased->qkv_bias);
  EXPECT_EQ(biased->head_dim, 128u); // given explicitly
}

// transformers 5 nests the RoPE base in "rope_parameters": a default of 1e4 there instead of the
// model's 1e6 would rotate every query and key wrongly.
TEST(ModelConfig, ReadsTheRopeBaseFromRopeParameters) {
  auto c = parse_model_config(R"({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 896,
      "num_hidden_layers": 2, "num_attention_heads": 14, "num_key_value_heads": 2,
      "intermediate_size": 4864, "vocab_size": 151936,
      "rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"},
      "rope_scaling": null})",
                              "config.json");
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_DOUBLE_EQ(c->rope_theta, 1e6);
}

TEST(ModelConfig, RefusalsNameTheFileAndTheField) {
  struct Case {
    std::string json, message;
  };
  const std::vector<Case> cases = {
      {"[1]", "not a JSON object"},
      {R"({"architectures": ["GPT2LMHeadModel"]})",
       "architecture 'GPT2LMHeadModel' is not supported"},
      {R"({"model_type": "qwen2", "hidden_size": 896})", "field \"num_hidden_layers\" is missing"},
      {R"({"model_type": "qwen2", "hidden_size": -896, "num_hidden_layers": 1})",
       "field \"hidden_size\" is -896, not a positive 32-bit integer"},
      {R"({"model_type": "qwen2", "hidden_size": 896, "num_hidden_layers": 1,
           "num_attention_heads": 14, "num_key_value_heads": 3, "intermediate_size": 8,
           "vocab_size": 8})",
       "num_key_value_heads = 3 does not divide num_attention_heads = 14"},
      {R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,
           "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8,
           "rope_scaling": {"type": "linear", "factor": 2.0}})",
       "\"rope_scaling\" asks for RoPE type 'linear'"},
      {R"({"model_type": "qwen2", "hidden_size": 64, "num_hidden_layers": 1,
           "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8,
           "rope_parameters": {"rope_theta": 1e6, "rope_type": "yarn", "factor": 4.0}})",
       "\"rope_parameters\" asks for RoPE type 'yarn'"},
      {R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,
           "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8,
           "tie_word_embeddings": "yes"})",
       "field \"tie_word_embeddings\" is \"yes\", not a boolean"},
  };
  for (const auto& c : cases) {
    auto r = parse_model_config(c.json, "cfg.json");
    ASSERT_FALSE(r) << c.json;
    EXPECT_EQ(r.error().file, "cfg.json");
    EXPECT_NE(r.error().message.find(c.message), std::string::npos) << r.error().message;
  }
  EXPECT_NE(read_model_config("/nonexistent/config.json").error().message.find("cannot open"),
            std::string::npos);
}

} // namespace
} // namespace ptxkit::decoder
