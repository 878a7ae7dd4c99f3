// cmd_verify.cpp: `ptxkit verify [--format text|json|sarif] [--rules ID,...] [--contract
// FILE|SPEC] [--block-dim X[,Y[,Z]]] [-j N] PATH...` (docs/cli.md).
//
// Why a command: this is what CI runs on every kernel, ours and other people's. Each file is
// parsed, every function's CFG and dataflow analyses are built once, and the selected rules
// report findings; the printers of verifier/report.h format them. A directory argument stands
// for every `*.ptx` below it (ptx_inputs.h). Files are independent, so they are checked on -j
// threads; every result lands in the slot of its input and is printed in input order, so the
// output is the same for any -j. Exit codes: 0 no error findings (warnings are printed but do
// not fail, unless --werror), 1 error findings, 2 a file that cannot be read or parsed, a
// directory without `.ptx` files, an unknown rule id (the message lists the valid ones), a bad
// --contract or a --block-dim that no launch can have. --block-dim states the launch's block shape
// for PTX that does not declare it (`.reqntid`): every entry without one is checked as if it
// declared it.
#include "command_registry.h"
#include "contract_args.h"
#include "diagnostics.h"
#include "output_file.h"
#include "parallel_for.h"
#include "progress.h"
#include "ptx_inputs.h"
#include "ptxkit/verifier/report.h"
#include "ptxkit/verifier/rule.h"
#include "ptxkit/verifier/verify.h"

