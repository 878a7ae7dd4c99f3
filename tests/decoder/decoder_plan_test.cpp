// decoder_plan_test.cpp: the GPU decoder against the runtime's fake driver (no GPU): the step it
// plans for a tiny Qwen2 and a tiny Llama (which kernels, in which order, with buffers of the
// sizes each kernel's parameters state), a step replayed from one captured graph launching
// exactly the plan, and the refusals before anything runs. The numbers themselves are proved on
// the GPU machine against transformers (scripts/check-decoder-reference.py).
#include "checkpoint_writer.h"
#include "fake_driver.h"

#include <gtest/gtest.h>
#include <ptxkit/decoder/decoder.h>
#include <ptxkit/runtime/kernel_cache.h>
#include <unistd.h>

namespace ptxkit::decoder {
namespace {

namespace fs = std::filesystem;
using runtime::testing::FakeDriver;

nlohmann::json tiny(const std::string& type, int layers) {
  // head_dim 32: the smallest flash_decode takes.
  return {{"model_type", type},
          {"hidden_size", 64},
          {"num_hidden_layers", layers},
          {"num_attention_heads", 2},
          {"num_key_value_heads", 1},
          {"intermediate_size", 96},
          {"vocab_size", 40},
          {"tie_word_embeddings", type == "qwen2"}};
}

class DecoderPlanTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ptxkit-decplan-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fake_->log_launches = true;
  }
  void TearDown() override { fs::remove_all(dir_); }

  ModelWeights model(const std::string& type, int layers) {
    test_util::write_random_model(dir_, tiny(type, layers), 3);
    auto w = read_model(dir_);
    EXPECT_TRUE(w) << w.error().to_string();
    return w ? std::move(*w) : ModelWeights{};
  }
  rt::Expected<Decoder> make(const ModelWeights& w, DecoderOptions o) {
    return Decoder::create(cache_, *ptxgen::Target::parse("sm_90"), w, o);
  }

  fs::path dir_;
  std::shared_ptr<FakeDriver> fake_ = std::make_shared<FakeDriver>();
  rt::Context ctx_ = *rt::Context::open(fake_);
  rt::KernelCache cache_{ctx_};
};

std::vector<std::string> kernels_of(const Decoder& d) {
  std::vector<std::string> k;
  for (const auto& l : d.plan())
    k.push_back(l.kernel);
  return k;
}

TEST_F(DecoderPlanTest, AQwen2StepIsTheLayerSequenceWithBiasesAndOneGemvForAllSlots) {
  const ModelWeights w = model("qwen2", 1);
  auto d = make(w, {.weights = WeightMode::kF32, .batch = 2, .max_seq_len = 128});
  ASSERT_TRUE(d) << d.error().message;
  const std::vector<std::string> gemv2 = {"gemv_f32"}; // batch 2 in one launch
  std::vector<std::string> want = {"embedding_gather", "rmsnorm"};
  auto append = [&](const std::vector<std::string>& v) {
    want.insert(want.end(), v.begin(), v.end());
  };
  append(gemv2); // q, k and v as one matrix
  append({"qkv_rope_append", "flash_decode"});
  append(gemv2); // o
  append({"fused_residual_rmsnorm"});
  append(gemv2); // gate
  append(gemv2); // up
  append({"swiglu"});
  append(gemv2); // down
  append({"fused_residual_rmsnorm"});
  append(gemv2); // LM head (tied: the embedding)
  append({"argmax_partial", "argmax_final"});
  EXPECT_EQ(kernels_of(*d), want);
  // Q4_K too takes the batch in one launch.
  auto q = make(w, {.weights = WeightMode::kQ4K, .batch = 2, .max_seq_len = 128});
  ASSERT_TRUE(q) << q.error().message;
  const auto qk = kernels_of(*q);
  EXPECT_EQ(std::count(qk.begin(), qk.end(), "q4k_gemv"), 6);
  for (const auto& l : d->plan())
    for (auto a : l.args)
      EXPECT_NE(a, 0u) << l.kernel;
}

TEST_F(DecoderPlanTest, ALlamaHasNoBiasesAndItsOwnHeadInEachWeightMode) {
  const ModelWeights w = model("llama", 2);
  std::uint64_t bytes[3] = {};
  for (WeightMode m : {WeightMode::kF32, WeightMode::kBF16, WeightMode::kQ4K}) {
    auto d = make(w, {.weights = m, .batch = 1, .max_seq_len = 64});
    ASSERT_TRUE(d) << weight_mode_name(m) << ": " << d.error().message;
    const auto k = kernels_of(*d);
    EXPECT_EQ(std::count(k.begin(), k.end(), "bias_add"), 0);
    EXPECT_EQ(std::count(k.begin(), k.end(), "flash_decode"), 2);
    const char* gemv = m == WeightMode::kF32    ? "gemv_f32"
                       : m == WeightMode::kBF16 ? "gemv_half"
                                                : "q4k_gemv";
    EXPECT_EQ(std::count(k.begin(), k.end(), gemv), 2 * 5 + 1) << weight_mode_name(m);
    bytes[static_cast<int>(m)] = d->weight_bytes();
  }
  // The matrices take 4, 2 and (rows x ceil(cols / 256) super-blocks of 144 bytes: rows are
  // padded to 256 values) bytes; the vectors (embedding for the gather, norms) stay f32.
  std::uint64_t f32 = 0, half = 0, q4k = 0;
  auto matrix = [&](std::uint64_t rows, std::uint64_t cols) {
    f32 += rows * cols * 4;
    half += rows * cols * 2;
    q4k += rows * ((cols + 255) / 256) * 144;
  };
  for (int layer = 0; layer < 2; ++layer) {
    matrix(64, 64); // q
    matrix(32, 64); // k
    matrix(32, 64); // v
    matrix(64, 64); // o
    matrix(96, 64); // gate
    matrix(96, 64); // up
    matrix(64, 96); // down
  }
  matrix(40, 64); // the LM head
  const std::uint64_t vectors = bytes[0] - f32;
  EXPECT_EQ(bytes[1], vectors + half);
  EXPECT_EQ(bytes[2], vectors + q4k);
}

