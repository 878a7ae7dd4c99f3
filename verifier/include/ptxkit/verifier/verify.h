// verify.h: run the rules over a parsed module (or PTX text) and collect a FileReport.
//
// Why a separate entry point: `ptxkit verify`, the runtime's verify_for_load() and the tests all
// need "these rules on this module", with the same per-rule status bookkeeping (pass / fail /
// not-applicable with site counts).
#pragma once

#include "ptxkit/verifier/ast.h"
#include "ptxkit/verifier/contract.h"
#include "ptxkit/verifier/finding.h"
#include "ptxkit/verifier/parser.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::verifier {

struct VerifyOptions {
  // Rule ids to run, in catalogue order; empty = every rule. Unknown ids are the caller's
  // problem (check them with find_rule first).
  std::vector<std::string> rules;
  // Read the source files named by `.file` to show the line a `.loc` points at.
  bool read_source_lines = true;
  // The launch block shape (x, y, z) of every `.entry` that declares no `.reqntid`, taken as if
  // it declared `.reqntid x, y, z` (`ptxkit verify --block-dim`): the analyses and rules read
  // the block shape through Function::reqntid() only, so this is the same fact by the same path.
  // An entry's own .reqntid wins (a launch with another shape fails). nullopt: the PTX alone.
  std::optional<std::array<std::uint32_t, 3>> block_dim;
  // Launch contracts of kernels, by .entry name (contract.h): rules that prove accesses against
  // buffer sizes and launch shapes (global-bounds) read the one of the function they check.
  std::vector<KernelContract> contracts;
};

// Why `dims` cannot be a block shape ("" when it can): every extent at least 1, x and y at most
// 1024, z at most 64, at most 1024 threads in all (the PTX ISA's limits for .reqntid).
std::string block_dim_problem(const std::array<std::uint32_t, 3>& dims);

// Adds `.reqntid dims` to every `.entry` of `module` with a body and no .reqntid of its own.
void assume_block_dim(Module& module, const std::array<std::uint32_t, 3>& dims);

// Runs the selected rules on every function with a body.
FileReport verify_module(const Module& module, const VerifyOptions& options = {});

// Parse result + report: the parse error when parsing failed.
struct VerifyTextResult {
  std::optional<ParseError> parse_error;
  FileReport report;
};
VerifyTextResult verify_text(std::string text, std::string path, const VerifyOptions& options = {});

} // namespace ptxkit::verifier
