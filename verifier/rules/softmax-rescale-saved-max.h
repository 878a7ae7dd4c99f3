// softmax-rescale-saved-max.h: rule `softmax-rescale-saved-max`: an online-softmax rescale
// exp((old max − new max)·c) must read the maximum from before the update, not the new one.
//
// Why (seed 003, FALSIFY-CB-008): `let old_max = max_score;` aliased a register handle, so the
// in-place update `max.f32 %f8, %f8, %f23` also overwrote the "old" maximum and the rescale
// became `sub.f32 %f27, %f8, %f8` -> ex2(0) == 1.0: the running sum and the output accumulators
// were never brought onto the new maximum's scale, and batched decode emitted garbage. Nothing
// overflows, nothing is NaN; only dataflow can see it.
//
// What it proves, per natural loop L and per loop-header phi φ (the value "before this
// iteration's update") whose back-edge value is a running maximum — a chain of `max` (float
// types) instructions, and phis inside L, over φ and other operands (the scores):
//   - The running-maximum values RM(φ) are φ and every max/phi of that chain that contains φ.
//     Each u ∈ RM other than φ is an update; the values it contains (its operands, recursively,
//     within RM) are the maxima "from before" u. nvcc's unrolled loops chain several updates in
//     one iteration (max1 = max(φ, s1), max2 = max(max1, s2)): each has its own "before".
//   - A rescale site is a difference a − b with b ≡ u ∈ RM \ {φ} (value numbering: copies
//     through `mov` keep their identity) whose result reaches an `ex2` through at most six
//     float arithmetic steps (mul, fma, add, sub, neg, cvt, mov: the `sub; mul log2e; ex2`
//     shape, `sub; ex2` with a pre-scaled score, and nvcc's precise expf expansion). Differences
//     are `sub a, b`, `add a, n` and `fma a, c, n` where n = neg(b), neg(mul(b, c)) or
//     mul(b, −c) (the fma-folded (a−b)·c = fma(a, c, −b·c)).
//   - At each site: if a is the update u itself (the seed's `sub x, m', m'`, a `mov` copy of
//     m', or a register the loop overwrote with m' before the read), it reports an error at the
//     difference. If a is another running maximum, the site is a rescale (a later maximum than
//     u is not reported: exp(new − old) is a valid rescale when divided by). If a is no running
//     maximum (a score: exp(s − m')), the site is the current score's exponent: examined, never
//     reported.
//   - Missing rescale: if score exponents of the loop feed a loop-carried value (an accumulator)
//     and no difference has a running maximum as its minuend, it reports an error at the update.
//   - Every state rescaled: each header phi that score exponents reach (sum, accumulators; through
//     shuffles too, not through tensor-core ops, which mix rows) must, in its chain of values in
//     the loop, be multiplied by a value derived from each rescale factor (or divided by one):
//     a correction computed and not applied to one state is reported at that state's update.
// Sites: every difference against a running-maximum update that reaches an ex2. A kernel with no
// loop-carried maximum, or whose maximum feeds no exponent, is not-applicable.
//
// Assumptions: the maximum is computed by `max`, by `setp` + `selp` on the same two values, or by
// `setp` + a guarded `mov` (nvcc's if-converted `if (s > m) m = s;`); a phi across real branches
// is not recognised, so not checked; a rescale is a difference of values,
// not of memory reloads (a maximum spilled to memory and reloaded is a new value: not checked).
#pragma once

#include "ptxkit/verifier/rule.h"

#include <memory>

namespace ptxkit::verifier {

std::unique_ptr<Rule> make_softmax_rescale_saved_max_rule();

} // namespace ptxkit::verifier