TEST_F(DecoderPlanTest, AStepReplaysOneGraphOfExactlyThePlanEveryStep) {
  const ModelWeights w = model("qwen2", 1);
  auto d = make(w, {.weights = WeightMode::kF32, .batch = 2, .max_seq_len = 64});
  ASSERT_TRUE(d) << d.error().message;
  auto stream = rt::Stream::create(ctx_);
  ASSERT_TRUE(stream);
  const std::vector<std::uint32_t> tokens = {5, 39}, positions = {0, 3};
  auto r = d->step(*stream, tokens, positions);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->next.size(), 2u);
  EXPECT_TRUE(r->logits.empty());
  EXPECT_EQ(fake_->launch_log.size(), d->plan().size());
  const auto first = fake_->launch_log;
  auto again = d->step(*stream, tokens, positions, /*want_logits=*/true);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->logits.size(), 2u * 40);
  ASSERT_EQ(fake_->launch_log.size(), 2 * d->plan().size());
  EXPECT_TRUE(std::equal(first.begin(), first.end(), fake_->launch_log.begin() + first.size()));

  // Without the graph: the same launches, one by one.
  auto direct =
      make(w, {.weights = WeightMode::kF32, .batch = 2, .max_seq_len = 64, .use_graph = false});
  ASSERT_TRUE(direct);
  fake_->launch_log.clear();
  ASSERT_TRUE(direct->step(*stream, tokens, positions));
  EXPECT_EQ(fake_->launch_log.size(), direct->plan().size());
}

TEST_F(DecoderPlanTest, AProfiledStepTimesEveryPlannedLaunchAfterAnUntimedRun) {
  const ModelWeights w = model("qwen2", 1);
  auto d = make(w, {.weights = WeightMode::kF32, .batch = 2, .max_seq_len = 64});
  ASSERT_TRUE(d) << d.error().message;
  auto stream = rt::Stream::create(ctx_);
  ASSERT_TRUE(stream);
  const std::vector<std::uint32_t> tokens = {5, 39}, positions = {0, 3};
  auto us = d->profile_step(*stream, tokens, positions);
  ASSERT_TRUE(us) << us.error().message;
  EXPECT_EQ(us->size(), d->plan().size());
  for (double t : *us)
    EXPECT_GE(t, 0.0);
  // The plan twice, launch by launch (no graph): once untimed, once between events.
  ASSERT_EQ(fake_->launch_log.size(), 2 * d->plan().size());
  EXPECT_TRUE(std::equal(fake_->launch_log.begin(), fake_->launch_log.begin() + d->plan().size(),
                         fake_->launch_log.begin() + d->plan().size()));
  // Bad inputs are refused before anything runs.
  fake_->launch_log.clear();
  EXPECT_FALSE(d->profile_step(*stream, std::vector<std::uint32_t>{1}, positions));
  EXPECT_TRUE(fake_->launch_log.empty());
}

TEST_F(DecoderPlanTest, BadStepsAreRefusedBeforeAnythingRuns) {
  const ModelWeights w = model("llama", 1);
  auto d = make(w, {.weights = WeightMode::kF32, .batch = 2, .max_seq_len = 16});
  ASSERT_TRUE(d);
  auto stream = rt::Stream::create(ctx_);
  ASSERT_TRUE(stream);
  const std::vector<std::uint32_t> ok_pos = {0, 1};
  auto vocab = d->step(*stream, std::vector<std::uint32_t>{1, 40}, ok_pos);
  ASSERT_FALSE(vocab);
  EXPECT_NE(vocab.error().message.find("slot 1: token id 40 is not below the vocabulary 40"),
            std::string::npos)
      << vocab.error().message;
  auto past = d->step(*stream, std::vector<std::uint32_t>{1, 2}, std::vector<std::uint32_t>{16, 0});
  ASSERT_FALSE(past);
  EXPECT_NE(past.error().message.find("slot 0: position 16 is past the KV cache"),
            std::string::npos);
  auto count = d->step(*stream, std::vector<std::uint32_t>{1}, std::vector<std::uint32_t>{0});
  ASSERT_FALSE(count);
  EXPECT_NE(count.error().message.find("a step takes 2 tokens and positions"), std::string::npos);
  EXPECT_TRUE(fake_->launch_log.empty());
}

TEST_F(DecoderPlanTest, AHeadDimFlashDecodingCannotTakeIsRefused) {
  nlohmann::json c = tiny("llama", 1);
  c["num_attention_heads"] = 4; // head_dim 16
  test_util::write_random_model(dir_, c, 3);
  auto w = read_model(dir_);
  ASSERT_TRUE(w);
  auto d = make(*w, {});
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("head_dim 16 is not supported by flash_decode"),
            std::string::npos);
}

} // namespace
} // namespace ptxkit::decoder
