// batched_incremental_attention_test.cpp: the attention reference against a naive softmax, its
// GQA and per-slot behaviour, the kernel's limits and launch contract.
#include "batched_incremental_attention/batched_incremental_attention.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

using Config = BatchedIncrementalAttentionConfig;

Config small() {
  return Config{.head_dim = 32,
                .num_heads = 4,
                .num_kv_heads = 2,
                .max_seq_len = 9,
                .scale = 0.0f,
                .batch_size = 3};
}

// Softmax written the naive way (exp without max subtraction; fine for the small scores here).
std::vector<double> naive_attention(const Config& c, const HostTensors& in, std::size_t slot,
                                    std::size_t head) {
  const auto& q = in.f32.at("q");
  const auto& k = in.f32.at("k_cache");
  const auto& v = in.f32.at("v_cache");
  const std::size_t len = in.u32.at("seq_lens")[slot];
  const std::size_t hd = c.head_dim, kv = head / (c.num_heads / c.num_kv_heads);
  const std::size_t base = slot * c.num_kv_heads * c.max_seq_len * hd + kv * c.max_seq_len * hd;
  std::vector<double> w(len);
  double z = 0;
  for (std::size_t p = 0; p < len; ++p) {
    double dot = 0;
    for (std::size_t d = 0; d < hd; ++d)
      dot += q[(slot * c.num_heads + head) * hd + d] * k[base + p * hd + d];
    z += (w[p] = std::exp(dot / std::sqrt(double(hd))));
  }
  std::vector<double> out(hd, 0.0);
  for (std::size_t p = 0; p < len; ++p)
    for (std::size_t d = 0; d < hd; ++d)
      out[d] += w[p] / z * v[base + p * hd + d];
  return out;
}

TEST(AttentionReference, MatchesANaiveSoftmaxForEverySlotAndHead) {
  Config c = small();
  HostTensors in = BatchedIncrementalAttention::make_inputs(c, 42);
  in.u32["seq_lens"] = {9, 4, 1}; // per-slot lengths differ
  auto out = BatchedIncrementalAttention::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& y = out->f32.at("out");
  for (std::size_t s = 0; s < c.batch_size; ++s)
    for (std::size_t h = 0; h < c.num_heads; ++h) {
      auto want = naive_attention(c, in, s, h);
      for (std::size_t d = 0; d < c.head_dim; ++d)
        EXPECT_NEAR(y[(s * c.num_heads + h) * c.head_dim + d], want[d], 1e-5)
            << "slot " << s << " head " << h << " dim " << d;
    }
}

TEST(AttentionReference, OnePositionReturnsItsValueRowAndZeroPositionsGiveZeros) {
  Config c = small();
  HostTensors in = BatchedIncrementalAttention::make_inputs(c, 3);
  in.u32["seq_lens"] = {1, 0, 2};
  auto out = BatchedIncrementalAttention::reference(c, in);
  ASSERT_TRUE(out);
  const auto& y = out->f32.at("out");
  const auto& v = in.f32.at("v_cache");
  // slot 0, head 3 -> kv head 1: V[slot 0][kv 1][pos 0].
  for (std::size_t d = 0; d < c.head_dim; ++d) {
    EXPECT_FLOAT_EQ(y[(0 * c.num_heads + 3) * c.head_dim + d], v[1 * c.max_seq_len * 32 + d]);
    EXPECT_EQ(y[(1 * c.num_heads + 0) * c.head_dim + d], 0.0f);
  }
}

