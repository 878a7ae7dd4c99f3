// divergence_replay_p.h: the replayed witness of a barrier-divergence or partial-warp-collective
// error (interp/replay_split.h), attached to the finding, or the warning it becomes when the
// replay cannot show it.
#pragma once

#include "ptxkit/verifier/rule.h"

namespace ptxkit::verifier {

// Replays the witness of the divergence finding `f` at collective `i`: two threads of one warp
// (`cta_wide`: of one block) of the launch the kernel states, one executing `i` and one exiting
// or leaving for code that cannot reach it first. Confirmed, the finding carries them as its
// witness (block shape, threads, the parameters the replay chose, the arriving thread's path).
// Otherwise the finding is a warning whose assumption names what the replay could not decide.
// A finding that is a warning already (a debug build) is left as it is.
void replay_divergence(RuleContext& ctx, RuleContext::Reported& f, analysis::InstId i,
                       bool cta_wide);

} // namespace ptxkit::verifier
