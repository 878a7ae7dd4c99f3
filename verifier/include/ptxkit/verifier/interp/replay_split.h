// replay_split.h: replaying the witness of a divergence finding: two threads of one launch that
// must execute a collective together (the lanes of a warp, the threads of a block) and that
// disagree on reaching it.
//
// Why: barrier-divergence and partial-warp-collective decide from the uniformity analysis that
// a branch splits threads before a barrier or a full-mask warp collective; the claim an error
// makes is concrete: in this launch, thread A executes the collective (for the k-th time) and
// thread B of the same warp (or block) exits, or goes where the CFG can no longer bring it back,
// first. The interpreter (interpreter.h), which shares nothing with the uniformity analysis,
// runs each candidate thread to that point: the claim is confirmed only when it sees both.
//
// A thread's run stops at the k-th execution of the collective (guard holding), at its exit, or
// where the CFG has no path back to it (RunOptions::stop_when_missed): what it needs after it
// has left does not matter. Branches it cannot decide are not steered (which way a thread goes
// is the claim): a branch on a loaded value makes the thread undecided. A branch on a scalar
// parameter the kernel's contract does not state is retried with a few values of it (1, 32, 0,
// 1000): the witness then names the values it chose. A launch shape the kernel does not declare
// is first left unknown (a witness that holds in every block big enough for its threads); where
// the threads' way needs it, the replay tries a 1-D block of whole warps and one block, and the
// witness names the shape. Last, the branches neither thread can decide (a length loaded from
// memory before the barrier) are steered toward the collective, as shared-bounds' replay does
// (interpreter.h), and a pair counts only where the two lanes ran the same instructions (the
// same steered ways) up to a branch they decide differently, after which one executes the
// collective by branches it decides and the other reaches the branch's reconvergence point
// without it; the witness names the steered branches.
#pragma once

#include "ptxkit/verifier/interp/interpreter.h"
#include "ptxkit/verifier/interp/replay.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxkit::verifier::interp {

// How one candidate thread's run ended with respect to the collective.
enum class Arrival : std::uint8_t {
  kArrives, // it executes the collective for the occurrence-th time
  kSkips,   // it exits, or can no longer reach the collective, before that
  kUnknown, // the run needed a value it does not know (or ran out of steps)
};

struct ThreadRun {
  ThreadLaunch launch;
  Arrival arrival = Arrival::kUnknown;
  RunResult run;
  // A skipping lane that split from the arriving one at a branch and reached its reconvergence
  // point without the collective: that branch, and the first instruction it reached there (its
  // run's path ends there).
  InstId split_at = kNoId, rejoins = kNoId;
};

struct SplitOptions {
  std::vector<InstId> watch;         // the CTA barriers (bar/barrier) a thread may pass
  std::uint32_t max_occurrence = 4;  // executions of the collective compared (a loop's passes)
  std::uint64_t max_steps = 100'000; // per thread run
  std::uint32_t max_runs = 1500;     // thread runs in all (every group, occurrence and value)
};

struct SplitReplay {
  Verdict verdict = Verdict::kInconclusive; // never kContradicted: threads not tried may split
  std::optional<ThreadRun> arrives, skips;  // kConfirmed: the two threads
  std::uint32_t occurrence = 1;             // ...that disagree on this execution
  ThreadLaunch launch;                      // the launch they ran in (block, grid, parameters)
  bool across_warps = false;                // the two are of different warps (SplitGroup)
  std::vector<std::pair<std::string, std::int64_t>> chosen; // parameters the replay chose
  bool shape_chosen = false; // the block shape (and grid) are the replay's, not the kernel's
  bool steered = false;      // undecided branches were taken toward the collective
  std::string why;           // kInconclusive: what the replay could not decide, for a message
};

// A group of candidate threads that must execute the collective together.
struct SplitGroup {
  std::vector<ThreadLaunch> threads;
  // Threads of different warps: they meet at a CTA barrier by its id, not its instruction
  // (nvcc duplicates `__syncthreads()` into both sides of a branch on the warp index), so two of
  // them disagree when the sequences of barrier ids they arrive at, run to their exits, differ
  // and one executes the collective more often. Lanes of one warp (false) must execute the same
  // instruction: one that executes it the k-th time disagrees with one that exits or can no
  // longer reach it before.
  bool across_warps = false;
};

// The candidate groups of one launch: the lanes of each of the first 8 warps, the last warp's
// (when the block is known), and for a CTA barrier (`cta_wide`) the first and last lane of each
// warp. `base` gives the block shape (when known), grid and parameters; each candidate's thread ids
// are filled in (a 1-D block when the shape is unknown).
std::vector<SplitGroup> split_candidates(const ThreadLaunch& base, bool cta_wide);

// Searches `base`'s candidate groups for two threads of one group that disagree on reaching
// collective `inst`, choosing unstated parameters and (when undeclared) a launch shape as the
// file comment says.
SplitReplay replay_split(const Interpreter& in, const ThreadLaunch& base, bool cta_wide,
                         InstId inst, const SplitOptions& opt = {});

// "thread (3,0,0)": a candidate's thread ids, for messages.
std::string thread_name(const ThreadLaunch& l);

// "executes bar.sync at line 12 for the 2nd time" / "exits at line 20 without executing it",
// with the other barriers it passed: what one of the witness threads does.
std::string arrival_text(const Interpreter& in, const ThreadRun& t, InstId inst,
                         std::uint32_t occurrence);

} // namespace ptxkit::verifier::interp
