// warp_reduce.h: reductions across the lanes of a warp, the one place kernels spell them.
//
// Two shapes, chosen by who needs the result:
//   - all-reduce (shfl.bfly, xor partners): after the tree EVERY lane of the group holds the full
//     result, bitwise the same in all lanes (each level combines the same two partial values), so
//     no lane can use a partial value;
//   - reduce to lane 0 (shfl.down): only lane 0 holds the full result. Use it only where lane 0
//     alone consumes the value, or broadcast it with warp_sum_to_lane0_broadcast.
// The emitted sequence per level is the shuffle, then the combine; helpers never reorder it.
#pragma once

#include <cstdint>
#include <ptxkit/ptxgen/ptxgen.h>
#include <type_traits>

namespace ptxkit::kernels::common {

using namespace ptxkit::ptxgen;

// The lanes a butterfly spans: xor distances width/2, width/4, ..., down to `down_to`. The default
// is a whole warp; {.width = 8} reduces inside aligned groups of 8 lanes (xor partners never leave
// an aligned group); {.width = 32, .down_to = 4} folds lanes that agree modulo 4.
struct ButterflyLanes {
  std::uint32_t width = 32;
  std::uint32_t down_to = 1;
};

// Calls `level(delta)` once per butterfly level, largest distance first.
template <class Level>
void for_each_butterfly_level(KernelBuilder& b, ButterflyLanes lanes, Level level) {
  for (std::uint32_t delta = lanes.width / 2; delta >= lanes.down_to && delta > 0; delta /= 2)
    level(b.imm<U32>(delta));
}

// The partner's 64-bit value at xor distance `delta`: shfl moves 32 bits, so both halves travel.
inline Reg<U64> shfl_bfly_u64(KernelBuilder& b, Reg<U64> v, Imm<U32> delta) {
  Reg<U32> lo = b.cvt<U32>(v);
  Reg<U32> hi = b.cvt<U32>(b.shr(v, b.imm<U32>(32)));
  Reg<U32> other_lo = b.shfl_bfly(lo, delta);
  Reg<U32> other_hi = b.shfl_bfly(hi, delta);
  Reg<U64> other_hi_shifted = b.shl(b.cvt<U64>(other_hi), b.imm<U32>(32));
  return b.or_(other_hi_shifted, b.cvt<U64>(other_lo));
}

template <class T>
Reg<T> shfl_bfly_any(KernelBuilder& b, Reg<T> v, Imm<U32> delta) {
  if constexpr (std::is_same_v<T, U64>)
    return shfl_bfly_u64(b, v, delta);
  else
    return b.shfl_bfly(v, delta);
}

// `combine` folded over the lanes of the group, in every lane. `combine(mine, partner)` emits the
// combining instruction(s) and returns the result.
template <class T, class Combine>
Reg<T> warp_all_reduce(KernelBuilder& b, Reg<T> v, Combine combine, ButterflyLanes lanes = {}) {
  for_each_butterfly_level(b, lanes, [&](Imm<U32> delta) {
    Reg<T> partner = shfl_bfly_any(b, v, delta);
    v = combine(v, partner);
  });
  return v;
}

inline Reg<F32> warp_all_sum(KernelBuilder& b, Reg<F32> v, ButterflyLanes lanes = {}) {
  return warp_all_reduce(
      b, v, [&b](Reg<F32> x, Reg<F32> y) { return b.add(x, y); }, lanes);
}

inline Reg<F32> warp_all_max(KernelBuilder& b, Reg<F32> v, ButterflyLanes lanes = {}) {
  return warp_all_reduce(
      b, v, [&b](Reg<F32> x, Reg<F32> y) { return b.max(x, y); }, lanes);
}

// The sum over the warp's 32 lanes, valid in lane 0 only (shfl.down tree).
inline Reg<F32> warp_sum_to_lane0(KernelBuilder& b, Reg<F32> v) {
  for (std::uint32_t delta : {16u, 8u, 4u, 2u, 1u})
    v = b.add(v, b.shfl_down(v, b.imm<U32>(delta)));
  return v;
}

// The shfl.down sum, then broadcast from lane 0 so every lane holds the full sum before any lane
// uses it.
inline Reg<F32> warp_sum_to_lane0_broadcast(KernelBuilder& b, Reg<F32> v) {
  Reg<F32> lane0_sum = warp_sum_to_lane0(b, v);
  return b.shfl_idx(lane0_sum, b.imm<U32>(0));
}

} // namespace ptxkit::kernels::common
