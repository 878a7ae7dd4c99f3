// printer.h: ast.h Module -> canonical PTX text (what `ptxkit fmt` prints).
//
// Canonical form: one statement per line, a tab of indentation per block level, one space after
// the opcode and after each comma, no comments, module header first. It is idempotent
// (print(parse(print(m))) == print(m)), re-parsing it gives an equal tree, and ptxas accepts it
// wherever it accepted the input.
#pragma once

#include "ptxkit/verifier/ast.h"

#include <iosfwd>
#include <string>

namespace ptxkit::verifier {

std::string print(const Module& module);
// The same text appended to `out` (a caller that knows the size, e.g. from the source, reserves
// it once instead of letting the string double its way up through copies).
void print(const Module& module, std::string& out);
// The same text written to `out` as it is produced (a buffer of about 1 MB, not the whole text).
void print(const Module& module, std::ostream& out);
// One instruction / operand in canonical spelling, without indentation or ';' for operands
// (for diagnostics of other passes).
std::string print_instruction(const Instruction& inst);
std::string print_operand(const Operand& op);

} // namespace ptxkit::verifier
