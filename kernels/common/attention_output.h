// attention_output.h: the builder pieces the decode-attention kernels (incremental_attention,
// batched_incremental_attention, flash_decode_reduce) share: zero-initialized f32 accumulators,
// and the end of a block that writes one head's output row (out = o / total, or zeros for a
// sequence without positions).
#pragma once

#include <cstddef>
#include <memory>
#include <ptxkit/ptxgen/ptxgen.h>
#include <utility>
#include <vector>

namespace ptxkit::kernels::common {

using namespace ptxkit::ptxgen;

// One output accumulator. Var<F32> can be neither copied nor moved, so each lives in its own heap
// slot, constructed in place from the builder's factory.
struct Accumulator {
  explicit Accumulator(KernelBuilder& b) : var(b.var<F32>(b.imm<F32>(0.0f), "acc")) {}
  Var<F32> var;
};

// `count` accumulators, each starting at 0.
inline std::vector<std::unique_ptr<Accumulator>> make_accumulators(KernelBuilder& b,
                                                                   std::size_t count) {
  std::vector<std::unique_ptr<Accumulator>> acc;
  for (std::size_t j = 0; j < count; ++j)
    acc.push_back(std::make_unique<Accumulator>(b));
  return acc;
}

// The end of a block that owns one head's output row, out[out_row .. out_row + head_dim):
// thread t < head_dim emits combine() -> (o, total) for element t and stores o / total; the
// others return at once. Then, at `empty` (where the block branched when the sequence has no
// positions), threads t < head_dim store 0 instead. Both paths return.
template <class OutPtr, class Combine>
void store_head_row(KernelBuilder& b, OutPtr out, Reg<U32> out_row, Reg<U32> tid, Imm<U32> head_dim,
                    Label empty, Combine combine) {
  Label finished = b.new_label("finished");
  b.bra_if(!b.setp(cmp::lt, tid, head_dim), finished);
  auto [o, total] = combine();
  b.st(out + b.add(out_row, tid), b.div(o, total, rn));
  b.place(finished);
  b.ret();

  b.place(empty);
  auto zero_slot = out + b.add(out_row, tid);
  {
    auto in_row = b.guard(b.setp(cmp::lt, tid, head_dim));
    b.st(zero_slot, b.imm<F32>(0.0f));
  }
  b.ret();
}

} // namespace ptxkit::kernels::common
