// incremental_attention.h: decode attention for ONE sequence (config, launch contract, reference).
//
// The single-sequence decode step of a GQA model: query q[num_heads, head_dim] attends positions
// [0, seq_len) of the sequence's K/V cache, laid out [num_kv_heads, max_seq_len, head_dim] (f32);
// query head h reads KV head h / (num_heads / num_kv_heads). seq_len is a runtime value (a
// one-element u32 buffer, so a captured launch can be replayed as the sequence grows) and is
// clamped to max_seq_len in the kernel; seq_len == 0 gives a zero output.
//
// Grid (num_heads), one block of kWarps = 32 warps (1024 threads) per head, so a single
// sequence still keeps num_heads * 32 warps of loads in flight. Warp w takes positions in pairs
// (2w, 2w+1), (2w + 2*kWarps, ...), ...; lane l owns head_dim/32 contiguous elements of each row
// (one .v4/.v2/scalar load), so head_dim must be 32, 64 or 128. Each warp runs an online softmax in
// the log2 domain (q is pre-multiplied by scale * log2 e, a baked immediate) whose rescale
// snapshots the running max explicitly before the in-place update (a copy
// of the register would alias it and the rescale would read the new max); the warps' states
// (max, sum, acc[head_dim]) are then combined through shared memory. Dot products are reduced with
// a shfl.bfly butterfly, so every lane holds the full sum (no lane-0-only result).
//
// For many sequences or long contexts use flash_decode_chunk + flash_decode_reduce, which split
// the positions over many blocks; this kernel is the simple one-launch path.
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct IncrementalAttentionConfig {
  std::uint32_t head_dim = 64;
  std::uint32_t num_heads = 14;
  std::uint32_t num_kv_heads = 2;
  std::uint32_t max_seq_len = 2048;
  float scale = 0.0f;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("head_dim", c.head_dim,
            common::attention_head_dim_field(
                "elements per head: 32, 64 or 128 (head_dim/32 contiguous per lane)"));
    v.field("num_heads", c.num_heads, common::query_heads_field("query heads (grid.x)"));
    v.field("num_kv_heads", c.num_kv_heads, common::kv_heads_field());
    v.field("max_seq_len", c.max_seq_len,
            common::max_seq_len_field(
                "positions per KV head in the cache (its stride); seq_len is clamped "
                "to it"));
    v.field("scale", c.scale, common::attention_scale_field());
  }

  // The scale actually used (resolves 0 to 1/sqrt(head_dim)).
  [[nodiscard]] float effective_scale() const;
};

struct IncrementalAttention {
  PTXKIT_KERNEL_FUNCTIONS(IncrementalAttentionConfig);
  static constexpr std::string_view kName = "incremental_attention";
  static constexpr std::string_view kSummary =
      "single-sequence decode attention: grid (num_heads), 32 warps per head splitting the "
      "positions, GQA, online softmax per warp combined in shared memory, runtime seq_len";
  static constexpr std::string_view kLimits =
      "head_dim 32, 64 or 128 (head_dim/32 contiguous elements per lane: scalar, .v2 or .v4); "
      "num_kv_heads divides num_heads; num_kv_heads * max_seq_len * head_dim < 2^31 (32-bit "
      "element offsets); seq_len[0] is clamped to max_seq_len; seq_len[0] == 0 gives zeros";
  static constexpr std::uint32_t kWarps = 32;
  static constexpr std::uint32_t kThreads = kWarps * 32;

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {2e-5, 1e-4, "as batched_incremental_attention"};
  }
};

// The reference on plain vectors: q and out are [num_heads, head_dim], k_cache and v_cache
// [num_kv_heads, max_seq_len, head_dim]; seq_len <= max_seq_len. An online softmax in double,
// position by position, with the running max snapshot taken before each update: the algorithm of
// the kernel, in exact-enough arithmetic. The tests hold it against the two-pass reference of
// batched_incremental_attention and against the flash-decoding references.
std::vector<float> incremental_attention_reference(const IncrementalAttentionConfig& c,
                                                   const std::vector<float>& q,
                                                   const std::vector<float>& k_cache,
                                                   const std::vector<float>& v_cache,
                                                   std::uint32_t seq_len);

} // namespace ptxkit::kernels
