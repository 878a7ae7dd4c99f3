// reference_decoder_test.cpp: the CPU decoder on tiny random Qwen2 and Llama checkpoints written
// here: weights read by name and shape (the first missing one named), and properties of the
// forward pass that hold whatever the weights are (the residual path alone, attention at the
// first position, independent sequences, tied heads).
#include "checkpoint_writer.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/decoder/reference_decoder.h>
#include <unistd.h>

namespace ptxkit::decoder {
namespace {

namespace fs = std::filesystem;

nlohmann::json tiny(const std::string& type) {
  nlohmann::json c = {{"model_type", type},       {"hidden_size", 16},
                      {"num_hidden_layers", 2},   {"num_attention_heads", 4},
                      {"num_key_value_heads", 2}, {"intermediate_size", 24},
                      {"vocab_size", 11},         {"rms_norm_eps", 1e-6}};
  if (type == "qwen2") {
    c["rope_theta"] = 1e6;
    c["tie_word_embeddings"] = true;
  }
  return c;
}

class ReferenceDecoderTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ptxkit-refdec-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  ModelWeights model(const std::string& type, const std::string& dtype = "F32") {
    test_util::write_random_model(dir_, tiny(type), 42, dtype);
    auto w = read_model(dir_);
    EXPECT_TRUE(w) << w.error().to_string();
    return w ? std::move(*w) : ModelWeights{};
  }
  fs::path dir_;
};

TEST_F(ReferenceDecoderTest, ReadsEveryTensorAndNamesTheFirstMissingOne) {
  const ModelWeights q = model("qwen2");
  EXPECT_EQ(q.layers.size(), 2u);
  EXPECT_EQ(q.layers[1].k.size(), 2u * 4 * 16); // kv_heads * head_dim x hidden
  EXPECT_EQ(q.layers[1].k_bias.size(), 8u);
  EXPECT_TRUE(q.lm_head.empty()); // tied
  const ModelWeights l = model("llama");
  EXPECT_TRUE(l.layers[0].q_bias.empty());
  EXPECT_EQ(l.lm_head.size(), 11u * 16);

  fs::remove_all(dir_);
  test_util::write_random_model(dir_, tiny("qwen2"), 1, "F32", 0.2f,
                                "model.layers.1.self_attn.v_proj.bias");
  auto missing = read_model(dir_);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "the checkpoint has no tensor 'model.layers.1.self_attn.v_proj.bias'");
}

TEST_F(ReferenceDecoderTest, HalfCheckpointsAreReadAsTheirRoundedValues) {
  const auto written = test_util::write_random_model(dir_, tiny("llama"), 7, "BF16");
  auto w = read_model(dir_);
  ASSERT_TRUE(w) << w.error().to_string();
  const auto& src = written.at("model.layers.0.mlp.up_proj.weight");
  ASSERT_EQ(w->layers[0].up.size(), src.size());
  for (std::size_t i = 0; i < src.size(); ++i)
    ASSERT_EQ(w->layers[0].up[i], kernels::round_to(kernels::DType::kBF16, src[i])) << i;
}

TEST_F(ReferenceDecoderTest, WithoutAttentionAndFfnOutputsTheLogitsAreTheResidualPath) {
  ModelWeights w = model("qwen2");
  for (auto& l : w.layers) {
    std::fill(l.o.begin(), l.o.end(), 0.0f);
    std::fill(l.down.begin(), l.down.end(), 0.0f);
  }
  ReferenceDecoder dec(w);
  const std::uint32_t token = 5;
  auto logits = dec.step(0, token);
  ASSERT_TRUE(logits);
  // logits = E . (rmsnorm(E[token]) * final_norm): the embedding row passes every layer unchanged.
  double ss = 0;
  for (std::size_t i = 0; i < 16; ++i)
    ss += double{w.embed[token * 16 + i]} * w.embed[token * 16 + i];
  const double inv = 1 / std::sqrt(ss / 16 + 1e-6);
  for (std::size_t v = 0; v < 11; ++v) {
    double want = 0;
    for (std::size_t i = 0; i < 16; ++i)
      want += double{w.embed[v * 16 + i]} * w.embed[token * 16 + i] * inv * w.final_norm[i];
    EXPECT_NEAR((*logits)[v], want, 1e-5 * std::max(1.0, std::fabs(want))) << v;
  }
}

