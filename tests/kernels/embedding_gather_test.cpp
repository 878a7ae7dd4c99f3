// embedding_gather_test.cpp: the gather's reference (rows by id, zero rows for bad ids), the
// host-side id check, a scatter-then-gather round trip through the KV cache, and the guard in
// the PTX.
#include "embedding_gather/embedding_gather.h"
#include "kernel_test_util.h"
#include "kv_scatter/kv_scatter.h"

#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(EmbeddingGatherReference, CopiesTheRowOfEachId) {
  EmbeddingGatherConfig c{.vocab = 50, .hidden = 12, .tokens = 5};
  HostTensors in = EmbeddingGather::make_inputs(c, 9);
  in.u32["ids"] = {49, 0, 7, 7, 23};
  auto out = EmbeddingGather::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  const auto& y = out->f32.at("out");
  const auto& table = in.f32.at("table");
  for (std::uint32_t t = 0; t < c.tokens; ++t)
    for (std::uint32_t i = 0; i < c.hidden; ++i)
      EXPECT_EQ(y[t * c.hidden + i], table[in.u32["ids"][t] * c.hidden + i]) << t << " " << i;
  EXPECT_EQ(in.u32.at("ids").size(), c.tokens);
}

TEST(EmbeddingGatherReference, OutOfRangeIdGivesAZeroRowAndTheHostCheckNamesIt) {
  EmbeddingGatherConfig c{.vocab = 10, .hidden = 4, .tokens = 3};
  std::vector<float> table(40);
  for (std::size_t i = 0; i < table.size(); ++i)
    table[i] = 1.0f + static_cast<float>(i);
  std::vector<std::uint32_t> ids{9, 10, 0xffffffffu};
  auto y = embedding_gather_reference(table, ids, c.vocab, c.hidden);
  for (std::uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(y[i], table[36 + i]);
    EXPECT_EQ(y[4 + i], 0.0f);
    EXPECT_EQ(y[8 + i], 0.0f);
  }
  auto bad = EmbeddingGather::check_ids(c, ids);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("ids[1] = 10"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("vocab = 10"), std::string::npos);
  std::vector<std::uint32_t> good{0, 9};
  EXPECT_TRUE(EmbeddingGather::check_ids(c, good));
}

TEST(EmbeddingGatherReference, ScatterThenGatherIsARoundTrip) {
  // kv_scatter writes k_new at (slot, kv, pos); viewing the K cache as an embedding table of
  // rows head_dim, gathering row (slot * kv_heads + kv) * max_seq_len + pos reads k_new back.
  KvScatterConfig sc{.head_dim = 8, .num_kv_heads = 2, .max_seq_len = 16, .batch_size = 3};
  HostTensors in = KvScatter::make_inputs(sc, 4);
  in.u32["positions"] = {15, 0, 6};
  auto scattered = KvScatter::reference(sc, in);
  ASSERT_TRUE(scattered) << scattered.error().message;
  const std::uint32_t rows = sc.batch_size * sc.num_kv_heads * sc.max_seq_len;
  std::vector<std::uint32_t> ids;
  for (std::uint32_t s = 0; s < sc.batch_size; ++s)
    for (std::uint32_t kv = 0; kv < sc.num_kv_heads; ++kv)
      ids.push_back((s * sc.num_kv_heads + kv) * sc.max_seq_len + in.u32["positions"][s]);
  auto back = embedding_gather_reference(scattered->f32.at("k_cache"), ids, rows, sc.head_dim);
  EXPECT_EQ(back, in.f32.at("k_new"));
  auto back_v = embedding_gather_reference(scattered->f32.at("v_cache"), ids, rows, sc.head_dim);
  EXPECT_EQ(back_v, in.f32.at("v_new"));
}

