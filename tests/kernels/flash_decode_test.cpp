// flash_decode_test.cpp: flash decoding's two references (chunk partials, reduce) against one-pass
// attention (batched_incremental_attention's two-pass softmax and incremental_attention's online
// softmax), the partial states' meaning, the rescale's invariance to a constant shift, the
// kernels' limits and launch contracts (interchangeable with batched attention).
#include "batched_incremental_attention/batched_incremental_attention.h"
#include "flash_decode_chunk/flash_decode_chunk.h"
#include "flash_decode_reduce/flash_decode_reduce.h"
#include "incremental_attention/incremental_attention.h"
#include "kernel_test_util.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

FlashDecodeChunkConfig chunk_config() {
  return FlashDecodeChunkConfig{.head_dim = 32,
                                .num_heads = 6,
                                .num_kv_heads = 2,
                                .max_seq_len = 100,
                                .scale = 0.0f,
                                .chunk_size = 32,
                                .batch_size = 5};
}
FlashDecodeReduceConfig reduce_config(const FlashDecodeChunkConfig& c) {
  return FlashDecodeReduceConfig{.head_dim = c.head_dim,
                                 .num_heads = c.num_heads,
                                 .max_seq_len = c.max_seq_len,
                                 .chunk_size = c.chunk_size,
                                 .batch_size = c.batch_size};
}

// chunk reference -> reduce reference, through the Kernel interface (the device tests' path).
std::vector<float> flash(const FlashDecodeChunkConfig& c, const HostTensors& in) {
  auto parts = FlashDecodeChunk::reference(c, in);
  EXPECT_TRUE(parts) << (parts ? "" : parts.error().message);
  HostTensors r = *parts;
  r.u32["seq_lens"] = in.u32.at("seq_lens");
  auto out = FlashDecodeReduce::reference(reduce_config(c), r);
  EXPECT_TRUE(out) << (out ? "" : out.error().message);
  return out ? out->f32.at("out") : std::vector<float>{};
}

TEST(FlashDecodeReference, ChunkPlusReduceEqualsOnePassAttention) {
  FlashDecodeChunkConfig c = chunk_config();
  HostTensors in = FlashDecodeChunk::make_inputs(c, 77);
  // Lengths: one position, inside the first chunk, a chunk boundary, a ragged last chunk, full.
  in.u32["seq_lens"] = {1, 20, 64, 65, 100};
  auto got = flash(c, in);
  BatchedIncrementalAttentionConfig bc{.head_dim = c.head_dim,
                                       .num_heads = c.num_heads,
                                       .num_kv_heads = c.num_kv_heads,
                                       .max_seq_len = c.max_seq_len,
                                       .scale = 0.0f,
                                       .batch_size = c.batch_size};
  auto two_pass = attention_reference(bc, in.f32["q"], in.f32["k_cache"], in.f32["v_cache"],
                                      in.u32["seq_lens"]);
  ASSERT_EQ(got.size(), two_pass.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], two_pass[i], 1e-6) << i;
  // ...and the online softmax of incremental_attention, slot by slot.
  const std::size_t slot_q = std::size_t{c.num_heads} * c.head_dim;
  const std::size_t slot_kv = std::size_t{c.num_kv_heads} * c.max_seq_len * c.head_dim;
  IncrementalAttentionConfig ic{.head_dim = c.head_dim,
                                .num_heads = c.num_heads,
                                .num_kv_heads = c.num_kv_heads,
                                .max_seq_len = c.max_seq_len,
                                .scale = 0.0f};
  for (std::size_t s = 0; s < c.batch_size; ++s) {
    auto sl = [&](const std::vector<float>& v, std::size_t n) {
      return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(s * n),
                                v.begin() + static_cast<std::ptrdiff_t>((s + 1) * n));
    };
    auto online =
        incremental_attention_reference(ic, sl(in.f32["q"], slot_q), sl(in.f32["k_cache"], slot_kv),
                                        sl(in.f32["v_cache"], slot_kv), in.u32["seq_lens"][s]);
    for (std::size_t i = 0; i < slot_q; ++i)
      EXPECT_NEAR(got[s * slot_q + i], online[i], 1e-6) << "slot " << s << " element " << i;
  }
}

