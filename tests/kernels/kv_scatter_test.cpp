// kv_scatter_test.cpp: the scatter's reference (only the rows at the positions change; a position
// past the cache changes nothing), the host-side position check, limits and the device guard.
#include "kv_scatter/kv_scatter.h"

#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(KvScatterReference, WritesOnlyTheRowsAtThePositions) {
  KvScatterConfig c{.head_dim = 8, .num_kv_heads = 2, .max_seq_len = 5, .batch_size = 2};
  HostTensors in = KvScatter::make_inputs(c, 6);
  in.u32["positions"] = {4, 1};
  auto out = KvScatter::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& before = in.f32.at("k_cache");
  const auto& after = out->f32.at("k_cache");
  std::size_t changed = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const std::size_t slot = i / (2 * 5 * 8), kv = i / (5 * 8) % 2, pos = i / 8 % 5;
    const bool target = pos == in.u32["positions"][slot];
    if (target) {
      EXPECT_EQ(after[i], in.f32.at("k_new")[(slot * 2 + kv) * 8 + i % 8]) << i;
      ++changed;
    } else {
      EXPECT_EQ(after[i], before[i]) << i;
    }
  }
  EXPECT_EQ(changed, 2u * 2u * 8u);
}

TEST(KvScatterReference, APositionPastTheCacheIsRefusedOnTheHostAndWritesNothing) {
  KvScatterConfig c{.head_dim = 4, .num_kv_heads = 1, .max_seq_len = 3, .batch_size = 2};
  HostTensors in = KvScatter::make_inputs(c, 8);
  in.u32["positions"] = {3, 2}; // slot 0: one past the end
  auto bad = KvScatter::check_positions(c, in.u32["positions"]);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("positions[0] = 3"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("max_seq_len = 3"), std::string::npos);
  // The device guard: slot 0's cache is untouched, slot 1 is written.
  auto out = KvScatter::reference(c, in);
  ASSERT_TRUE(out);
  for (std::size_t i = 0; i < 12; ++i)
    EXPECT_EQ(out->f32.at("v_cache")[i], in.f32.at("v_cache")[i]);
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(out->f32.at("v_cache")[12 + 2 * 4 + i], in.f32.at("v_new")[4 + i]);
  std::vector<std::uint32_t> ok{2, 0};
  EXPECT_TRUE(KvScatter::check_positions(c, ok));
  std::vector<std::uint32_t> too_few{0};
  EXPECT_FALSE(KvScatter::check_positions(c, too_few));
}

TEST(KvScatterContract, GridCoversEveryChunkOfEverySlot) {
  KvScatterConfig coder{.head_dim = 128, .num_kv_heads = 2, .max_seq_len = 2048, .batch_size = 4};
  auto d = KvScatter::launch(coder);
  EXPECT_EQ(d.grid[1], 4u);
  EXPECT_EQ(d.grid[0] * d.block[0], 64u); // 2 * 128 / 4 chunks, no idle thread
  KvScatterConfig big{.head_dim = 128, .num_kv_heads = 16, .max_seq_len = 8, .batch_size = 1};
  EXPECT_EQ(KvScatter::launch(big).grid[0], 2u); // 512 chunks on blocks of 256
  auto p = KvScatter::params(coder);
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[3].kind, ParamKind::kOutput);
  EXPECT_EQ(p[3].elems, std::size_t{4} * 2 * 2048 * 128);
  EXPECT_EQ(p[2].elem, ElemType::kU32);
}

TEST(KvScatterLimits, SlotOffsetsMustFit32Bits) {
  const Kernel* k = KernelRegistry::find("kv_scatter");
  ASSERT_NE(k, nullptr);
  auto huge = config_from_assignments(*k, {"num_kv_heads=1024", "max_seq_len=1048576"});
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("2^31"), std::string::npos);
  EXPECT_FALSE(config_from_assignments(*k, {"head_dim=130"}));
  EXPECT_TRUE(config_from_assignments(*k, {"head_dim=64", "num_kv_heads=8"}));
}

TEST(KvScatterPtx, PositionGuardBeforeAnyStore) {
  const Kernel* k = KernelRegistry::find("kv_scatter");
  ASSERT_NE(k, nullptr);
  auto ptx = k->generate(k->reference_config("qwen15b_coder")->values,
                         ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx) << ptx.error().to_string();
  const std::string& t = ptx->text;
  const auto guard = t.find("setp.lt.u32");
  ASSERT_NE(guard, std::string::npos);
  const std::string guard_line = t.substr(guard, t.find('\n', guard) - guard);
  EXPECT_NE(guard_line.find(", 2048;"), std::string::npos) << guard_line;
  EXPECT_LT(guard, t.find("st.global.v4.f32"));
  EXPECT_LT(t.find("@!%p1 bra $L__done;"), t.find("st.global.v4.f32"));
}

} // namespace
} // namespace ptxkit::kernels
