// undeclared-register.h: rule `undeclared-register`: an instruction names a register that no
// `.reg` declaration in scope declares.
//
// What it proves: every `%name` register operand (destinations, sources, vector/pair elements,
// address bases, call argument lists) and every guard predicate of a reachable or unreachable
// instruction resolves to a declaration in its scope or an enclosing one — a plain `.reg` name,
// or `%r<N>` with index < N. ptxas rejects the file otherwise ("Unknown symbol"), so a kernel
// that reads %r9 when only %r<6> is declared must not pass verify_for_load(): the parser accepts
// it and the dataflow analyses ignore names they cannot resolve, so without this rule the
// defect would only surface when the driver JIT-compiles the PTX.
//
// Assumptions: `%`-prefixed names that are module or function variables (not registers) are
// not reported; names without `%` are symbols (labels, variables, functions) and are not
// checked. Severity: error.
#pragma once

#include "ptxkit/verifier/rule.h"

#include <memory>

namespace ptxkit::verifier {

std::unique_ptr<Rule> make_undeclared_register_rule();

} // namespace ptxkit::verifier
