// flash_decode_chunk.h: flash-decoding, split-K pass: per (slot, KV head, chunk of positions), the
// partial softmax state of every query head of the KV group (config, launch contract, reference).
//
// Same inputs and layout as batched_incremental_attention, so the two are interchangeable: q and
// the final out are [batch, num_heads, head_dim]; slot s reaches its K/V cache through the
// pointer arrays k_ptrs[s] / v_ptrs[s], each [num_kv_heads, max_seq_len, head_dim] in kv_dtype
// (f32, f16 or bf16; q and the partials are f32 in every case, and so is the arithmetic);
// seq_lens [batch] (u32) is clamped to max_seq_len. The partials, per (slot, head, chunk), row
// index r = (slot * num_heads + head) * num_chunks + chunk:
//   partial_max[r]       m = max over the chunk's positions p of s_p, in log2 units
//                          (s_p = scale * log2(e) * q . k[p])
//   partial_sum[r]       l = sum_p 2^(s_p - m)
//   partial_out[r, d]    o = sum_p 2^(s_p - m) v[p][d]          (not normalized)
// A chunk that starts at or past the slot's length writes m = -inf, l = 0, o = 0.
// flash_decode_reduce combines them: out = sum_i 2^(m_i - M) o_i / sum_i 2^(m_i - M) l_i.
//
// Grid (num_chunks, num_kv_heads, batch), 128 threads. One block reads its chunk of K and V ONCE
// for all num_heads / num_kv_heads query heads of the KV group (GQA sharing), with 16-byte loads:
//   1. q of the group, pre-scaled by scale * log2 e (a baked immediate), into shared memory;
//   2. scores: 8 lanes per position (each lane head_dim/8 elements of the row in 16-byte loads,
//      4 floats or 8 halves each, loads of up to 4 rows issued before any arithmetic); the dot
//      products of 4 rows x 2 heads are summed over the 8-lane group by one split butterfly
//      (common/split_reduce.h: 7 shuffles for the 8 sums, each lane left with one of them),
//      masked to -inf past the slot's length (rows past it are clamped to its last row, so no
//      load passes seq_len);
//   3. softmax over the chunk per head: one warp per head, max and sum by shfl.bfly butterflies;
//   4. o = sum_p w_p v[p]: each warp a quarter of the rows, one 16-byte load of V per lane and
//      row (head_dim/4 lanes per row in f32, head_dim/8 in halves), the weights of a lane's
//      consecutive rows loaded as vectors; the sub-rows of a warp folded by split butterflies
//      over head sets, the warps' partial o summed through shared memory and written with
//      16-byte stores.
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct FlashDecodeChunkConfig {
  std::uint32_t head_dim = 128;
  std::uint32_t num_heads = 12;
  std::uint32_t num_kv_heads = 2;
  std::uint32_t max_seq_len = 2048;
  float scale = 0.0f;
  std::uint32_t chunk_size = 64;
  std::uint32_t batch_size = 4;
  DType kv_dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("head_dim", c.head_dim,
            common::attention_head_dim_field("elements per head: 32, 64 or 128 (float4 lanes)"));
    v.field("num_heads", c.num_heads, common::query_heads_field("query heads"));
    v.field("num_kv_heads", c.num_kv_heads,
            common::kv_heads_field("KV heads (GQA, grid.y); must divide num_heads"));
    v.field("max_seq_len", c.max_seq_len,
            common::max_seq_len_field("positions per KV head in each slot's cache (its stride)"));
    v.field("scale", c.scale, common::attention_scale_field());
    v.field("chunk_size", c.chunk_size,
            common::flash_chunk_size_field("positions per block (split-K chunk); num_chunks = "
                                           "ceil(max_seq_len / chunk_size) is grid.x"));
    v.field("batch_size", c.batch_size,
            common::launch_shape_field("slots per launch (grid.z)", common::kGridYZMax,
                                       "launch shape only: grid.z = batch_size and each block "
                                       "reads its slot from %ctaid.z, its length from "
                                       "seq_lens[slot], so no PTX depends on it"));
    v.field("kv_dtype", c.kv_dtype,
            FieldSpec{.doc = "element type of the K and V caches: f32, f16 or bf16 (q, the "
                             "partials and the arithmetic stay f32)"});
  }

  [[nodiscard]] float effective_scale() const; // 0 -> 1/sqrt(head_dim)
  [[nodiscard]] std::uint32_t group() const { return num_heads / num_kv_heads; }
  [[nodiscard]] std::uint32_t num_chunks() const {
    return (max_seq_len + chunk_size - 1) / chunk_size;
  }
  // Static shared memory of one block (bytes): scaled q, scores, per-warp partial outputs.
  [[nodiscard]] std::uint64_t shared_bytes() const;
};

struct FlashDecodeChunk {
  PTXKIT_KERNEL_FUNCTIONS(FlashDecodeChunkConfig);
  static constexpr std::string_view kName = "flash_decode_chunk";
  static constexpr std::string_view kSummary =
      "flash-decoding split-K pass: grid (num_chunks, num_kv_heads, batch), 4 warps per chunk, "
      "K/V read once per KV group, writes partial (max, sum, out) per head and chunk";
  static constexpr std::string_view kLimits =
      "head_dim 32, 64 or 128; kv_dtype f32, f16 or bf16; chunk_size a multiple of 32 in [32, "
      "256]; num_kv_heads divides "
      "num_heads; static shared memory 4 * (group * head_dim * 5 + group * chunk_size) bytes "
      "<= 48 KiB (group = num_heads / num_kv_heads); num_kv_heads * max_seq_len * head_dim and "
      "batch_size * num_heads * num_chunks * head_dim < 2^31 (32-bit offsets); seq_lens[s] is "
      "clamped to max_seq_len";
  static constexpr std::uint32_t kWarps = 4;
  static constexpr std::uint32_t kThreads = kWarps * 32;

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {2e-5, 1e-4, "per-chunk max (scaled, log2 domain), sum and weighted V in f32"};
  }
};

// The partial softmax states of every (slot, head, chunk), in the layout above.
struct FlashPartials {
  std::vector<float> max; // [batch, num_heads, num_chunks]
  std::vector<float> sum; // [batch, num_heads, num_chunks]
  std::vector<float> out; // [batch, num_heads, num_chunks, head_dim]
};

// The chunk pass in double: per chunk, the exact max of its scores, then sums and weighted V rows
// relative to it. k_cache/v_cache hold batch consecutive slot caches; seq_lens <= max_seq_len.
FlashPartials flash_decode_chunk_reference(const FlashDecodeChunkConfig& c,
                                           const std::vector<float>& q,
                                           const std::vector<float>& k_cache,
                                           const std::vector<float>& v_cache,
                                           const std::vector<std::uint32_t>& seq_lens);

} // namespace ptxkit::kernels