TEST(AttentionReference, IncreasingScoresWeightTheLastPositionMost) {
  // The input under which a stuck rescale (correction == 1) was observable: scores grow
  // with position, so the right answer sits near V[len-1], not the mean of V.
  Config c{.head_dim = 32,
           .num_heads = 1,
           .num_kv_heads = 1,
           .max_seq_len = 16,
           .scale = 1.0f,
           .batch_size = 1};
  HostTensors in;
  in.f32["q"].assign(32, 1.0f);
  in.f32["k_cache"].resize(16 * 32);
  in.f32["v_cache"].resize(16 * 32);
  for (std::size_t p = 0; p < 16; ++p)
    for (std::size_t d = 0; d < 32; ++d) {
      in.f32["k_cache"][p * 32 + d] = 0.1f * static_cast<float>(p);
      in.f32["v_cache"][p * 32 + d] = static_cast<float>(p);
    }
  in.u32["seq_lens"] = {16};
  auto out = BatchedIncrementalAttention::reference(c, in);
  ASSERT_TRUE(out);
  // score(p) = 3.2 p: position 15 carries weight 1 / sum_k exp(-3.2 k) ~ 0.96.
  EXPECT_GT(out->f32.at("out")[0], 14.9f);
  EXPECT_LT(out->f32.at("out")[0], 15.0f);
}

TEST(AttentionReference, GqaHeadsOfOneGroupShareTheirKvHead) {
  Config c = small();
  HostTensors in = BatchedIncrementalAttention::make_inputs(c, 11);
  auto& q = in.f32["q"];
  // Heads 0 and 1 (group 0) and heads 2 and 3 (group 1) get the same query.
  for (std::size_t d = 0; d < 32; ++d)
    q[1 * 32 + d] = q[0 * 32 + d], q[3 * 32 + d] = q[0 * 32 + d];
  auto y = BatchedIncrementalAttention::reference(c, in)->f32.at("out");
  for (std::size_t d = 0; d < 32; ++d)
    EXPECT_EQ(y[d], y[32 + d]);
  bool differs = false;
  for (std::size_t d = 0; d < 32; ++d)
    differs |= y[d] != y[3 * 32 + d];
  EXPECT_TRUE(differs) << "heads of different KV groups must read different K/V";
}

TEST(AttentionReference, RefusesLengthsBeyondTheCache) {
  Config c = small();
  HostTensors in = BatchedIncrementalAttention::make_inputs(c, 5);
  in.u32["seq_lens"][1] = 10;
  auto out = BatchedIncrementalAttention::reference(c, in);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("seq_lens[1] = 10"), std::string::npos);
}

TEST(AttentionLimits, HeadDimBeyondOneWarpAndBadGqaAreRefused) {
  const Kernel* k = KernelRegistry::find("batched_incremental_attention");
  ASSERT_NE(k, nullptr);
  auto big = config_from_assignments(*k, {"head_dim=160"});
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("'head_dim' = 160"), std::string::npos);
  EXPECT_NE(big.error().message.find("[32, 128], multiple of 32"), std::string::npos)
      << big.error().message;
  EXPECT_FALSE(config_from_assignments(*k, {"head_dim=48"}));
  auto gqa = config_from_assignments(*k, {"num_kv_heads=5"});
  ASSERT_FALSE(gqa);
  EXPECT_NE(gqa.error().message.find("must divide num_heads"), std::string::npos);
  auto huge =
      config_from_assignments(*k, {"num_heads=24", "num_kv_heads=24", "max_seq_len=1048576"});
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("2^31"), std::string::npos);
  EXPECT_TRUE(config_from_assignments(*k, {"head_dim=64", "num_kv_heads=12"}));
}

TEST(AttentionContract, GridIsHeadsBySlotsOfOneWarp) {
  Config c = small();
  auto d = BatchedIncrementalAttention::launch(c);
  EXPECT_EQ(d.grid[0], 4u);
  EXPECT_EQ(d.grid[1], 3u);
  EXPECT_EQ(d.block[0], 32u);
  auto p = BatchedIncrementalAttention::params(c);
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[1].kind, ParamKind::kPointerArray);
  EXPECT_EQ(p[1].count, 3u);
  EXPECT_EQ(p[1].stride_elems, 2u * 9u * 32u);
  EXPECT_FLOAT_EQ(c.effective_scale(), 1.0f / std::sqrt(32.0f));
}

} // namespace
} // namespace ptxkit::kernels