TEST(FlashDecodeReference, PartialsHoldTheChunkMaxSumAndUnnormalizedOutput) {
  FlashDecodeChunkConfig c = chunk_config();
  HostTensors in = FlashDecodeChunk::make_inputs(c, 5);
  in.u32["seq_lens"] = {33, 1, 100, 31, 64};
  auto p = flash_decode_chunk_reference(c, in.f32["q"], in.f32["k_cache"], in.f32["v_cache"],
                                        in.u32["seq_lens"]);
  const std::size_t nc = c.num_chunks(), hd = c.head_dim;
  ASSERT_EQ(nc, 4u);
  // Slot 0 (33 positions): chunk 1 holds only position 32, so l = 1, o = v[32], and
  // m = scale * log2(e) * q.k[32]; chunks 2 and 3 are empty.
  const auto& q = in.f32["q"];
  const auto& k = in.f32["k_cache"];
  const auto& v = in.f32["v_cache"];
  for (std::size_t h = 0; h < c.num_heads; ++h) {
    const std::size_t kv_row = (h / 3) * c.max_seq_len + 32;
    double dot = 0;
    for (std::size_t d = 0; d < hd; ++d)
      dot += double{q[h * hd + d]} * k[kv_row * hd + d];
    const std::size_t row = h * nc + 1;
    EXPECT_NEAR(p.max[row], dot / std::sqrt(32.0) * 1.4426950408889634, 1e-6);
    EXPECT_FLOAT_EQ(p.sum[row], 1.0f);
    for (std::size_t d = 0; d < hd; ++d)
      EXPECT_FLOAT_EQ(p.out[row * hd + d], v[kv_row * hd + d]);
    for (std::size_t empty : {h * nc + 2, h * nc + 3}) {
      EXPECT_EQ(p.max[empty], -std::numeric_limits<float>::infinity());
      EXPECT_EQ(p.sum[empty], 0.0f);
      for (std::size_t d = 0; d < hd; ++d)
        EXPECT_EQ(p.out[empty * hd + d], 0.0f);
    }
    // A full chunk's sum is in [1, chunk_size] (its max position contributes exactly 1).
    EXPECT_GE(p.sum[h * nc], 1.0f);
    EXPECT_LE(p.sum[h * nc], 32.0f);
  }
}

TEST(FlashDecodeReference, TheRescaleIsInvariantToAConstantShiftOfTheChunkMaxima) {
  // Adding c to every m_i of a (slot, head) multiplies each 2^(m_i - M) by nothing: M moves by
  // the same c. The output must not change, even for shifts far beyond exp's range.
  FlashDecodeChunkConfig cc{.head_dim = 32,
                            .num_heads = 3,
                            .num_kv_heads = 1,
                            .max_seq_len = 256,
                            .scale = 0.0f,
                            .chunk_size = 32,
                            .batch_size = 2};
  const FlashDecodeReduceConfig rc = reduce_config(cc);
  HostTensors att = FlashDecodeChunk::make_inputs(cc, 8);
  att.u32["seq_lens"] = {256, 70};
  HostTensors in = *FlashDecodeChunk::reference(cc, att);
  in.u32["seq_lens"] = att.u32["seq_lens"];
  // Maxima on a 2^-10 grid, so that m + shift is exact in f32 for the shifts below.
  for (float& m : in.f32["partial_max"])
    if (std::isfinite(m)) m = std::round(m * 1024.0f) / 1024.0f;
  auto base = FlashDecodeReduce::reference(rc, in)->f32.at("out");
  for (float shift : {-1024.0f, 512.0f}) {
    HostTensors moved = in;
    for (float& m : moved.f32["partial_max"])
      if (std::isfinite(m)) m += shift;
    auto got = FlashDecodeReduce::reference(rc, moved)->f32.at("out");
    for (std::size_t i = 0; i < base.size(); ++i)
      EXPECT_NEAR(got[i], base[i], 1e-6) << i;
  }
  // Shifting one chunk only does change it (the test can fail).
  HostTensors one = in;
  one.f32["partial_max"][1] += 3.0f;
  auto changed = FlashDecodeReduce::reference(rc, one)->f32.at("out");
  double diff = 0;
  for (std::size_t i = 0; i < 32; ++i)
    diff += std::fabs(changed[i] - base[i]);
  EXPECT_GT(diff, 1e-3);
}