#include <array>
#include <cstdint>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxkit::cli {
namespace {

struct VerifyOptions {
  std::vector<std::string> paths;
  std::vector<std::string> rules;
  std::vector<std::string> contracts;
  std::string format = "text";
  std::string block_dim;
  bool summary = false;
  bool werror = false;
  int jobs = static_cast<int>(default_jobs());
};

// What checking one input produced: exactly one of the three is set.
struct InputResult {
  std::string path;  // the input as named (for reports of inputs that could not be checked)
  std::string error; // unreadable file or unexpandable directory argument
  std::optional<verifier::ParseError> parse_error;
  std::optional<verifier::FileReport> report;
};

InputResult check_input(const PtxInput& input, std::string stdin_text,
                        const verifier::VerifyOptions& vopt) {
  InputResult result;
  result.path = input.path == "-" ? "<stdin>" : input.path;
  if (!input.error.empty()) {
    result.error = input.error;
    return result;
  }
  std::string text = std::move(stdin_text);
  if (input.path != "-" && !read_file(input.path, text, result.error)) return result;
  auto verified =
      verifier::verify_text(std::move(text), input.path == "-" ? "<stdin>" : input.path, vopt);
  if (verified.parse_error)
    result.parse_error = std::move(verified.parse_error);
  else
    result.report = std::move(verified.report);
  return result;
}

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

// "X[,Y[,Z]]" -> {X, Y, Z} (missing extents 1), or the reason it is not a block shape.
std::optional<std::array<std::uint32_t, 3>> parse_block_dim(const std::string& text,
                                                            std::string& why) {
  std::array<std::uint32_t, 3> dims{1, 1, 1};
  std::size_t start = 0;
  for (int d = 0;; ++d) {
    std::size_t comma = text.find(',', start);
    std::string part =
        trimmed(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (d == 3 || part.empty() || part.size() > 9 ||
        part.find_first_not_of("0123456789") != std::string::npos) {
      why = "--block-dim takes X[,Y[,Z]] (one to three positive integers, e.g. 16,16), got '" +
            text + "'";
      return std::nullopt;
    }
    dims[static_cast<std::size_t>(d)] = static_cast<std::uint32_t>(std::stoul(part));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  why = verifier::block_dim_problem(dims);
  if (!why.empty()) {
    why = "--block-dim " + text + ": " + why;
    return std::nullopt;
  }
  return dims;
}

int run_verify(VerifyOptions opt) {
  if (opt.jobs < 1)
    return usage_error("--jobs must be at least 1, got " + std::to_string(opt.jobs));
  opt.rules = split_rule_lists(opt.rules);
  for (const std::string& id : opt.rules)
    if (verifier::find_rule(id) == nullptr)
      return usage_error("unknown rule '" + id + "'; valid rules: " + verifier::rule_ids_joined());
  verifier::VerifyOptions vopt;
  vopt.rules = opt.rules;
  if (!opt.block_dim.empty()) {
    std::string why;
    vopt.block_dim = parse_block_dim(opt.block_dim, why);
    if (!vopt.block_dim) return usage_error(why);
  }
  std::string contract_error;
  if (!read_contract_args(opt.contracts, vopt.contracts, contract_error))
    return usage_error(contract_error);
  const std::vector<PtxInput> inputs = expand_ptx_arguments(opt.paths);
  // Standard input is read here, once, before any worker starts.
  std::string stdin_text;
  for (const PtxInput& input : inputs)
    if (input.path == "-" && input.error.empty()) {
      stdin_text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
      break;
    }
  std::vector<InputResult> results(inputs.size());
  {
    Progress progress("verify: files checked", inputs.size());
    parallel_for(inputs.size(), static_cast<unsigned>(opt.jobs), [&](std::size_t i) {
      results[i] = check_input(inputs[i], inputs[i].path == "-" ? stdin_text : std::string(), vopt);
      progress.step();
    });
  }
  std::vector<verifier::FileReport> reports;
  bool bad_input = false;
  for (InputResult& r : results) {
    if (r.report) {
      reports.push_back(std::move(*r.report));
      continue;
    }
    bad_input = true;
    // The machine formats list every input: this one with why it was not checked.
    verifier::FileReport failed;
    verifier::FileReport::InputError why;
    if (r.parse_error) {
      located_error(r.parse_error->path, r.parse_error->loc.line, r.parse_error->loc.col,
                    r.parse_error->message);
      failed.path = r.parse_error->path;
      why = {r.parse_error->loc.line, r.parse_error->loc.col, r.parse_error->message};
    } else {
      usage_error(r.error);
      failed.path = r.path;
      why.message = r.error;
    }
    failed.input_error = std::move(why);
    reports.push_back(std::move(failed));
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
      sub->add_option("PATH", opt->paths,
                      "PTX files ('-' for standard input) and directories (every *.ptx below, "
                      "sorted by path; symlinked directories are not followed)")
          ->type_name("")
          ->required();
      sub->add_option("-j,--jobs", opt->jobs,
                      "Files checked in parallel (default: the number of cores); the output is "
                      "the same for any N")
          ->type_name("N");
      sub->add_option("--format", opt->format, "Output format: text (default), json or sarif")
          ->type_name("FORMAT")
          ->check(CLI::IsMember({"text", "json", "sarif"}));
      sub->add_option("--rules", opt->rules,
                      "Comma-separated rule ids to run (default: all): " +
                          verifier::rule_ids_joined())
          ->type_name("ID,...")
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
          ->expected(1)
          ->allow_extra_args(false);
      sub->add_option("--block-dim", opt->block_dim,
                      "The launch's block shape, for PTX that does not declare it: every .entry "
                      "without .reqntid is checked as if it declared .reqntid X,Y,Z (missing "
                      "extents are 1), e.g. --block-dim 16,16")
          ->type_name("X[,Y[,Z]]");
      sub->add_option("--contract", opt->contracts,
                      "Launch contract for global-bounds (repeatable): a JSON file, or "
                      "'KERNEL:buf[BYTES],arr[COUNT:BYTES:STRIDE],scalar=VALUE;grid=X,Y,Z;"
                      "block=X,Y,Z' (docs/cli.md); without one global-bounds is not-applicable")
          ->type_name("FILE|SPEC")
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
          ->expected(1)
          ->allow_extra_args(false);
      sub->add_flag("--summary", opt->summary,
                    "text format: one line per file with each rule's status and site count");
      sub->add_flag("--werror", opt->werror,
                    "Exit 1 on warnings too (by default only errors fail)");
      sub->footer(
          "Exit codes: 0 no error findings (warnings do not fail without --werror), 1 error "
          "findings,\n2 bad usage, unreadable file, parse error, directory without a .ptx "
          "file, unknown rule id, bad --contract, or a --block-dim no launch can have.\n"
          "Example: ptxkit verify --block-dim 16,16 transpose.ptx (checks each .entry without "
          ".reqntid as a 16x16 block).");
      sub->callback([opt, &result] { result.exit_code = run_verify(*opt); });
    }};

} // namespace
} // namespace ptxkit::cli