TEST(EmbeddingGatherContract, OneBlockPerToken) {
  EmbeddingGatherConfig c{.vocab = 151936, .hidden = 896, .tokens = 6};
  auto d = EmbeddingGather::launch(c);
  EXPECT_EQ(d.grid[0], 6u);
  EXPECT_EQ(d.block[0], 224u);
  auto p = EmbeddingGather::params(c);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, std::size_t{151936} * 896);
  EXPECT_EQ(p[1].elem, ElemType::kU32);
  EmbeddingGatherConfig small{.vocab = 3, .hidden = 4, .tokens = 2};
  HostTensors in = EmbeddingGather::make_inputs(small, 1);
  in.f32["table"].pop_back();
  EXPECT_FALSE(EmbeddingGather::reference(small, in));
}

TEST(EmbeddingGatherPtx, VocabGuardBeforeAnyTableRead) {
  const Kernel* k = KernelRegistry::find("embedding_gather");
  ASSERT_NE(k, nullptr);
  auto ptx =
      k->generate(k->reference_config("qwen05b")->values, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx) << ptx.error().to_string();
  const std::string& t = ptx->text;
  const auto guard = t.find("setp.lt.u32");
  const auto table_read = t.find("ld.global.nc.v4.f32");
  ASSERT_NE(guard, std::string::npos);
  ASSERT_NE(table_read, std::string::npos);
  EXPECT_LT(guard, table_read);
  EXPECT_NE(t.find(", 151936;"), std::string::npos);
  EXPECT_NE(t.find("$L__id_out_of_range:"), std::string::npos);
}

using test_util::count;

TEST(EmbeddingGatherHalf, TheTableIsCopiedBitForBit) {
  EmbeddingGatherConfig c{.vocab = 100, .hidden = 64, .tokens = 3, .dtype = DType::kBF16};
  HostTensors in = EmbeddingGather::make_inputs(c, 6);
  for (float v : in.f32.at("table"))
    ASSERT_EQ(v, round_to(DType::kBF16, v));
  auto out = EmbeddingGather::reference(c, in);
  ASSERT_TRUE(out);
  const auto& ids = in.u32.at("ids");
  for (std::size_t t = 0; t < ids.size(); ++t)
    for (std::uint32_t i = 0; i < c.hidden; ++i)
      ASSERT_EQ(out->f32.at("out")[t * c.hidden + i], in.f32.at("table")[ids[t] * c.hidden + i]);
  EXPECT_EQ(EmbeddingGather::tolerance(c, in).abs, 0.0);
}

TEST(EmbeddingGatherHalf, HalfTableSixteenByteChunksIdsStayU32) {
  EmbeddingGatherConfig c{.vocab = 151936, .hidden = 896, .tokens = 6, .dtype = DType::kF16};
  auto p = EmbeddingGather::params(c);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elem, ElemType::kF16);
  EXPECT_EQ(p[1].elem, ElemType::kU32);
  EXPECT_EQ(p[2].elem, ElemType::kF16);
  EXPECT_EQ(EmbeddingGather::launch(c).block[0], 128u); // 112 chunks of 8 halves
  const Kernel* k = KernelRegistry::find("embedding_gather");
  ASSERT_NE(k, nullptr);
  auto bf = config_from_assignments(*k, {"dtype=bf16"});
  auto f32 = config_from_assignments(*k, {});
  ASSERT_TRUE(bf && f32);
  EXPECT_NE(cache_key(*k, *bf, "sm_90"), cache_key(*k, *f32, "sm_90"));
  auto ptx = k->generate(*bf, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx);
  const std::string& t = ptx->text;
  EXPECT_EQ(count(t, ".f32 {"), 0u);
  EXPECT_EQ(count(t, "ld.global.nc.v4.b32"), 1u);
  EXPECT_EQ(count(t, "st.global.v4.b32"), 2u);                   // the row, or zeros for a bad id
  EXPECT_LT(t.find(", 151936;"), t.find("ld.global.nc.v4.b32")); // the vocab guard comes first
  auto bad = config_from_assignments(*k, {"dtype=bf16", "hidden=6"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("multiple of 4"), std::string::npos) << bad.error().message;
}

} // namespace
} // namespace ptxkit::kernels
