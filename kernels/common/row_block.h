// row_block.h: the register-resident chunks of a row, for the one-row-per-block kernels
// (rmsnorm, layernorm, fused_residual_rmsnorm, embedding_gather); their block sums are
// block_reduce.h's. A chunk is `width` consecutive elements moved as one access: 4 floats, or 8
// (4) halves, 16 (8) bytes (common/dtype_access.h widens them to f32 registers).
//
// Why: these kernels read each row exactly once. `hidden` is baked, so the number of chunks
// a thread owns is known when the PTX is built: the loads are fully unrolled, the row stays in
// registers between the reduction and the output, and no loop or bound is computed at run time.
// Thread t of a block of T threads owns chunks t, t+T, t+2T, ... of its row. Only the last of
// them can be missing for some threads (when chunks % T != 0): that chunk's address is clamped to
// the row's last chunk (so no thread ever reads past the row's logical end), the loaded values
// are replaced by 0 with selp, and its store is predicated.
#pragma once

#include "common/dtype_access.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <ptxkit/ptxgen/ptxgen.h>
#include <string>
#include <vector>

namespace ptxkit::kernels::row_block {

using namespace ptxkit::ptxgen;

// Elements per chunk for a row of `hidden` elements of `dtype`: 16 bytes (4 floats, 8 halves), or
// 4 halves (8 bytes) when hidden is not a multiple of 8, since such rows start only 8-byte aligned.
constexpr std::uint32_t chunk_width(DType dtype, std::uint32_t hidden) {
  if (dtype == DType::kF32) return 4;
  return hidden % 8 == 0 ? 8 : 4;
}

// Threads per block for a row of `chunks` chunks: a multiple of 32, at most 256.
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
  // `chunks` chunks of `width` (1, 2, 4 or 8) elements per row; `field` is the config field the
  // chunk count comes from (the immediates are baked from it).
  RowChunks(KernelBuilder& b, Reg<U32> tid, std::uint32_t chunks, const std::string& field,
            std::uint32_t width = 4)
      : b_(b), chunks_(chunks), threads_(threads_for(chunks)), count_(chunks_per_thread(chunks)),
        width_(width), partial_(std::uint64_t{count_} * threads_ != chunks_) {
    const Imm<U32> shift = b.imm<U32>(static_cast<std::uint32_t>(std::countr_zero(width)));
    const std::uint32_t last = count_ - 1;
    if (partial_) {
      // Only the last chunk index can be missing: valid when tid < chunks - last*T.
      valid_last_.push_back(b.setp(cmp::lt, tid, b.baked<U32>(field, chunks_ - last * threads_)));
      Reg<U32> mine = last == 0 ? tid : b.add(tid, b.baked<U32>(field, last * threads_));
      Reg<U32> c = b.min(mine, b.baked<U32>(field, chunks_ - 1));
      clamped_last_.push_back(b.shl(c, shift));
    }
    if (count_ > 1 || !partial_) tid_elem_.push_back(b.shl(tid, shift));
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
    if (tid_elem_.empty()) return row; // the only chunk is the clamped one
    return row + tid_elem_[0];
  }
  // The k-th chunk: `thread` (from thread_ptr) plus a constant, or, for a chunk some threads lack,
  // the clamped address inside the row.
  template <class T>
  Ptr<Global, T> chunk_ptr(Ptr<Global, T> row, Ptr<Global, T> thread, std::uint32_t k) const {
    if (valid(k)) return row + clamped_last_[0];
    return thread + static_cast<std::int64_t>(k) * threads_ * width_;
  }

  // The k-th chunk of E as f32 (zeros where the thread has none).
  template <class E>
  std::vector<Reg<F32>> load_f32(Ptr<Global, const E> row, Ptr<Global, const E> thread,
                                 std::uint32_t k, common::LoadPath path) const {
    std::vector<Reg<F32>> v = common::load_f32<E>(b_, chunk_ptr(row, thread, k), width_, path);
    if (const Reg<Pred>* ok = valid(k))
      for (auto& x : v)
        x = b_.selp(x, b_.imm<F32>(0.0f), *ok);
    return v;
  }
  // Stores the k-th chunk rounded to E (predicated where some threads have none).
  template <class E>
  void store_f32(Ptr<Global, E> row, Ptr<Global, E> thread, std::uint32_t k,
                 const std::vector<Reg<F32>>& v) const {
    auto p = chunk_ptr(row, thread, k);
    if (const Reg<Pred>* ok = valid(k)) {
      auto only_owners = b_.guard(*ok);
      common::store_f32<E>(b_, p, v);
    } else {
      common::store_f32<E>(b_, p, v);
    }
  }

private:
  KernelBuilder& b_;
  std::uint32_t chunks_;
  std::uint32_t threads_;
  std::uint32_t count_;
  std::uint32_t width_;
  bool partial_;
  // Zero or one handle each. (Not std::optional: GCC 12's -O3 -Wmaybe-uninitialized misfires on
  // an optional register handle.)
  std::vector<Reg<U32>> tid_elem_;     // tid * width, when some chunk is owned by every thread
  std::vector<Reg<Pred>> valid_last_;  // tid owns its last chunk (partial_ only)
  std::vector<Reg<U32>> clamped_last_; // width * min(last chunk, chunks - 1) (partial_ only)
};

} // namespace ptxkit::kernels::row_block
