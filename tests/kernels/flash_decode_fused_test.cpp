// flash_decode_fused_test.cpp: the one-launch flash_decode kernel: its reference (one-pass
// attention), its workspace contract (zeroed u32 counters, scratch partials), the release/acquire
// arrival in its PTX, its limits and bench cases.
#include "batched_incremental_attention/batched_incremental_attention.h"
#include "flash_decode/flash_decode.h"
#include "kernel_test_util.h"

#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

FlashDecodeConfig small_config() {
  return FlashDecodeConfig{.head_dim = 32,
                           .num_heads = 6,
                           .num_kv_heads = 2,
                           .max_seq_len = 100,
                           .scale = 0.0f,
                           .chunk_size = 32,
                           .batch_size = 5};
}

std::string ptx_for(const std::vector<std::string>& sets) {
  return test_util::kernel_ptx("flash_decode", sets);
}

using test_util::count;

TEST(FlashDecodeFused, TheReferenceIsOnePassAttention) {
  for (DType t : {DType::kF32, DType::kBF16}) {
    FlashDecodeConfig c = small_config();
    c.kv_dtype = t;
    HostTensors in = FlashDecode::make_inputs(c, 21);
    in.u32["seq_lens"] = {0, 1, 32, 65, 100}; // empty, one position, a boundary, ragged, full
    auto got = FlashDecode::reference(c, in);
    ASSERT_TRUE(got) << got.error().message;
    BatchedIncrementalAttentionConfig bc{.head_dim = c.head_dim,
                                         .num_heads = c.num_heads,
                                         .num_kv_heads = c.num_kv_heads,
                                         .max_seq_len = c.max_seq_len,
                                         .scale = 0.0f,
                                         .batch_size = c.batch_size};
    auto want = attention_reference(bc, in.f32["q"], in.f32["k_cache"], in.f32["v_cache"],
                                    in.u32["seq_lens"]);
    const auto& out = got->f32.at("out");
    ASSERT_EQ(out.size(), want.size());
    for (std::size_t i = 0; i < out.size(); ++i)
      EXPECT_NEAR(out[i], want[i], 1e-6) << i;
    for (std::size_t i = 0; i < std::size_t{6} * 32; ++i)
      EXPECT_EQ(out[i], 0.0f);                    // the empty slot
    EXPECT_EQ(got->f32.count("partial_out"), 0u); // the workspace is not an output
  }
}

TEST(FlashDecodeFused, TheWorkspaceIsZeroedCountersAndScratchPartials) {
  FlashDecodeConfig c = small_config();
  auto params = FlashDecode::params(c);
  auto find = [&](const std::string& n) {
    for (const auto& p : params)
      if (p.name == n) return p;
    ADD_FAILURE() << "no param " << n;
    return ParamSpec{};
  };
  const ParamSpec counters = find("counters");
  EXPECT_EQ(counters.elem, ElemType::kU32);
  EXPECT_EQ(counters.elems, 5u * 2u); // one per (slot, KV head)
  EXPECT_EQ(counters.kind, ParamKind::kInput);
  for (const char* n : {"partial_max", "partial_sum", "partial_out"})
    EXPECT_EQ(find(n).kind, ParamKind::kInput) << n; // scratch, never compared
  EXPECT_EQ(find("partial_out").elems, 5u * 6u * 4u * 32u);
  EXPECT_EQ(find("out").kind, ParamKind::kOutput);
  EXPECT_EQ(find("out").elems, 5u * 6u * 32u);
  HostTensors in = FlashDecode::make_inputs(c, 1);
  EXPECT_EQ(in.u32.at("counters"), std::vector<std::uint32_t>(10, 0u));
  auto d = FlashDecode::launch(c);
  EXPECT_EQ(d.grid[0], 4u);
  EXPECT_EQ(d.grid[1], 2u);
  EXPECT_EQ(d.grid[2], 5u);
}