TEST_F(ReferenceDecoderTest, AtTheFirstPositionQueriesAndKeysDoNotMatterAfterwardsTheyDo) {
  const ModelWeights a = model("llama");
  ModelWeights b = a;
  for (auto& l : b.layers) {
    for (auto& x : l.q)
      x *= -1.7f;
    for (auto& x : l.k)
      x *= 0.3f;
  }
  ReferenceDecoder da(a), db(b);
  auto a0 = da.step(0, 3), b0 = db.step(0, 3);
  ASSERT_TRUE(a0 && b0);
  for (std::size_t v = 0; v < 11; ++v)
    EXPECT_NEAR((*a0)[v], (*b0)[v], 1e-5) << v; // one position: softmax weight 1 on its own v
  auto a1 = da.step(0, 8), b1 = db.step(0, 8);
  ASSERT_TRUE(a1 && b1);
  double diff = 0;
  for (std::size_t v = 0; v < 11; ++v)
    diff = std::max(diff, double{std::fabs((*a1)[v] - (*b1)[v])});
  EXPECT_GT(diff, 1e-4); // two positions: the scores weigh them
}

TEST_F(ReferenceDecoderTest, SequencesDecodedTogetherMatchEachDecodedAlone) {
  const ModelWeights w = model("qwen2");
  ReferenceDecoder together(w), alone(w);
  const std::vector<std::uint32_t> s0 = {1, 4, 9, 2}, s1 = {7, 7, 3};
  std::vector<std::vector<float>> t0, t1;
  for (std::size_t i = 0; i < 4; ++i) {
    auto l0 = together.step(0, s0[i]);
    ASSERT_TRUE(l0);
    t0.push_back(*l0);
    if (i < s1.size()) {
      auto l1 = together.step(1, s1[i]);
      ASSERT_TRUE(l1);
      t1.push_back(*l1);
    }
  }
  for (std::size_t i = 0; i < s1.size(); ++i)
    EXPECT_EQ(*alone.step(5, s1[i]), t1[i]) << i;
  for (std::size_t i = 0; i < s0.size(); ++i)
    EXPECT_EQ(*alone.step(6, s0[i]), t0[i]) << i;
  EXPECT_EQ(together.length(0), 4u);
  EXPECT_EQ(together.length(1), 3u);
  EXPECT_EQ(together.length(9), 0u);
}

TEST_F(ReferenceDecoderTest, AnUntiedHeadEqualToTheEmbeddingGivesTheTiedLogits) {
  ModelWeights tied = model("qwen2");
  ModelWeights untied = tied;
  untied.config.tie_word_embeddings = false;
  untied.lm_head = untied.embed;
  ReferenceDecoder a(tied), b(untied);
  const std::vector<std::uint32_t> prompt = {2, 6, 10};
  std::vector<std::vector<float>> la, lb;
  auto ga = a.generate(0, prompt, 5, &la);
  auto gb = b.generate(0, prompt, 5, &lb);
  ASSERT_TRUE(ga && gb);
  EXPECT_EQ(*ga, *gb);
  EXPECT_EQ(la, lb);
  EXPECT_EQ(la.size(), 5u);
  for (std::size_t i = 0; i + 1 < ga->size(); ++i)
    EXPECT_EQ((*ga)[i], argmax_first(la[i])); // each generated id is its step's argmax
  untied.lm_head[3 * 16] += 1.0f;             // a different head changes some logit
  ReferenceDecoder c(untied);
  std::vector<std::vector<float>> lc;
  ASSERT_TRUE(c.generate(0, prompt, 5, &lc));
  EXPECT_NE(la[0], lc[0]);
}

TEST_F(ReferenceDecoderTest, ATokenOutsideTheVocabularyIsRefused) {
  const ModelWeights w = model("llama");
  ReferenceDecoder dec(w);
  auto bad = dec.step(0, 11);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "token id 11 is not below the vocabulary 11");
  EXPECT_EQ(dec.length(0), 0u);
  EXPECT_FALSE(dec.generate(0, {}, 3));
}

} // namespace
} // namespace ptxkit::decoder
