// replay.h: replaying a rule's witness with the interpreter (interpreter.h) before it becomes an
// error, and turning the replay into the Finding's Witness (finding.h).
//
// Why: the design rule of issue 28 — every error carries a witness, and the interpreter, which
// shares nothing with the analyses that found the defect, executes the witness thread along its
// path and confirms the violation; a finding whose witness does not replay is no error. The glue
// (the launch a rule's witness stands for, the verdict, the path shown to the user) is the same
// for every rule: shared-bounds uses it first, shared-race and barrier-divergence can next.
#pragma once

#include "ptxkit/verifier/contract.h"
#include "ptxkit/verifier/finding.h"
#include "ptxkit/verifier/interp/interpreter.h"

#include <functional>
#include <string>

namespace ptxkit::verifier::interp {

// The launch of thread `tid` in block `ctaid` as the kernel states it: the block shape from the
// contract (or --block-dim) or .reqntid, the grid from the contract, scalar parameters from the
// contract; what is not stated is unknown to the replay.
ThreadLaunch stated_launch(const Function& fn, const KernelContract* contract,
                           std::array<std::uint32_t, 3> tid, std::array<std::uint32_t, 3> ctaid);

enum class Verdict : std::uint8_t {
  kConfirmed,    // the replay shows the violation
  kContradicted, // the replay shows none (the thread does not get there, or the access is fine)
  kInconclusive, // the replay needed a value it does not know (or ran out of steps)
};

struct Replay {
  Verdict verdict = Verdict::kInconclusive;
  RunResult run;
  std::string why; // kContradicted / kInconclusive: what the replay saw, for a message
};

// Replays the first execution of shared access `inst` by the launch's thread, steering the
// branches it cannot decide toward the access (interpreter.h: what the address then depends
// on is what it reads), and checks that its bytes fall outside `var` (or before it): the claim
// of a shared-bounds error.
Replay replay_shared_out_of_bounds(const Interpreter& in, const ThreadLaunch& launch, InstId inst,
                                   const VarDecl& var);

// Replays the launch's thread to the first execution of instruction `inst`, steering the
// branches it cannot decide toward it, and checks that nothing on the path executed wrote
// register `reg` (Written::kNever): the claim of an undefined-register error, that the read
// sees a register no write reached. A thread that exits first, or whose path writes it,
// contradicts it; a write under an undecided guard leaves it inconclusive.
Replay replay_undefined_read(const Interpreter& in, const ThreadLaunch& launch, InstId inst,
                             analysis::RegId reg);

// The byte offset into `var` of the replayed access (run.access), signed.
std::int64_t offset_into(const Interpreter& in, const EffectiveAddress& ea, const VarDecl& var);

// The path shown with a witness: the instructions the replay executed, each at its first
// execution (a loop's body once), ending at the access; at most `max` (the last ones).
std::vector<InstId> witness_path(const RunResult& run, std::size_t max = 32);

// "the branch at line 12 was taken toward the access without knowing its predicate (the value
// loaded at line 10 ...)": the steered branches of a replay, for a witness's description.
std::string steered_text(const Interpreter& in, const RunResult& run);

} // namespace ptxkit::verifier::interp
