// reduction-broadcast.h: rule `reduction-broadcast`: the result of a `shfl.sync.down`/`up`
// reduction tree is complete only in the owning lane, yet reaches an effect in every lane.
//
// Why (seed 003, PAR-118): after `x += shfl.down(x, 16) ... x += shfl.down(x, 1)` only lane 0
// holds the warp's sum; lanes 1..31 hold partial sums of their suffix. The batched attention
// kernel used the "sum" in every lane for its softmax and V accumulation until a
// `shfl.sync.idx` from lane 0 was added. Every lane computes plausible numbers, so nothing but
// dataflow sees it.
//
// What it proves. A reduction step is `op y, x, s` (add, mul, min, max, and, or, xor; either
// operand order) where s is `shfl.sync.down` (or `.up`) of the same value x (value numbering:
// the `mov.b32` round trips nvcc and Triton put around shuffles keep identity), or CUB's form
// `shfl.sync.down r|p, x, ...; @p op r, r, x`. A chain of steps whose offsets (immediates, or
// registers holding them) are {1, 2, ..., 2^(k-1)}, k >= 2, in any order (down) or in
// decreasing order (up; increasing `up` offsets are a Kogge-Stone scan, valid in every lane) is
// a reduction tree over groups of G = min(2^k, segment width from the c operand) lanes, owned
// by the group's first lane (down) or last lane (up). For each tree's final value R the rule
// follows what the lanes that are NOT owners see: R, copies and everything computed from it,
// through phis (loop-carried accumulators) and guarded writes, except
//   - `shfl.sync.idx` with a constant owner source lane (0 for down, G-1 or 31 for up), or any
//     lane-uniform source register: a broadcast, complete in every lane;
//   - instructions guarded by, and blocks only reached through branch edges whose condition
//     implies, "this lane is an owner": `%laneid`, `%tid.x`, a linear thread id, or such a value
//     masked (`and` with a mask covering G-1, `rem` by a multiple of G) compared `== 0`
//     (`!= 0` on the other edge, `< 1`, `<= 0`; `== G-1`/`== 31` for up), combined with `and`;
//   - memory: a value stored to shared memory by the owner and read back after `bar.sync` is
//     a new value (the shared-memory broadcast).
// An error is reported when that flow reaches a store, atomic or reduction to global, shared
// or generic memory (not the thread's `.local` stack, not `.param`) that is not restricted to
// the owner. The finding sits at the first instruction that reads R (or a copy of it) on such a
// flow — where a broadcast belongs — with the reduction's last step and the store as related
// locations.
//
// A complete `shfl.sync.bfly` reduction is valid in every lane: examined (a site), never
// reported. Sites: every down/up reduction tree and every complete butterfly reduction.
//
// Assumptions: `%tid.x == 0` implies lane 0 (blocks whose x-dimension is a multiple of 32, or
// 1-D); values spilled to and reloaded from memory are not followed (so -G builds are checked
// less); a partial chain (offsets not starting at 1) is not a reduction tree.
#pragma once

#include "ptxkit/verifier/rule.h"

#include <memory>

namespace ptxkit::verifier {

std::unique_ptr<Rule> make_reduction_broadcast_rule();

} // namespace ptxkit::verifier
