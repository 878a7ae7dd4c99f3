// incremental_attention_test.cpp: the single-sequence attention reference (online softmax) against
// the two-pass softmax of batched attention, its properties (one position returns V, invariance
// to a constant shift of the scores, empty sequence), its limits and launch contract.
#include "batched_incremental_attention/batched_incremental_attention.h"
#include "incremental_attention/incremental_attention.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

using Config = IncrementalAttentionConfig;

Config small() {
  return Config{
      .head_dim = 32, .num_heads = 6, .num_kv_heads = 2, .max_seq_len = 40, .scale = 0.0f};
}

std::vector<float> run(const Config& c, const HostTensors& in) {
  auto out = IncrementalAttention::reference(c, in);
  EXPECT_TRUE(out) << (out ? "" : out.error().message);
  return out ? out->f32.at("out") : std::vector<float>{};
}

TEST(IncrementalAttentionReference, EqualsTheTwoPassSoftmaxOfBatchedAttention) {
  for (std::uint32_t len : {1u, 7u, 33u, 40u}) {
    Config c = small();
    HostTensors in = IncrementalAttention::make_inputs(c, 100 + len);
    in.u32["seq_len"] = {len};
    auto online = run(c, in);
    BatchedIncrementalAttentionConfig bc{.head_dim = c.head_dim,
                                         .num_heads = c.num_heads,
                                         .num_kv_heads = c.num_kv_heads,
                                         .max_seq_len = c.max_seq_len,
                                         .scale = c.scale,
                                         .batch_size = 1};
    auto two_pass =
        attention_reference(bc, in.f32["q"], in.f32["k_cache"], in.f32["v_cache"], {len});
    ASSERT_EQ(online.size(), two_pass.size());
    for (std::size_t i = 0; i < online.size(); ++i)
      EXPECT_NEAR(online[i], two_pass[i], 1e-6) << "len " << len << " element " << i;
  }
}

TEST(IncrementalAttentionReference, OnePositionReturnsTheValueRowOfTheHeadsKvGroup) {
  Config c = small();
  HostTensors in = IncrementalAttention::make_inputs(c, 9);
  in.u32["seq_len"] = {1};
  auto y = run(c, in);
  const auto& v = in.f32["v_cache"];
  for (std::size_t h = 0; h < c.num_heads; ++h) {
    const std::size_t kv = h / 3; // 6 heads over 2 KV heads
    for (std::size_t d = 0; d < c.head_dim; ++d)
      EXPECT_FLOAT_EQ(y[h * c.head_dim + d], v[kv * c.max_seq_len * c.head_dim + d])
          << "head " << h;
  }
}

TEST(IncrementalAttentionReference, AConstantShiftOfEveryScoreLeavesTheOutputUnchanged) {
  // Adding delta to element 0 of every K row of a KV head adds scale * q[h][0] * delta to every
  // score of head h: a constant per head. The online rescale must absorb it, even when the shift
  // (here +-409.6 in natural units) would overflow a softmax without max subtraction.
  Config c = small();
  c.scale = 1.0f;
  HostTensors in = IncrementalAttention::make_inputs(c, 21);
  in.u32["seq_len"] = {37};
  auto& q = in.f32["q"];
  for (std::size_t h = 0; h < c.num_heads; ++h)
    q[h * c.head_dim] = (h % 2 == 0) ? 0.8f : -0.8f;
  // Element 0 of each K row on a 1/64 grid, so k + 512 is exact in f32 and the shift is exactly
  // the same for every position.
  auto& k = in.f32["k_cache"];
  for (std::size_t i = 0; i < k.size(); i += c.head_dim)
    k[i] = std::round(k[i] * 64.0f) / 64.0f;
  auto base = run(c, in);
  HostTensors shifted = in;
  for (std::size_t i = 0; i < shifted.f32["k_cache"].size(); i += c.head_dim)
    shifted.f32["k_cache"][i] += 512.0f;
  auto moved = run(c, shifted);
  for (std::size_t i = 0; i < base.size(); ++i)
    EXPECT_NEAR(moved[i], base[i], 1e-6) << i;
  // ...and it is not a vacuous test: the same shift on one position only changes the output.
  HostTensors one = in;
  one.f32["k_cache"][5 * c.head_dim] += 512.0f;
  auto changed = run(c, one);
  double diff = 0;
  for (std::size_t i = 0; i < base.size(); ++i)
    diff += std::fabs(changed[i] - base[i]);
  EXPECT_GT(diff, 1.0);
}