TEST(FlashDecodeReference, ReduceOfOneChunkIsItsNormalizedOutputAndEmptySlotsGiveZeros) {
  FlashDecodeReduceConfig rc{
      .head_dim = 32, .num_heads = 2, .max_seq_len = 64, .chunk_size = 32, .batch_size = 2};
  HostTensors in = FlashDecodeReduce::make_inputs(rc, 3);
  in.u32["seq_lens"] = {32, 0};     // slot 0: chunk 0 only (chunk 1's state must be ignored)
  in.f32["partial_max"][1] = 50.0f; // a stale, larger max in chunk 1 of slot 0, head 0
  auto out = FlashDecodeReduce::reference(rc, in)->f32.at("out");
  const auto& po = in.f32["partial_out"];
  const float l = in.f32["partial_sum"][0];
  for (std::size_t d = 0; d < 32; ++d)
    EXPECT_NEAR(out[d], po[d] / l, 1e-6);
  for (std::size_t i = 2 * 32; i < out.size(); ++i)
    EXPECT_EQ(out[i], 0.0f);
}

TEST(FlashDecodeReference, RefusesMismatchedBuffersAndLengthsBeyondTheCache) {
  FlashDecodeChunkConfig c = chunk_config();
  HostTensors in = FlashDecodeChunk::make_inputs(c, 1);
  in.u32["seq_lens"][2] = 101;
  auto out = FlashDecodeChunk::reference(c, in);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("seq_lens[2] = 101"), std::string::npos);
  HostTensors r = FlashDecodeReduce::make_inputs(reduce_config(c), 1);
  r.f32["partial_out"].pop_back();
  EXPECT_FALSE(FlashDecodeReduce::reference(reduce_config(c), r));
}

TEST(FlashDecodeLimits, SharedMemoryHeadDimAndChunkSizeAreValidated) {
  const Kernel* k = KernelRegistry::find("flash_decode_chunk");
  ASSERT_NE(k, nullptr);
  auto smem = config_from_assignments(*k, {"num_heads=32", "num_kv_heads=1", "chunk_size=256"});
  ASSERT_FALSE(smem);
  EXPECT_NE(smem.error().message.find("exceeds 49152"), std::string::npos) << smem.error().message;
  auto hd = config_from_assignments(*k, {"head_dim=96"});
  ASSERT_FALSE(hd);
  EXPECT_NE(hd.error().message.find("must be 32, 64 or 128"), std::string::npos);
  auto cs = config_from_assignments(*k, {"chunk_size=48"});
  ASSERT_FALSE(cs);
  EXPECT_NE(cs.error().message.find("'chunk_size' = 48"), std::string::npos);
  EXPECT_TRUE(config_from_assignments(*k, {"num_heads=14", "head_dim=64", "chunk_size=128"}));
  const Kernel* r = KernelRegistry::find("flash_decode_reduce");
  ASSERT_NE(r, nullptr);
  auto many = config_from_assignments(*r, {"max_seq_len=1048576", "chunk_size=32"});
  ASSERT_FALSE(many);
  EXPECT_NE(many.error().message.find("exceeds 8192"), std::string::npos);
  EXPECT_TRUE(config_from_assignments(*r, {"max_seq_len=1048576", "chunk_size=128"}));
}

