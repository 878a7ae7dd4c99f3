// block_reduce.h: a reduction across the warps of a block, in every thread.
//
// Lane 0 of each warp parks its warp's value in its own shared slot, bar.sync, then every thread
// folds the slots in the same fixed order (slot 0, 1, ...), so every thread of the block holds
// the same bits. A slot array serves one reduction only: a second reduction needs its own, or a
// thread could overwrite a slot another warp is still reading.
#pragma once

#include "warp_reduce.h"

#include <cstdint>
#include <ptxkit/ptxgen/ptxgen.h>

namespace ptxkit::kernels::common {

// The warp values (held by lane 0 of each warp: `lane0`, stored to `my_slot` = slots + warp)
// combined over the block's `warps` slots, in every thread.
template <class Combine>
Reg<F32> combine_warp_slots(KernelBuilder& b, Reg<F32> warp_value, Ptr<Shared, F32> my_slot,
                            Reg<Pred> lane0, Ptr<Shared, F32> slots, std::uint32_t warps,
                            Combine combine) {
  {
    auto only_lane0 = b.guard(lane0);
    b.st(my_slot, warp_value);
  }
  b.bar_sync(0);
  Reg<F32> total = b.ld(slots + 0);
  for (std::uint32_t w = 1; w < warps; ++w)
    total = combine(total, b.ld(slots + w));
  return total;
}

// The sum of `v` over the block, in every thread (butterfly per warp, then the warp slots).
// `slots` holds `warps` floats; `tid` is %tid.x.
inline Reg<F32> block_all_sum(KernelBuilder& b, Reg<F32> v, Ptr<Shared, F32> slots,
                              std::uint32_t warps, Reg<U32> tid) {
  Reg<F32> warp_total = warp_all_sum(b, v);
  if (warps == 1) return warp_total;
  Reg<Pred> lane0 = b.setp(cmp::eq, b.and_(tid, b.imm<U32>(31)), b.imm<U32>(0));
  auto my_slot = slots + b.shr(tid, b.imm<U32>(5));
  return combine_warp_slots(b, warp_total, my_slot, lane0, slots, warps,
                            [&b](Reg<F32> x, Reg<F32> y) { return b.add(x, y); });
}

} // namespace ptxkit::kernels::common
