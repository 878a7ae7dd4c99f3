// row_block.h: building blocks shared by the one-row-per-block kernels (layernorm,
// fused_residual_rmsnorm, embedding_gather): the register-resident .v4 chunks of a row and the
// all-lanes warp/block sums.
//
// Why: these kernels read each row exactly once. `hidden` is baked, so the number of float4 chunks
// a thread owns is known when the PTX is built: the loads are fully unrolled, the row stays in
// registers between the reduction and the output, and no loop or bound is computed at run time.
// Thread t of a block of T threads owns chunks t, t+T, t+2T, ... of its row. Only the last of
// them can be missing for some threads (when chunks % T != 0): that chunk's address is clamped to
// the row's last chunk (so no thread ever reads past the row's logical end), the loaded values
// are replaced by 0 with selp, and its store is predicated.
//
// The reductions broadcast by construction: a shfl.bfly (xor) tree leaves the full sum in EVERY
// lane (bitwise the same in all lanes, since each level adds the same two partial sums), so no
// lane uses a partial value (seed PAR-118: after shfl.down only lane 0 holds the sum). Across
// warps, lane 0 of each warp stores its sum to shared memory, bar.sync, and every thread adds the
// warp sums in the same fixed order, so every thread of the block agrees bit for bit.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <ptxkit/ptxgen/ptxgen.h>
#include <string>
#include <vector>

namespace ptxkit::kernels::row_block {

using namespace ptxkit::ptxgen;

// Threads per block for a row of `chunks` float4 chunks: a multiple of 32, at most 256.
constexpr std::uint32_t threads_for(std::uint32_t chunks) {
  return std::min<std::uint32_t>(256, (chunks + 31) / 32 * 32);
}
// Chunks per thread (the unroll count).
constexpr std::uint32_t chunks_per_thread(std::uint32_t chunks) {
  const std::uint32_t t = threads_for(chunks);
  return (chunks + t - 1) / t;
}

// The chunks of a row that one thread owns.
class RowChunks {
public:
  // `chunks` float4 chunks per row; `field` is the config field the chunk count comes from (the
  // immediates are baked from it).
  RowChunks(KernelBuilder& b, Reg<U32> tid, std::uint32_t chunks, const std::string& field)
      : b_(b), chunks_(chunks), threads_(threads_for(chunks)), count_(chunks_per_thread(chunks)),
        partial_(std::uint64_t{count_} * threads_ != chunks_) {
    const std::uint32_t last = count_ - 1;
    if (partial_) {
      // Only the last chunk index can be missing: valid when tid < chunks - last*T.
      valid_last_.push_back(b.setp(cmp::lt, tid, b.baked<U32>(field, chunks_ - last * threads_)));
      Reg<U32> mine = last == 0 ? tid : b.add(tid, b.baked<U32>(field, last * threads_));
      Reg<U32> c = b.min(mine, b.baked<U32>(field, chunks_ - 1));
      clamped4_last_.push_back(b.shl(c, b.imm<U32>(2)));
    }
    if (count_ > 1 || !partial_) tid4_.push_back(b.shl(tid, b.imm<U32>(2)));
  }

  std::uint32_t count() const { return count_; }
  std::uint32_t threads() const { return threads_; }
  // The predicate "this thread has its k-th chunk", or nullptr when every thread has it.
  const Reg<Pred>* valid(std::uint32_t k) const {
    return partial_ && k + 1 == count_ ? &valid_last_[0] : nullptr;
  }

  // This thread's first chunk in a row starting at `row` (compute once per row pointer).
  template <class T>
  Ptr<Global, T> thread_ptr(Ptr<Global, T> row) const {
    if (tid4_.empty()) return row; // the only chunk is the clamped one
    return row + tid4_[0];
  }
  // The k-th chunk: `thread` (from thread_ptr) plus a constant, or, for a chunk some threads lack,
  // the clamped address inside the row.
  template <class T>
  Ptr<Global, T> chunk_ptr(Ptr<Global, T> row, Ptr<Global, T> thread, std::uint32_t k) const {
    if (valid(k)) return row + clamped4_last_[0];
    return thread + static_cast<std::int64_t>(k) * threads_ * 4;
  }

  // Loads the k-th chunk (zeros where the thread has none). `nc`: through the read-only path.
  template <class T>
  std::array<Reg<F32>, 4> load(Ptr<Global, T> row, Ptr<Global, T> thread, std::uint32_t k,
                               bool nc) const {
    auto p = chunk_ptr(row, thread, k);
    std::array<Reg<F32>, 4> v = nc ? b_.ld_nc_v4(p) : b_.ld_v4(p);
    if (const Reg<Pred>* ok = valid(k))
      for (auto& x : v)
        x = b_.selp(x, b_.imm<F32>(0.0f), *ok);
    return v;
  }
  // Stores the k-th chunk (predicated where some threads have none).
  void store(Ptr<Global, F32> row, Ptr<Global, F32> thread, std::uint32_t k,
             const std::array<Reg<F32>, 4>& v) const {
    auto p = chunk_ptr(row, thread, k);
    if (const Reg<Pred>* ok = valid(k)) {
      auto only_owners = b_.guard(*ok);
      b_.st_v4(p, v);
    } else {
      b_.st_v4(p, v);
    }
  }

private:
  KernelBuilder& b_;
  std::uint32_t chunks_;
  std::uint32_t threads_;
  std::uint32_t count_;
  bool partial_;
  // Zero or one handle each. (Not std::optional: GCC 12's -O3 -Wmaybe-uninitialized misfires on
  // an optional register handle.)
  std::vector<Reg<U32>> tid4_;          // tid * 4, when some chunk is owned by every thread
  std::vector<Reg<Pred>> valid_last_;   // tid owns its last chunk (partial_ only)
  std::vector<Reg<U32>> clamped4_last_; // 4 * min(last chunk, chunks - 1) (partial_ only)
};

// The sum of `v` over the 32 lanes, in every lane (shfl.bfly tree: the broadcast is built in).
inline Reg<F32> warp_sum_all_lanes(KernelBuilder& b, Reg<F32> v) {
  for (std::uint32_t delta : {16u, 8u, 4u, 2u, 1u})
    v = b.add(v, b.shfl_bfly(v, b.imm<U32>(delta)));
  return v;
}

// The sum of `v` over the block, in every thread. `slots` is a shared array of `warps` floats used
// by this reduction only (a second reduction needs its own, so no thread can overwrite a slot
// another warp is still reading).
inline Reg<F32> block_sum_all_threads(KernelBuilder& b, Reg<F32> v, Ptr<Shared, F32> slots,
                                      std::uint32_t warps, Reg<U32> tid) {
  Reg<F32> warp_total = warp_sum_all_lanes(b, v);
  if (warps == 1) return warp_total;
  Reg<Pred> lane0 = b.setp(cmp::eq, b.and_(tid, b.imm<U32>(31)), b.imm<U32>(0));
  auto my_slot = slots + b.shr(tid, b.imm<U32>(5));
  {
    auto only_lane0 = b.guard(lane0);
    b.st(my_slot, warp_total);
  }
  b.bar_sync(0);
  Reg<F32> total = b.ld(slots + 0);
  for (std::uint32_t w = 1; w < warps; ++w)
    total = b.add(total, b.ld(slots + w));
  return total;
}

} // namespace ptxkit::kernels::row_block
