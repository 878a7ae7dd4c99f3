// split_reduce.h: many sums over the lanes of a group at once, each lane left with one of them
// (a "transposed" butterfly).
//
// A lane that holds 2^k partial values, each to be summed over the 2^k lanes that differ in the
// bits of `deltas`, needs k * 2^k shuffles and adds with one all-reduce butterfly per value, and
// every lane ends up holding every sum. Here each level instead pairs the lanes of one bit: a lane
// keeps the lower half of its live slots and sends the upper half, so the levels cost 2^(k-1),
// 2^(k-2), ..., 1 shuffles: 2^k - 1 in all, and each lane is left with a different sum.
//
// For that, slot s of lane L must hold the value numbered s ^ perm(L), where bit j of perm(L) is
// set when L & deltas[j] (the caller lays its values out so: a lane-dependent address for what it
// loads, never a lane-dependent register). The partner across bit j then holds, in the slot that
// is sent, the same value as the slot kept. The lane is left with the sum of value perm(L).
#pragma once

#include <cstdint>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels::common {

using namespace ptxkit::ptxgen;

// Slots of `x` are vectors of the same length (each element summed on its own); x.size() is
// 2^deltas.size(). Returns the lane's sum, a vector of that length.
inline std::vector<Reg<F32>> split_all_sum(KernelBuilder& b, std::vector<std::vector<Reg<F32>>> x,
                                           const std::vector<std::uint32_t>& deltas) {
  // The highest slot bit first: its pairs are (s, s + half), and the live slots stay 0..half-1.
  for (std::size_t j = deltas.size(); j-- > 0;) {
    const std::size_t half = x.size() / 2;
    for (std::size_t s = 0; s < half; ++s)
      for (std::size_t e = 0; e < x[s].size(); ++e)
        x[s][e] = b.add(x[s][e], b.shfl_bfly(x[s + half][e], b.imm<U32>(deltas[j])));
    x.resize(half);
  }
  return x.front();
}

// The scalar form: slot s of `x` is one value.
inline Reg<F32> split_all_sum(KernelBuilder& b, const std::vector<Reg<F32>>& x,
                              const std::vector<std::uint32_t>& deltas) {
  std::vector<std::vector<Reg<F32>>> v;
  v.reserve(x.size());
  for (Reg<F32> r : x)
    v.push_back({r});
  return split_all_sum(b, std::move(v), deltas).front();
}

} // namespace ptxkit::kernels::common
