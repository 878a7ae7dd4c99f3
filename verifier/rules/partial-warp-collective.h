// partial-warp-collective.h: rule `partial-warp-collective`: a warp collective with a full member
// mask that only part of the warp can reach.
//
// What it proves: every `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync` and `bar.warp.sync`
// in reachable code whose member mask is the constant 0xffffffff (an immediate, or a register set
// by `mov` of one, through copies) lies in a block that the whole warp reaches together: not in
// a partial-warp region of a lane-varying branch, and not after a lane-varying `ret`/`exit`. A
// full mask names lanes that are not there: the behaviour is undefined (hangs on Volta+).
// A mask that is computed (from `activemask`, a ballot, a shift) is not a site: the program
// states which lanes take part.
//
// Assumptions and limits: divergence is lane uniformity (uniformity.h); a lane-varying branch
// whose every side executes the same collective is still reported (each side's instance sees a
// partial warp). `.func` bodies are analysed as if entered by a full warp. Severity: error; warning
// in debug builds (`.target sm_XX, debug`), whose .local round trips make every value lane-varying.
#pragma once

#include "ptxkit/verifier/rule.h"

#include <memory>

namespace ptxkit::verifier {

std::unique_ptr<Rule> make_partial_warp_collective_rule();

} // namespace ptxkit::verifier
