// barrier-divergence.h: rule `barrier-divergence`: a barrier or other `.aligned` collective that
// only part of a warp can reach.
//
// What it proves: every aligned collective in reachable code — `bar.sync`/`bar.arrive`/`bar.red`
// (always aligned), `barrier.*.aligned` (cta and cluster), and any `.aligned` warp-wide operation
// (`mma.sync.aligned`, `wgmma.*.sync.aligned`, `wmma.*.sync.aligned`, `ldmatrix`/`stmatrix`/
// `movmatrix .sync.aligned`, `tcgen05.*.sync.aligned`, ...) — lies in a block that every lane of a
// warp which entered the function reaches together: not in a partial-warp region of a lane-varying
// branch (before the branch reconverges at its immediate post-dominator), and not after a
// lane-varying `ret`/`exit` (lanes that left never arrive). `.aligned` requires every thread of
// the warp to execute the same instruction; a barrier some threads skip hangs or is undefined.
// Non-`.aligned` `barrier.sync`/`barrier.arrive`/`barrier.red` (which allow divergent arrival) are
// reported only after a lane-varying exit: there a lane never arrives at all.
//
// Assumptions and limits: divergence is lane uniformity (uniformity.h): branches on %ctaid,
// parameters, constants, uniform loads and loops with uniform trip counts are uniform, so
// nvcc/CUB early exits (`if (blockIdx.x * tile >= n) return;`) are not findings. It is a
// warp-level analysis: a branch that is uniform within each warp but differs across warps
// (%warpid, `tid / 32` is varying anyway) is not reported for CTA barriers. `.func` bodies are
// analysed as if entered by a full warp. Severity: error; warning in debug builds (`.target
// sm_XX, debug`), whose .local round trips make every value lane-varying.
#pragma once

#include "ptxkit/verifier/rule.h"

#include <memory>

namespace ptxkit::verifier {

std::unique_ptr<Rule> make_barrier_divergence_rule();

} // namespace ptxkit::verifier
