// undefined-register.h: rule `undefined-register`: a register is read on a path on which
// nothing wrote it.
//
// What it proves: for every read (operand or guard) in reachable code, that some path from the
// function entry to the read writes the register last with an instruction (or it is a `.reg`
// parameter) — or it reports the read. A guarded write `@p op %r, ...` writes only when p
// holds; on the other path the prior content survives. The check is path-sensitive in the
// guard predicates: `@p mov %r, a; @!p mov %r, b;` defines %r, a read guarded by `@p` after
// `@p mov %r, a` is defined, and a branch `@p bra L` tells the paths through L that p held.
//
// Assumptions and limits: predicate facts are dropped when the walk crosses a loop back edge
// (a fact about one iteration says nothing about the previous one), which may report a read
// that a cross-iteration argument would prove defined; a walk that exceeds its step budget is
// not reported (no finding without a witness path). Calls do not write caller registers.
// Severity: error when no write of the register reaches the read on any path (the value is
// always unspecified: a lost definition) and the undefined value is observed: it reaches a
// computation, comparison, branch, address or a store outside the thread's local stack,
// following it through pure data moves (mov, shfl, prmt, selp, spills to the local stack).
// nvcc shuffles and spills never-initialised words of partly-initialised structs (CUB's
// ShuffleUp/ShuffleDown of padding words in thrust algorithms): those reads are warnings. Warning
// when the register is written on some paths only: optimizing compilers legitimately emit such
// reads when the undefined path is infeasible by a correlated condition (CUB's partial tiles load
// `if (i < n)` and use under a recomputed `i < n`), which a path analysis without arithmetic cannot
// prove; and warning in debug builds
// (`.target sm_XX, debug`), where nvcc -G stores uninitialized locals (empty structs, padding)
// to the stack.
#pragma once

#include "ptxkit/verifier/rule.h"

#include <memory>

namespace ptxkit::verifier {

std::unique_ptr<Rule> make_undefined_register_rule();

} // namespace ptxkit::verifier
