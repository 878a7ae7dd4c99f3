// cmd_verify.cpp: `ptxkit verify [--format text|json|sarif] [--rules ID,...] FILE...` (CLI.md).
//
// Why a command: this is what CI runs on every kernel, ours and other people's. Each file is
// parsed, every function's CFG and dataflow analyses are built once, and the selected rules
// report findings; the printers of verifier/report.h format them. Exit codes: 0 no error
// findings (warnings are printed but do not fail, unless --werror), 1 error findings, 2 a file
// that cannot be read or parsed, or an unknown rule id (the message lists the valid ones).
#include "command_registry.h"
#include "diagnostics.h"
#include "output_file.h"
#include "ptxkit/verifier/report.h"
#include "ptxkit/verifier/rule.h"
#include "ptxkit/verifier/verify.h"

#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace ptxkit::cli {
namespace {

struct VerifyOptions {
  std::vector<std::string> files;
  std::vector<std::string> rules;
  std::string format = "text";
  bool summary = false;
  bool werror = false;
};

std::string trimmed(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// `--rules a,b --rules c` -> {a, b, c}. The split is done here, not by CLI11's delimiter, so
// that each --rules takes exactly one argument and `--rules ID FILE...` leaves the FILEs alone.
std::vector<std::string> split_rule_lists(const std::vector<std::string>& lists) {
  std::vector<std::string> ids;
  for (const std::string& list : lists) {
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      std::string id = trimmed(list.substr(start, comma - start));
      if (!id.empty()) ids.push_back(std::move(id));
      start = comma + 1;
    }
  }
  return ids;
}

int run_verify(VerifyOptions opt) {
  opt.rules = split_rule_lists(opt.rules);
  for (const std::string& id : opt.rules)
    if (verifier::find_rule(id) == nullptr)
      return usage_error("unknown rule '" + id + "'; valid rules: " + verifier::rule_ids_joined());
  verifier::VerifyOptions vopt;
  vopt.rules = opt.rules;
  std::vector<verifier::FileReport> reports;
  bool bad_input = false;
  for (const std::string& file : opt.files) {
    std::string text, error;
    if (file == "-") {
      text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else if (!read_file(file, text, error)) {
      usage_error(error);
      bad_input = true;
      continue;
    }
    auto result = verifier::verify_text(std::move(text), file == "-" ? "<stdin>" : file, vopt);
    if (result.parse_error) {
      const verifier::ParseError& e = *result.parse_error;
      located_error(e.path, e.loc.line, e.loc.col, e.message);
      bad_input = true;
      continue;
    }
    reports.push_back(std::move(result.report));
  }
  std::string out;
  if (opt.format == "json") {
    out = verifier::format_json(reports);
  } else if (opt.format == "sarif") {
    out = verifier::format_sarif(reports);
  } else {
    out = verifier::format_text(reports, opt.summary);
  }
  std::cout << out;
  std::cout.flush();
  if (bad_input) return kExitBadInput;
  for (const auto& r : reports)
    if (r.error_count() > 0 || (opt.werror && r.warning_count() > 0)) return kExitFindings;
  return kExitOk;
}

const CommandRegistration reg{
    "verify", [](CLI::App& app, CommandResult& result) {
      auto opt = std::make_shared<VerifyOptions>();
      CLI::App* sub = app.add_subcommand(
          "verify", "Parse PTX, build each function's CFG and dataflow facts, and run the rules");
      sub->add_option("FILE", opt->files, "PTX files ('-' for standard input)")->required();
      sub->add_option("--format", opt->format, "Output format: text (default), json or sarif")
          ->check(CLI::IsMember({"text", "json", "sarif"}));
      sub->add_option("--rules", opt->rules,
                      "Comma-separated rule ids to run (default: all): " +
                          verifier::rule_ids_joined())
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
          ->expected(1)
          ->allow_extra_args(false);
      sub->add_flag("--summary", opt->summary,
                    "text format: one line per file with each rule's status and site count");
      sub->add_flag("--werror", opt->werror,
                    "Exit 1 on warnings too (by default only errors fail)");
      sub->footer("Exit codes: 0 no error findings (warnings do not fail without --werror), "
                  "1 error findings, 2 unreadable file, parse error or unknown rule id.");
      sub->callback([opt, &result] { result.exit_code = run_verify(*opt); });
    }};

} // namespace
} // namespace ptxkit::cli
