// interpreter.h: a concrete interpreter of PTX integer semantics for ONE thread of a function.
//
// Why: a finding's witness (finding.h) claims that a launch and a thread meet a defect. The
// analyses that found it reason over abstract values (intervals, affine forms, value numbers);
// a bug in one of them is a false error. This interpreter is the independent check: it executes
// the instructions one at a time with concrete special registers and parameters, by the PTX ISA's
// rules, and shares no code with the analyses' value evaluators (value_numbering, affine_index,
// buffer_offsets, strided_range, address_provenance's ranges). It reads only the structure of
// the function: FunctionIR (instructions, registers, branch targets), the CFG and the
// post-dominator tree (to know which registers an undecided branch may leave different).
//
// What it models: the integer instructions exactly (b/u/s 8..64 with wrap-around; add/sub with
// .sat and .cc/addc/subc, mul/mad .lo/.hi/.wide, mul24/mad24, div/rem truncating, shl/shr/shf,
// and/or/xor/not/cnot/lop3, min/max, abs/neg, popc/clz/brev/bfe/bfi, prmt (every mode),
// selp/slct/set/setp with every integer comparison and .and/.or/.xor, predicate logic), mov
// (registers, immediates, special registers, vector pack/unpack, a `.shared` variable's
// address), cvt between integer types (extension, truncation, .sat), cvta to and from shared,
// ld.param (parameters given by name), guards, bra/brx.idx/ret/exit/trap. Memory is not
// modelled: a load from memory, a float operation, a warp collective, an atomic, a call, an unknown
// parameter give "unknown" values. Unknown values propagate through arithmetic (the taint is the
// dependency: a value computed without one does not depend on it).
//
// Shared memory: each `.shared` variable of known size (module level and the function's own)
// gets an offset in a per-function layout (declaration order, each aligned to its alignment),
// which is its shared-window address; a generic address into shared memory is that offset plus
// kSharedWindow (cvta.shared adds it, cvta.to.shared subtracts it), so a generic access can be
// told apart from a global one. `.extern .shared` arrays of unknown size start after the others.
//
// Undecided branches: a branch whose guard is unknown ends the replay as inconclusive, unless
// RunOptions::steer is set: then the branch goes the way that still reaches the target (the
// shorter way when both do), and every register written anywhere between the branch and its
// immediate post-dominator (on either side) becomes unknown, since the other way might have
// written something else. What follows then depends on the undecided value only where it reads
// such a register.
#pragma once

#include "ptxkit/verifier/analysis/function_analysis.h"
#include "ptxkit/verifier/ast.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptxkit::verifier::interp {

using analysis::InstId;
using analysis::kNoId;

// Generic address of shared-window offset 0 (a 64-bit address no global allocation uses).
inline constexpr std::uint64_t kSharedWindow = std::uint64_t{0x7f} << 40;

// The launch a replayed thread belongs to, and the parameters it was given.
struct ThreadLaunch {
  std::array<std::uint32_t, 3> tid{};
  std::array<std::uint32_t, 3> ntid{1, 1, 1};
  std::array<std::uint32_t, 3> ctaid{};
  std::array<std::uint32_t, 3> nctaid{1, 1, 1};
  // Whether %ntid / %nctaid are the launch's (false: the kernel states no shape; reading one,
  // or %laneid/%warpid of a thread whose linear id needs it, gives unknown).
  bool block_known = true;
  bool grid_known = true;
  // `.param` values by name (pointers as integers); a parameter not here reads as unknown.
  std::map<std::string, std::int64_t, std::less<>> params;
};

// A register's value: 64 bits (a narrower type's value extended as its type says), or unknown
// since instruction `from` (kNoId: never written, or a special register the model lacks).
struct Value {
  std::uint64_t bits = 0;
  bool known = false;
  InstId from = kNoId;
  static Value of(std::uint64_t b) { return {b, true, kNoId}; }
  static Value unknown(InstId at) { return {0, false, at}; }
};