TEST(FlashDecodeContract, GridsAndParamsMatchBatchedAttentionsLayout) {
  FlashDecodeChunkConfig c = chunk_config();
  auto d = FlashDecodeChunk::launch(c);
  EXPECT_EQ(d.grid[0], 4u); // ceil(100 / 32)
  EXPECT_EQ(d.grid[1], 2u);
  EXPECT_EQ(d.grid[2], 5u);
  EXPECT_EQ(d.block[0], 128u);
  auto rd = FlashDecodeReduce::launch(reduce_config(c));
  EXPECT_EQ(rd.grid[0], 6u);
  EXPECT_EQ(rd.grid[1], 5u);
  // The chunk kernel's inputs are batched attention's, buffer for buffer.
  BatchedIncrementalAttentionConfig bc{.head_dim = c.head_dim,
                                       .num_heads = c.num_heads,
                                       .num_kv_heads = c.num_kv_heads,
                                       .max_seq_len = c.max_seq_len,
                                       .scale = 0.0f,
                                       .batch_size = c.batch_size};
  auto bp = BatchedIncrementalAttention::params(bc);
  auto cp = FlashDecodeChunk::params(c);
  auto find = [](const std::vector<ParamSpec>& ps, const std::string& n) {
    for (const auto& p : ps)
      if (p.name == n) return p;
    return ParamSpec{};
  };
  for (const char* n : {"q", "k_ptrs", "v_ptrs", "seq_lens"}) {
    EXPECT_EQ(find(cp, n).buffer, find(bp, n).buffer) << n;
    EXPECT_EQ(find(cp, n).elems, find(bp, n).elems) << n;
    EXPECT_EQ(find(cp, n).stride_elems, find(bp, n).stride_elems) << n;
  }
  EXPECT_EQ(find(FlashDecodeReduce::params(reduce_config(c)), "out").elems, find(bp, "out").elems);
  EXPECT_EQ(find(cp, "partial_out").elems, 5u * 6u * 4u * 32u);
}

std::string chunk_ptx(const std::vector<std::string>& sets) {
  return test_util::kernel_ptx("flash_decode_chunk", sets);
}

using test_util::count;

TEST(FlashDecodeHalfKv, MakeInputsHoldsCachesExactInTheFormatAndQInF32) {
  FlashDecodeChunkConfig c = chunk_config();
  c.kv_dtype = DType::kBF16;
  HostTensors in = FlashDecodeChunk::make_inputs(c, 4);
  for (const char* name : {"k_cache", "v_cache"})
    for (float x : in.f32.at(name))
      ASSERT_EQ(x, round_to(DType::kBF16, x)) << name;
  bool q_has_f32_bits = false;
  for (float x : in.f32.at("q"))
    q_has_f32_bits |= x != round_to(DType::kBF16, x);
  EXPECT_TRUE(q_has_f32_bits);
}

TEST(FlashDecodeHalfKv, TheReferenceReadsTheCachesRoundedIntoTheFormat) {
  // Caches with f32 values the device cannot hold: the reference must use their f16 roundings,
  // which the f32 reference of the same numbers misses by far more than the tolerance.
  FlashDecodeChunkConfig c = chunk_config();
  HostTensors in = FlashDecodeChunk::make_inputs(c, 9); // f32: not rounded
  in.u32["seq_lens"] = {100, 100, 100, 100, 100};
  FlashDecodeChunkConfig h = c;
  h.kv_dtype = DType::kF16;
  auto got = FlashDecodeChunk::reference(h, in);
  ASSERT_TRUE(got);
  HostTensors rounded = in;
  round_all(DType::kF16, rounded.f32["k_cache"]);
  round_all(DType::kF16, rounded.f32["v_cache"]);
  auto want = FlashDecodeChunk::reference(c, rounded);
  auto unrounded = FlashDecodeChunk::reference(c, in);
  ASSERT_TRUE(want && unrounded);
  const auto& g = got->f32.at("partial_out");
  EXPECT_EQ(g, want->f32.at("partial_out"));
  EXPECT_EQ(got->f32.at("partial_max"), want->f32.at("partial_max"));
  double worst = 0;
  for (std::size_t i = 0; i < g.size(); ++i)
    worst = std::max(worst, std::fabs(double{g[i]} - unrounded->f32.at("partial_out")[i]));
  EXPECT_GT(worst, 1e-3); // the rounding matters: the test can fail
}

