// dead-value.h: rule `dead-value`: an instruction without side effects whose results are
// never read.
//
// What it proves: for every side-effect-free instruction in reachable code (arithmetic, logic,
// comparisons, conversions, moves, and loads that are not volatile/acquire/relaxed/mmio), that
// at least one of its results can reach an instruction with an effect (a store, a branch, a
// call, an atomic...) — directly, through other pure instructions, through phis, or as the
// prior content under a guarded write — or it reports the instruction (aggressive dead-code
// elimination's notion of live). A result read only by other dead instructions is reported as
// "only feeds results that are never used", so a loop-carried sum nobody reads after the loop
// is found, update and initialisation alike. The bug it exists for: a kernel that
// loads a value and then computes with a constant (or another register) instead, so the load
// is wasted and the output silently wrong.
//
// Severity: error for loads (optimizing compilers delete unused loads, so one left in the PTX
// means its consumer was lost: the seed's class of bug); warning for other values (Triton and
// LLVM leave dead zero-initialising movs and setps; worth a look, not a refusal), and warning
// for parameter reads (`ld.param`: free, and nvcc leaves unused ones behind when it copies a
// struct parameter field by field, as CUTLASS's kernels show), for every load of a debug build
// (`.target sm_XX, debug`: nvcc -G keeps unused variables) and for reloads from the thread's local
// stack (`.local`, or generic addresses from cvta.local /
// __local_depot), which are spill traffic, not lost data. An instruction with several results (setp
// p|q, ld.v4) is dead only when none is read. Carry-chain instructions (.cc, addc/subc/madc) are
// never reported: their CC output is implicit.
#pragma once

#include "ptxkit/verifier/rule.h"

#include <memory>

namespace ptxkit::verifier {

std::unique_ptr<Rule> make_dead_value_rule();

} // namespace ptxkit::verifier