TEST(FlashDecodeFused, TheLastBlockArrivesWithReleaseAndAcquireAndResetsItsCounter) {
  const std::string ptx = ptx_for({});
  EXPECT_EQ(count(ptx, "fence.acq_rel.gpu;"), 2u);
  EXPECT_EQ(count(ptx, "atom.global.add.u32"), 1u);
  EXPECT_EQ(count(ptx, "st.global.u32"), 1u); // the reset
  // The partials written in this launch are read back with plain loads, never ld.global.nc; so
  // are the prefetched K/V rows (ptxas would sink ld.global.nc past bar.sync): only q's 2 are nc.
  EXPECT_EQ(count(ptx, "ld.global.nc.v4.f32"), 2u);
  EXPECT_GT(count(ptx, "ld.global.v4.f32"), 32u);
  const std::string bf = ptx_for({"kv_dtype=bf16"});
  EXPECT_EQ(count(bf, "ld.global.nc.v4.b32"), 0u);
  EXPECT_EQ(count(bf, "ld.global.v4.b32"), 16u);
}

TEST(FlashDecodeFused, EveryKAndVLoadOfAHalfChunkIsIssuedBeforeTheFirstBarrier) {
  const std::string bf = ptx_for({"kv_dtype=bf16"});
  const std::size_t barrier = bf.find("bar.sync");
  ASSERT_NE(barrier, std::string::npos);
  const std::string before = bf.substr(0, barrier), after = bf.substr(barrier);
  EXPECT_EQ(count(before, "ld.global.v4.b32"), 16u); // 4 K rows x 2 + 8 V rows per lane
  EXPECT_EQ(count(before, "ld.global.u32"), 1u);     // seq_lens
  EXPECT_EQ(count(before, "ld.global.u64"), 2u);     // both cache pointers
  // No load waits on len: the empty chunk leaves after the barrier.
  EXPECT_EQ(before.find("$L__empty_chunk"), std::string::npos);
  EXPECT_NE(after.find("bra $L__empty_chunk"), std::string::npos);
  // Rows past len (loaded as they are) are masked by selp: each score (after the split reduction
  // a lane holds one of each of the 3 head pairs' 8 dots) to -inf, each V value (8 rows x 8 per
  // lane) to 0.
  EXPECT_GE(count(after, "selp.f32"), 3u + 8u * 8u);
}

TEST(FlashDecodeFused, TheKernelKeyFollowsKvDtype) {
  const Kernel* k = KernelRegistry::find("flash_decode");
  ASSERT_NE(k, nullptr);
  auto f = config_from_assignments(*k, {});
  auto b = config_from_assignments(*k, {"kv_dtype=bf16"});
  ASSERT_TRUE(f && b);
  EXPECT_NE(cache_key(*k, *f, "sm_90"), cache_key(*k, *b, "sm_90"));
}

TEST(FlashDecodeFused, TooManyChunkWeightsForSharedMemoryAreRefused) {
  const Kernel* k = KernelRegistry::find("flash_decode");
  ASSERT_NE(k, nullptr);
  // The chunk pass alone fits; the combine's G * num_chunks weights (6 * 4096 floats) do not.
  auto many = config_from_assignments(*k, {"max_seq_len=1048576", "chunk_size=256"});
  ASSERT_FALSE(many);
  EXPECT_NE(many.error().message.find("exceeds 49152"), std::string::npos) << many.error().message;
  EXPECT_TRUE(config_from_assignments(*k, {"batch_size=64", "max_seq_len=4096"}));
  EXPECT_FALSE(config_from_assignments(*k, {"head_dim=96"}));
}

TEST(FlashDecodeFused, BenchCasesCoverBothTargets) {
  const Kernel* k = KernelRegistry::find("flash_decode");
  ASSERT_NE(k, nullptr);
  std::vector<std::string> names;
  for (const auto& bc : k->bench_cases()) {
    names.push_back(bc.name);
    ASSERT_TRUE(bc.target.has_value()) << bc.name;
    auto cfg = k->reference_config(bc.config);
    ASSERT_NE(cfg, nullptr) << bc.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"flash_decode_fused_4x12_2x2048",
                                             "flash_decode_fused_64x12_2x4096",
                                             "flash_decode_fused_bf16_4x12_2x2048",
                                             "flash_decode_fused_bf16_64x12_2x4096"}));
}

} // namespace
} // namespace ptxkit::kernels
