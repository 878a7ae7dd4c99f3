// flash_decode.h: flash-decoding in one launch: the chunk pass of flash_decode_chunk, and the
// reduce of flash_decode_reduce done by the last block of each (slot, KV head) to finish (config,
// launch contract, reference).
//
// Inputs and output are batched_incremental_attention's (q, k_ptrs/v_ptrs into caches of
// kv_dtype, seq_lens; out [batch, num_heads, head_dim] f32). Besides them the kernel takes a
// workspace the caller owns:
//   partial_max, partial_sum  f32 [batch * num_heads * num_chunks]   scratch, any content
//   partial_out               f32 [batch * num_heads * num_chunks * head_dim]   scratch
//   counters                  u32 [batch * num_kv_heads]   ZERO before the first launch
// Block (chunk, kv_head, slot) with chunk < n = ceil(len / chunk_size) writes its partials as the
// chunk kernel does, then thread 0 releases them (fence.acq_rel.gpu) and adds 1 to
// counters[slot * num_kv_heads + kv_head]; the block that reads n - 1 back is the last of its
// group: it stores 0 into the counter (so every launch leaves the counters zero, and one zeroing
// at allocation serves every later launch), acquires (fence.acq_rel.gpu) and combines the group's
// n chunks into out for its num_heads / num_kv_heads query heads. Blocks with chunk >= n return at
// once; an empty slot's chunk-0 block writes zeros. Two launches must not share a workspace
// concurrently (launches in one stream are fine).
#pragma once

#include "flash_decode_chunk/flash_decode_chunk.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>

namespace ptxkit::kernels {

// The chunk pass's config: the same fields mean the same things.
using FlashDecodeConfig = FlashDecodeChunkConfig;

struct FlashDecode {
  PTXKIT_KERNEL_FUNCTIONS(FlashDecodeConfig);
  static constexpr std::string_view kName = "flash_decode";
  static constexpr std::string_view kSummary =
      "flash-decoding in one launch: grid (num_chunks, num_kv_heads, batch), the chunk pass, "
      "then the last block of each (slot, KV head) (an atomic counter in a zeroed workspace it "
      "leaves zeroed) combines the partials into out";
  static constexpr std::string_view kLimits =
      "those of flash_decode_chunk, and static shared memory 4 * (group * head_dim * 5 + group * "
      "chunk_size + group * num_chunks + group * 512 + group + 1) bytes <= 48 KiB; the workspace "
      "counters must be zero before the first launch (each launch leaves them zero) and no two "
      "launches may use one workspace at the same time";
  static constexpr std::uint32_t kThreads = FlashDecodeChunk::kThreads;

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {2e-5, 1e-4, "chunk pass and ex2.approx rescale of each chunk in f32"};
  }
  static std::vector<BenchCase> bench_cases();
};

// Static shared memory of one block (bytes): the chunk pass's and the combine's.
[[nodiscard]] std::uint64_t flash_decode_shared_bytes(const FlashDecodeConfig& c);

} // namespace ptxkit::kernels