TEST(IncrementalAttentionReference, IncreasingScoresLandOnTheLastPosition) {
  // The input a stuck rescale fails on: scores strictly increase with position, so a stuck rescale
  // (correction == 1) would average V instead of picking the last row.
  Config c{.head_dim = 32, .num_heads = 1, .num_kv_heads = 1, .max_seq_len = 16, .scale = 1.0f};
  HostTensors in;
  in.f32["q"].assign(32, 1.0f);
  in.f32["k_cache"].resize(16 * 32);
  in.f32["v_cache"].resize(16 * 32);
  for (std::size_t p = 0; p < 16; ++p)
    for (std::size_t d = 0; d < 32; ++d) {
      in.f32["k_cache"][p * 32 + d] = 0.1f * static_cast<float>(p);
      in.f32["v_cache"][p * 32 + d] = static_cast<float>(p);
    }
  in.u32["seq_len"] = {16};
  auto y = run(c, in);
  EXPECT_GT(y[0], 14.9f);
  EXPECT_LT(y[0], 15.0f);
}

TEST(IncrementalAttentionReference, AnEmptySequenceGivesZerosAndTooLongIsRefused) {
  Config c = small();
  HostTensors in = IncrementalAttention::make_inputs(c, 4);
  in.u32["seq_len"] = {0};
  for (float v : run(c, in))
    EXPECT_EQ(v, 0.0f);
  in.u32["seq_len"] = {41};
  auto out = IncrementalAttention::reference(c, in);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("seq_len = 41 exceeds max_seq_len = 40"), std::string::npos)
      << out.error().message;
  in.u32["seq_len"] = {1, 2};
  EXPECT_FALSE(IncrementalAttention::reference(c, in));
}

TEST(IncrementalAttentionLimits, HeadDimOutsideTheLaneMappingAndBadGqaAreRefused) {
  const Kernel* k = KernelRegistry::find("incremental_attention");
  ASSERT_NE(k, nullptr);
  auto odd = config_from_assignments(*k, {"head_dim=96"});
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("must be 32, 64 or 128"), std::string::npos);
  auto big = config_from_assignments(*k, {"head_dim=256"});
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("'head_dim' = 256"), std::string::npos);
  auto gqa = config_from_assignments(*k, {"num_kv_heads=3"});
  ASSERT_FALSE(gqa);
  EXPECT_NE(gqa.error().message.find("must divide num_heads"), std::string::npos);
  auto huge = config_from_assignments(
      *k, {"num_heads=28", "num_kv_heads=28", "max_seq_len=1048576", "head_dim=128"});
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("2^31"), std::string::npos);
  EXPECT_TRUE(config_from_assignments(*k, {"head_dim=128", "num_heads=12"}));
}

TEST(IncrementalAttentionContract, OneBlockOf32WarpsPerHeadAndAOneElementLength) {
  Config c = small();
  auto d = IncrementalAttention::launch(c);
  EXPECT_EQ(d.grid[0], 6u);
  EXPECT_EQ(d.grid[1], 1u);
  EXPECT_EQ(d.block[0], 1024u);
  auto p = IncrementalAttention::params(c);
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[1].elems, 2u * 40u * 32u);
  EXPECT_EQ(p[3].kind, ParamKind::kOutput);
  EXPECT_EQ(p[4].name, "seq_len");
  EXPECT_EQ(p[4].elem, ElemType::kU32);
  EXPECT_EQ(p[4].elems, 1u);
}

} // namespace
} // namespace ptxkit::kernels
