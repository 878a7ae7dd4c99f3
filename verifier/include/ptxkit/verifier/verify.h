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
  // Launch contracts of kernels, by .entry name (contract.h): rules that prove accesses against
  // buffer sizes and launch shapes (global-bounds) read the one of the function they check.
  std::vector<KernelContract> contracts;
};

// Runs the selected rules on every function with a body.
FileReport verify_module(const Module& module, const VerifyOptions& options = {});

// Parse result + report: the parse error when parsing failed.
struct VerifyTextResult {
  std::optional<ParseError> parse_error;
  FileReport report;
};
VerifyTextResult verify_text(std::string text, std::string path, const VerifyOptions& options = {});

} // namespace ptxkit::verifier
