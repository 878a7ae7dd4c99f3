// kv_scatter_test.cpp: the scatter's reference (only the rows at the positions change; a position
// past the cache changes nothing), the host-side position check, limits, the device guard and the
// f16/bf16 caches (bit copies of half words).
#include "kv_scatter/kv_scatter.h"

#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
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

std::string kv_scatter_ptx(const std::vector<std::string>& sets) {
  const Kernel* k = KernelRegistry::find("kv_scatter");
  EXPECT_NE(k, nullptr);
  auto c = config_from_assignments(*k, sets);
  EXPECT_TRUE(c) << c.error().message;
  auto ptx = k->generate(*c, *ptxgen::Target::parse("sm_90"));
  EXPECT_TRUE(ptx) << ptx.error().to_string();
  return ptx ? ptx->text : std::string();
}

TEST(KvScatterHalf, InputsAreValuesOfTheFormatAndTheCopyIsExact) {
  KvScatterConfig c{
      .head_dim = 8, .num_kv_heads = 2, .max_seq_len = 5, .batch_size = 2, .dtype = DType::kBF16};
  HostTensors in = KvScatter::make_inputs(c, 6);
  for (const char* name : {"k_new", "v_new", "k_cache", "v_cache"})
    for (float x : in.f32.at(name))
      ASSERT_EQ(round_to(DType::kBF16, x), x) << name;
  // The control: the same seed in f32 is not bf16-representable, so the rounding above is real.
  c.dtype = DType::kF32;
  HostTensors f32_in = KvScatter::make_inputs(c, 6);
  const float first = f32_in.f32.at("k_new")[0];
  EXPECT_NE(round_to(DType::kBF16, first), first);
  EXPECT_EQ(round_to(DType::kBF16, first), in.f32.at("k_new")[0]);
  c.dtype = DType::kBF16;
  auto out = KvScatter::reference(c, in);
  ASSERT_TRUE(out);
  const std::size_t row = (0 * 2 + 1) * 5 + in.u32.at("positions")[0]; // slot 0, KV head 1
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(out->f32.at("k_cache")[row * 8 + i], in.f32.at("k_new")[8 + i]);
  EXPECT_EQ(KvScatter::tolerance(c, in).abs, 0.0);
  EXPECT_EQ(KvScatter::tolerance(c, in).rel, 0.0);
}

TEST(KvScatterHalf, TheContractNamesTheHalfBuffers) {
  KvScatterConfig c{.dtype = DType::kF16};
  for (const ParamSpec& p : KvScatter::params(c))
    EXPECT_EQ(p.elem, p.name == "positions" ? ElemType::kU32 : ElemType::kF16) << p.name;
}

TEST(KvScatterHalf, HalfCachesMoveHalfWordsWithoutConverting) {
  for (const char* dtype : {"dtype=bf16", "dtype=f16"}) {
    const std::string t = kv_scatter_ptx({dtype});
    EXPECT_NE(t.find("ld.global.nc.v2.b32"), std::string::npos) << t;
    EXPECT_NE(t.find("st.global.v2.b32"), std::string::npos) << t;
    EXPECT_EQ(t.find(".f32"), std::string::npos) << t; // no f32 access, no conversion
    EXPECT_EQ(t.find("cvt.rn"), std::string::npos) << t;
    // Element offsets scale by 2 bytes: the half chunk is 8 bytes.
    EXPECT_NE(t.find("mul.wide.u32"), std::string::npos) << t;
  }
  const std::string f32 = kv_scatter_ptx({});
  EXPECT_NE(f32.find("ld.global.nc.v4.f32"), std::string::npos);
}

TEST(KvScatterHalf, TheDtypeIsInTheKey) {
  const Kernel* k = KernelRegistry::find("kv_scatter");
  ASSERT_NE(k, nullptr);
  auto f32 = config_from_assignments(*k, {});
  auto bf16 = config_from_assignments(*k, {"dtype=bf16"});
  auto f16 = config_from_assignments(*k, {"dtype=f16"});
  ASSERT_TRUE(f32 && bf16 && f16);
  EXPECT_NE(cache_key(*k, *f32, "sm_90"), cache_key(*k, *bf16, "sm_90"));
  EXPECT_NE(cache_key(*k, *f16, "sm_90"), cache_key(*k, *bf16, "sm_90"));
  auto bad = config_from_assignments(*k, {"dtype=f8"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bf16"), std::string::npos) << bad.error().message;
  auto odd = config_from_assignments(*k, {"dtype=bf16", "head_dim=66"});
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("head_dim"), std::string::npos) << odd.error().message;
}

} // namespace
} // namespace ptxkit::kernels
