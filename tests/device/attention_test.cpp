// attention_test.cpp: the decode-attention kernels on the attention fixtures (attention_fixture.h):
// strictly increasing scores, a different seq_len per slot (1 and max_seq_len included), Q
// different per head, K/V different per slot and KV group. The flash-decoding pair is also
// checked end to end (chunk on the device, its partials into reduce on the device) against the
// one-pass attention reference.
#include "attention_fixture.h"
#include "device_check.h"
#include "device_env.h"

#include <gtest/gtest.h>
#include <ptxkit/runtime/compare.h>

namespace ptxkit::device_tests {
namespace {

AttentionShape qwen15b() {
  return {};
}
AttentionShape qwen05b() {
  AttentionShape s;
  s.num_heads = 14;
  s.head_dim = 64;
  s.seq_lens = {1537, 2048, 1, 700};
  return s;
}

TEST(AttentionFixture, BatchedIncreasingScoresPerSlotLengths) {
  PTXKIT_REQUIRE_DEVICE();
  const auto& k = kernel_named("batched_incremental_attention");
  const auto values = config_of(k, "qwen15b_coder");
  const auto in = increasing_score_attention(qwen15b(), test_seed());
  expect_matches_reference(k, values, in, "batched_incremental_attention[fixture]");
}

TEST(AttentionFixture, IncrementalSingleSequence) {
  PTXKIT_REQUIRE_DEVICE();
  const auto& k = kernel_named("incremental_attention");
  for (auto [tag, shape] :
       {std::pair{"qwen15b_coder", qwen15b()}, std::pair{"qwen05b", qwen05b()}}) {
    for (std::uint32_t len : {2048u, 1u, 1337u}) {
      shape.batch = 1;
      shape.seq_lens = {len};
      auto in = increasing_score_attention(shape, test_seed());
      in.u32["seq_len"] = in.u32.at("seq_lens");
      in.u32.erase("seq_lens");
      expect_matches_reference(k, config_of(k, tag), in,
                               std::string("incremental_attention[") + tag + ", seq_len " +
                                   std::to_string(len) + "]");
    }
  }
}

void flash_end_to_end(const std::string& tag, const AttentionShape& shape) {
  const auto& chunk = kernel_named("flash_decode_chunk");
  const auto& reduce = kernel_named("flash_decode_reduce");
  const auto& one_pass = kernel_named("batched_incremental_attention");
  const auto in = increasing_score_attention(shape, test_seed());
  const auto partials =
      expect_matches_reference(chunk, config_of(chunk, tag), in, "flash_decode_chunk[" + tag + "]");
  ASSERT_EQ(partials.f32.size(), 3u);
  kernels::HostTensors rin = partials;
  rin.u32["seq_lens"] = in.u32.at("seq_lens");
  const auto out = expect_matches_reference(reduce, config_of(reduce, tag), rin,
                                            "flash_decode_reduce[" + tag + "]");
  ASSERT_EQ(out.f32.count("out"), 1u);
  // End to end against the plain two-pass softmax of the one-pass kernel's reference.
  const std::vector<std::string> sets = {"head_dim=" + std::to_string(shape.head_dim),
                                         "num_heads=" + std::to_string(shape.num_heads)};
  const auto ov = config_of(one_pass, "qwen15b_coder", sets);
  auto want = one_pass.reference(ov, in);
  ASSERT_TRUE(want.has_value()) << want.error().to_string();
  const auto c = runtime::compare(out.f32.at("out"), want->f32.at("out"), {2e-5, 1e-4});
  EXPECT_TRUE(c.ok()) << "flash chunk+reduce vs one-pass attention: " << c.summary();
}

TEST(AttentionFixture, FlashDecodingChunkThenReduce) {
  PTXKIT_REQUIRE_DEVICE();
  flash_end_to_end("qwen15b_coder", qwen15b());
  flash_end_to_end("qwen05b", qwen05b());
}

TEST(AttentionFixture, FlashDecodingBatchedGqaShape) {
  PTXKIT_REQUIRE_DEVICE();
  // The one-pass kernel at the 0.5B shape too (GQA group of 7).
  const auto& k = kernel_named("batched_incremental_attention");
  const auto values = config_of(k, "qwen15b_coder", {"head_dim=64", "num_heads=14"});
  expect_matches_reference(k, values, increasing_score_attention(qwen05b(), test_seed()),
                           "batched_incremental_attention[fixture, 14/2 heads x 64]");
}

} // namespace
} // namespace ptxkit::device_tests
