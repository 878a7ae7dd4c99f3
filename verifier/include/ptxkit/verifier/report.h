// report.h: the printers of FileReports: text, JSON (docs/cli.md) and SARIF 2.1.0.
//
// Why apart from the rules: one finding model, three audiences (people, scripts, code-scanning
// UIs). Formats:
//   text   `path:line:col: error|warning: message [rule]`, then one indented line per
//          instruction involved (`  path:line: <instruction>  ; note`), and
//          `  source: file:line: <text>` where the PTX has `.loc` debug info, then
//          `  note: a defect only if ...; to decide it: ...` per assumption and
//          `  note: witness: ...` / `  note: path: line A -> B` for a witness. With `summary`,
//          instead, one line per file: `path: N errors, M warnings (id status sites=K, ...)`, or
//          `path: not checked: MESSAGE` for an input that could not be checked.
//   json   {"files":[{"path","findings":[{"rule","severity","kernel","line","message",...}],
//           "rules":[{"id","status","sites"}]}]}; findings also carry "col", "instruction",
//           "related", "source", "assumptions" and "witness" (extra keys; every key docs/cli.md
//           lists is present).
//   sarif  one run, tool.driver.rules = the rules run, results with ruleId, level, message,
//          locations, relatedLocations, codeFlows (a witness: one threadFlow per thread) and
//          properties.assumptions.
#pragma once

#include "ptxkit/verifier/finding.h"

#include <string>
#include <vector>

namespace ptxkit::verifier {

std::string format_text(const std::vector<FileReport>& reports, bool summary = false);
std::string format_json(const std::vector<FileReport>& reports);
std::string format_sarif(const std::vector<FileReport>& reports);

// `path:line:col: error: [rule] message` (the one-line form of verify_for_load's refusals).
std::string format_one_line(const Finding& f);

} // namespace ptxkit::verifier