// Where a memory access instruction points.
struct EffectiveAddress {
  StateSpace space = StateSpace::kNone; // as the instruction names it; kNone: generic
  bool known = false;                   // false: the address reads an unknown value
  InstId unknown_from = kNoId;          // where that value became unknown
  std::uint64_t address = 0;            // in the space (a generic address for kNone)
  bool in_shared = false;               // a shared-window address (or generic into it)
  std::uint64_t shared_offset = 0;      // its shared-window offset, when in_shared
  const VarDecl* var = nullptr;         // the shared variable it falls in (nullptr: none)
  std::int64_t var_offset = 0;          // byte offset into `var`
  std::uint32_t width = 0;              // bytes accessed (vector included)
};

enum class Stop : std::uint8_t {
  kReached,      // the target instruction was reached (its guard holding) the k-th time
  kExited,       // the thread returned, exited, trapped or fell off the end first
  kInconclusive, // a branch, guard or the target's address needed an unknown value
  kStepLimit,    // RunOptions::max_steps instructions executed
  kMissed,       // RunOptions::stop_when_missed: the thread went where the target cannot follow
};

// Whether a register was written on the replayed path (an undefined-register witness needs
// kNever at its read): kMaybe where a write with an undecided guard may or may not have happened.
enum class Written : std::uint8_t { kNever, kMaybe, kYes };

struct RunOptions {
  InstId target = kNoId;        // run until this instruction executes...
  std::uint32_t occurrence = 1; // ...for this many times (its guard holding), or to the exit
  std::uint64_t max_steps = 1'000'000;
  bool steer = false; // take undecided branches toward the target (see the file comment)
  // Stop with kMissed at the first instruction from whose block the CFG has no path to the
  // target's: the thread can no longer execute it (what a divergence witness's skipping thread
  // shows), whatever the values it would need further on.
  bool stop_when_missed = false;
  // Instructions whose executions (guard holding) RunResult::events logs in order: the barriers
  // a thread passes, without stopping there. A watched instruction whose guard is unknown is
  // decisive, as a branch is: the replay ends inconclusive there (unless steer).
  std::vector<InstId> watch;
};

struct RunResult {
  Stop stop = Stop::kExited;
  std::vector<InstId> path; // every instruction executed, in order (guarded-off ones included)
  std::optional<EffectiveAddress> access; // at the target, when it is a memory access
  InstId unknown_at = kNoId;    // kInconclusive: the instruction that needed the unknown value
  InstId unknown_from = kNoId;  // ...and where that value became unknown (kNoId: never set)
  std::vector<InstId> steered;  // the undecided branches that were steered
  std::vector<Value> registers; // by RegId, where the thread stopped (before the target runs)
  std::vector<Written> written; // by RegId: written on the path executed (before the target)
  std::vector<InstId> events;   // the watched instructions executed, in order (RunOptions::watch)
};

class Interpreter {
public:
  // `module` for its `.shared` variables; `a` for the function's structure (see file comment).
  Interpreter(const Module& module, const analysis::FunctionAnalysis& a);

  RunResult run(const ThreadLaunch& launch, const RunOptions& options) const;

  // The shared-window offset of a `.shared` variable, nullopt when it has none.
  std::optional<std::uint64_t> shared_offset(const VarDecl* var) const;
  // The variable (and the byte offset into it) shared-window offset `off` falls in.
  std::pair<const VarDecl*, std::int64_t> shared_variable_at(std::uint64_t off) const;
  // "the value loaded at line 12 (ld.global.u32)", "parameter n (not given)", "%r3 (never
  // written)": what made a value unknown, for messages.
  std::string describe_unknown(InstId from) const;

  const analysis::FunctionAnalysis& analysis() const { return *a_; }

private:
  struct SharedVar {
    const VarDecl* var;
    std::uint64_t offset, size;
  };
  class Thread;
  const analysis::FunctionAnalysis* a_;
  std::vector<SharedVar> shared_;                                    // by offset
  std::unordered_map<std::string_view, std::size_t> shared_by_name_; // innermost wins
};

} // namespace ptxkit::verifier::interp
