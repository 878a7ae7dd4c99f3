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

void emit_chunk_pass(KernelBuilder& b, const FlashDecodeChunkConfig& c, const ChunkPassIo& io,
                     const ChunkPassHooks& hooks = {});

} // namespace ptxkit::kernels::flash