TEST(FlashDecodeHalfKv, HalfCachesAreReadAsSixteenByteWordsAndTheKeyDiffers) {
  // head_dim 128, chunk 64: f32 K is 4 rows x 4 float4s per lane, V 16 rows of one float4; in
  // halves K is 4 rows x 2 loads of 8 halves, V 8 rows (16 lanes per row). q (2 loads) stays f32.
  const std::string f32 = chunk_ptx({});
  EXPECT_EQ(count(f32, "ld.global.nc.v4.f32"), 34u);
  EXPECT_EQ(count(f32, "ld.global.nc.v4.b32"), 0u);
  for (const char* t : {"kv_dtype=bf16", "kv_dtype=f16"}) {
    const std::string h = chunk_ptx({t});
    EXPECT_EQ(count(h, "ld.global.nc.v4.f32"), 2u) << t;
    EXPECT_EQ(count(h, "ld.global.nc.v4.b32"), 16u) << t;
    EXPECT_EQ(count(h, "st.global.v4.f32"), count(f32, "st.global.v4.f32")) << t;
  }
  EXPECT_NE(chunk_ptx({"kv_dtype=f16"}).find("cvt.f32.f16"), std::string::npos);
  EXPECT_EQ(chunk_ptx({"kv_dtype=bf16"}).find("cvt.f32.f16"), std::string::npos);
  // head_dim 32: 4 halves per lane of a K row (one .v2.b32), V rows of 8 halves.
  const std::string small = chunk_ptx({"kv_dtype=bf16", "head_dim=32", "chunk_size=32"});
  EXPECT_GT(count(small, "ld.global.nc.v2.b32"), 0u);
  const Kernel* k = KernelRegistry::find("flash_decode_chunk");
  ASSERT_NE(k, nullptr);
  auto f = config_from_assignments(*k, {});
  auto b = config_from_assignments(*k, {"kv_dtype=bf16"});
  auto h = config_from_assignments(*k, {"kv_dtype=f16"});
  ASSERT_TRUE(f && b && h);
  EXPECT_NE(cache_key(*k, *f, "sm_90"), cache_key(*k, *b, "sm_90"));
  EXPECT_NE(cache_key(*k, *b, "sm_90"), cache_key(*k, *h, "sm_90"));
  auto bad = config_from_assignments(*k, {"kv_dtype=fp8"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bf16"), std::string::npos) << bad.error().message;
}

TEST(FlashDecodeHalfKv, ThePointerArraysNameHalfCachesAndStrideInElements) {
  FlashDecodeChunkConfig c = chunk_config();
  c.kv_dtype = DType::kBF16;
  for (const auto& p : FlashDecodeChunk::params(c)) {
    if (p.kind == ParamKind::kPointerArray) {
      EXPECT_EQ(p.elem, ElemType::kBF16) << p.name;
      EXPECT_EQ(p.stride_elems, std::size_t{2} * 100 * 32) << p.name;
    } else if (p.buffer != "seq_lens") {
      EXPECT_EQ(p.elem, ElemType::kF32) << p.name;
    }
  }
}

} // namespace
} // namespace ptxkit::kernels
