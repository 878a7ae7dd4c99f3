// flash_decode_reduce.h: flash-decoding, combine pass: the chunks' partial softmax states into the
// final attention output (config, launch contract, reference).
//
// Reads flash_decode_chunk's partials (layout in flash_decode_chunk.h: row
// r = (slot * num_heads + head) * num_chunks + chunk; max in log2 units, sum, unnormalized out) and
// writes out[batch, num_heads, head_dim], the layout of batched_incremental_attention's output:
//   n   = ceil(min(seq_lens[slot], max_seq_len) / chunk_size)     (chunks that hold positions)
//   M   = max_{i<n} m_i
//   out = sum_{i<n} 2^(m_i - M) o_i / sum_{i<n} 2^(m_i - M) l_i
// and zeros for an empty slot. Only the first n chunks are read, so the empty states of later
// chunks never enter the sums.
//
// Grid (num_heads, batch), 128 threads: the block finds M (shfl.bfly butterfly max per warp, then
// across warps through shared memory, so every thread holds M), stores each chunk's weight
// 2^(m_i - M) in shared memory while summing the weighted l_i the same way, then thread t takes
// float4 t % (head_dim/4) of chunks t / (head_dim/4), +512/head_dim, ... (4 chunks in flight per
// step, the tail clamped and weighted 0), and the chunk groups are summed in shared memory.
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct FlashDecodeReduceConfig {
  std::uint32_t head_dim = 128;
  std::uint32_t num_heads = 12;
  std::uint32_t max_seq_len = 2048;
  std::uint32_t chunk_size = 64;
  std::uint32_t batch_size = 4;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("head_dim", c.head_dim,
            common::attention_head_dim_field("elements per head: 32, 64 or 128 (float4 lanes)"));
    v.field("num_heads", c.num_heads, common::query_heads_field("query heads (grid.x)"));
    v.field("max_seq_len", c.max_seq_len,
            common::max_seq_len_field(
                "positions per KV head in each slot's cache; seq_lens are clamped "
                "to it"));
    v.field(
        "chunk_size", c.chunk_size,
        common::flash_chunk_size_field("positions per chunk of the chunk pass (must match it)"));
    v.field("batch_size", c.batch_size, common::slots_on_grid_y_field());
  }

  [[nodiscard]] std::uint32_t num_chunks() const {
    return (max_seq_len + chunk_size - 1) / chunk_size;
  }
};

struct FlashDecodeReduce {
  PTXKIT_KERNEL_FUNCTIONS(FlashDecodeReduceConfig);
  static constexpr std::string_view kName = "flash_decode_reduce";
  static constexpr std::string_view kSummary =
      "flash-decoding combine pass: grid (num_heads, batch), 128 threads, rescales each chunk's "
      "partial by 2^(m_i - M) and divides by the total sum";
  static constexpr std::string_view kLimits =
      "head_dim 32, 64 or 128; chunk_size a multiple of 32 in [32, 256], equal to the chunk "
      "pass's; num_chunks = ceil(max_seq_len / chunk_size) <= 8192 (chunk weights in shared "
      "memory); batch_size * num_heads * num_chunks * head_dim < 2^31; seq_lens[s] is clamped "
      "to max_seq_len; an empty slot gives zeros";
  static constexpr std::uint32_t kWarps = 4;
  static constexpr std::uint32_t kThreads = kWarps * 32;
  static constexpr std::uint32_t kMaxChunks = 8192;

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {2e-5, 1e-4, "ex2.approx rescale of each chunk, f32 sums"};
  }
};

// The combine in double: out is [batch, num_heads, head_dim].
std::vector<float> flash_decode_reduce_reference(const FlashDecodeReduceConfig& c,
                                                 const std::vector<float>& partial_max,
                                                 const std::vector<float>& partial_sum,
                                                 const std::vector<float>& partial_out,
                                                 const std::vector<std::uint32_t>& seq_lens);

} // namespace ptxkit::kernels
