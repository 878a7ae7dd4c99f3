// row_block.h: the register-resident .v4 chunks of a row, for the one-row-per-block kernels
// (layernorm, fused_residual_rmsnorm, embedding_gather); their block sums are block_reduce.h's.
//
// Why: these kernels read each row exactly once. `hidden` is baked, so the number of float4 chunks
// a thread owns is known when the PTX is built: the loads are fully unrolled, the row stays in
// registers between the reduction and the output, and no loop or bound is computed at run time.
// Thread t of a block of T threads owns chunks t, t+T, t+2T, ... of its row. Only the last of
// them can be missing for some threads (when chunks % T != 0): that chunk's address is clamped to
// the row's last chunk (so no thread ever reads past the row's logical end), the loaded values
// are replaced by 0 with selp, and its store is predicated.
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

} // namespace ptxkit::kernels::row_block
