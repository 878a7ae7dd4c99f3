// flash_decode_chunk_pass.h: the chunk pass's body as a builder piece, so that the two-launch
// chunk kernel and the one-launch flash_decode kernel emit the same PTX for it.
//
// emit_chunk_pass declares the pass's shared memory and emits steps 0-4 of
// flash_decode_chunk_builder.cpp for the config's kv_dtype (K and V read in that type, all
// arithmetic in f32). Where the block has stored its partials, and where a chunk past the slot's
// length branches, it calls the hooks; without hooks it returns there (the chunk kernel: the empty
// chunk writes the empty state first).
#pragma once

#include "flash_decode_chunk.h"

#include <functional>
#include <ptxkit/ptxgen/ptxgen.h>

namespace ptxkit::kernels::flash {

using namespace ptxkit::ptxgen;

// The global buffers the pass reads and writes, as the kernel declared them.
struct ChunkPassIo {
  Ptr<Global, const F32> q;
  Ptr<Global, const U64> k_ptrs;
  Ptr<Global, const U64> v_ptrs;
  Ptr<Global, F32> part_max;
  Ptr<Global, F32> part_sum;
  Ptr<Global, F32> part_out;
  Ptr<Global, const U32> seq_lens;
};

// Declares the pass's parameters on `b`, in the order both kernels take them (q, k_ptrs, v_ptrs,
// partial_max, partial_sum, partial_out, seq_lens); a kernel adds its own after them.
ChunkPassIo declare_chunk_pass_io(KernelBuilder& b);

// The block's coordinates, as the pass computed them (valid in both hooks).
struct ChunkBlock {
  Reg<U32> chunk, kv_head, slot, tid, lane, warp;
  Reg<U32> len;   // min(seq_lens[slot], max_seq_len)
  Reg<U32> head0; // slot * num_heads + first query head of the KV group
};

struct ChunkPassHooks {
  // Emitted by every thread after its last partial store; must end the thread (ret).
  std::function<void(const ChunkBlock&)> after_partials;
  // Emitted at the branch target of a chunk starting at or past len; must end the thread.
  std::function<void(const ChunkBlock&)> at_empty;
};

// How the pass orders its loads.
struct ChunkPassOptions {
  // false: the dependent order (len, then the pointers, q, the K rows in batches of 4 after q's
  // barrier, V after the softmax), loads clamped to the last row inside len.
  // true (for the latency-bound one-launch kernel): len, both pointers and q requested at once;
  // then, before q's barrier, every K row and V row of the chunk whose words fit
  // kPrefetchWords per lane (K first; V rows past the budget go out right after the scores, once
  // K's registers are free), with plain loads (ptxas sinks ld.global.nc past bar.sync) at rows
  // clamped only to max_seq_len - 1 (addresses independent of len); rows past len are masked by
  // selp (scores -inf, V 0). A chunk past len leaves after q's barrier (a branch on len before the
  // loads would let ptxas sink them past it), so its loads only waste bandwidth.
  bool prefetch = false;
};

// 32-bit words per lane of prefetched K and V (as loaded: two halves per word). 64 takes all of
// a half chunk at head_dim 128, chunk 64 (128 registers in all), and f32's K only (96).
inline constexpr std::uint32_t kPrefetchWords = 64;

void emit_chunk_pass(KernelBuilder& b, const FlashDecodeChunkConfig& c, const ChunkPassIo& io,
                     const ChunkPassHooks& hooks = {}, const ChunkPassOptions& options = {});

} // namespace ptxkit::kernels::flash
