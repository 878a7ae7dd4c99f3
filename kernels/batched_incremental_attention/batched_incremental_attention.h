// batched_incremental_attention.h: the batched decode attention (config, launch contract,
// reference).
//
// Retired as a decode kernel: one warp walks all of a slot's positions in order, so at 4 slots x
// 2048 positions it keeps 48 warps busy and takes about 1.2 ms on an H200, where flash_decode
// (same buffers, split over chunks) takes 13 us. It stays as the one-pass online-softmax
// formulation: the kernel whose running-maximum rescale the verifier's softmax-rescale-saved-max
// rule and its planted defects are checked on (flash-decoding has no running maximum: each chunk
// and the combine take their maximum first), and the layout flash-decoding is interchangeable with.
//
// Grid (num_heads, batch_size), one warp per (head, slot). Slot s attends its query
// q[s, head, :] over positions [0, seq_lens[s]) of its own K/V cache, reached through the pointer
// arrays k_ptrs[s] / v_ptrs[s]; each cache is laid out [num_kv_heads, max_seq_len, head_dim]
// (f32). GQA: query head h reads KV head h / (num_heads / num_kv_heads). The softmax is online
// (Milakov & Gimelshein) in the log2 domain: scale * log2(e) is folded into one baked immediate
// and exponentials are ex2. The rescale snapshots the running max with an explicit read before
// the in-place max update (a copy aliasing the register cannot be written with ptxgen's
// Var), and the shfl.down dot-product reduction is broadcast from lane 0 with
// shfl.idx before any lane uses it.
//
// Each lane owns elements lane, lane+32, ... of the head, so head_dim must be a multiple of 32 and
// at most 128 (at most 4 elements per lane, all in registers): no lane guards, no partial loads.
// seq_lens[s] is clamped to max_seq_len in the kernel, so a bad length never reads past the
// cache; seq_lens[s] == 0 gives a zero output row.
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct BatchedIncrementalAttentionConfig {
  std::uint32_t head_dim = 128;
  std::uint32_t num_heads = 12;
  std::uint32_t num_kv_heads = 2;
  std::uint32_t max_seq_len = 2048;
  float scale = 0.0f;
  std::uint32_t batch_size = 4;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("head_dim", c.head_dim,
            common::attention_head_dim_field(
                "elements per head; one warp holds a head, head_dim/32 per lane"));
    v.field("num_heads", c.num_heads, common::query_heads_field("query heads (grid.x)"));
    v.field("num_kv_heads", c.num_kv_heads, common::kv_heads_field());
    v.field("max_seq_len", c.max_seq_len,
            common::max_seq_len_field("positions per KV head in each slot's cache (its stride)"));
    v.field("scale", c.scale, common::attention_scale_field());
    v.field("batch_size", c.batch_size, common::slots_on_grid_y_field());
  }

  // The scale actually used (resolves 0 to 1/sqrt(head_dim)).
  [[nodiscard]] float effective_scale() const;
};

struct BatchedIncrementalAttention {
  PTXKIT_KERNEL_FUNCTIONS(BatchedIncrementalAttentionConfig);
  static constexpr std::string_view kName = "batched_incremental_attention";
  static constexpr std::string_view kSummary =
      "batched decode attention, one pass (not for speed: flash_decode reads the same inputs "
      "about 80x faster): grid (num_heads, batch), one warp per (head, slot), GQA, online "
      "softmax, K/V pointer arrays, per-slot seq_len";
  static constexpr std::string_view kLimits =
      "head_dim a multiple of 32 in [32, 128] (one warp, at most 4 elements per lane); "
      "num_kv_heads divides num_heads; num_kv_heads * max_seq_len * head_dim < 2^31 (32-bit "
      "element offsets); seq_lens[s] is clamped to max_seq_len; seq_lens[s] == 0 gives zeros";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {2e-5, 1e-4, "online softmax with ex2.approx, f32 sums over up to 2048 positions"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The reference on plain vectors: q and out are [batch, num_heads, head_dim]; k_cache and v_cache
// hold batch consecutive slot caches of [num_kv_heads, max_seq_len, head_dim]. A plain two-pass
// softmax in double (no online rescaling, so it cannot share the kernel's rescale bug).
std::vector<float> attention_reference(const BatchedIncrementalAttentionConfig& c,
                                       const std::vector<float>& q,
                                       const std::vector<float>& k_cache,
                                       const std::vector<float>& v_cache,
                                       const std::vector<std::uint32_t>& seq_lens);

} // namespace ptxkit::kernels
