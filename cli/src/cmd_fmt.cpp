// cmd_fmt.cpp: `ptxkit fmt FILE`: parse PTX and print it back in canonical form (docs/cli.md).
//
// Why a command: the canonical form makes diffs of PTX from different compilers readable, and it
// exposes the parser to users: a parse error is `path:line:col: error: ...` with the source line
// and a caret, exit 2. `-` reads standard input; `-o FILE` writes atomically.
#include "command_registry.h"
#include "diagnostics.h"
#include "output_file.h"
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/printer.h"

#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

namespace ptxkit::cli {
namespace {

struct FmtOptions {
  std::string file;
  std::optional<std::string> output; // absent: standard output
};

int run_fmt(const FmtOptions& opt) {
  std::string text;
  std::string error;
  if (opt.file == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else if (!read_file(opt.file, text, error)) {
    return usage_error(error);
  }
  const std::size_t source_size = text.size();
  auto parsed = verifier::parse_owned(std::move(text), opt.file == "-" ? "<stdin>" : opt.file);
  if (!parsed) {
    const verifier::ParseError& e = parsed.error();
    located_error(e.path, e.loc.line, e.loc.col, e.message);
    std::cerr << e.source_line << '\n';
    std::string caret;
    for (std::uint32_t i = 1; i < e.loc.col && i - 1 < e.source_line.size(); ++i)
      caret += e.source_line[i - 1] == '\t' ? '\t' : ' ';
    std::cerr << caret << "^\n";
    return kExitBadInput;
  }
  if (!opt.output) {
    // Streamed: the whole canonical text is never held (peak memory is the source and its tree).
    verifier::print(*parsed, std::cout);
    std::cout.flush();
    return std::cout ? kExitOk : usage_error("cannot write to standard output");
  }
  // The canonical form is about the source's size (comments go, debug bytes are regrouped).
  std::string out;
  out.reserve(source_size + source_size / 8 + 4096);
  verifier::print(*parsed, out);
  if (!write_file_atomically(*opt.output, out, error)) return usage_error(error);
  return kExitOk;
}

const CommandRegistration reg{
    "fmt", [](CLI::App& app, CommandResult& result) {
      auto opt = std::make_shared<FmtOptions>();
      CLI::App* sub = app.add_subcommand(
          "fmt", "Parse PTX and print it in canonical form. KEEPS the comment block at the top of "
                 "the file (license, 'generated, do not edit'); DROPS every other comment");
      sub->add_option("FILE", opt->file, "PTX file ('-' for standard input)")
          ->type_name("")
          ->required();
      sub->add_option("-o,--output", opt->output,
                      "Write to this file (atomically) instead of stdout")
          ->type_name("FILE");
      // No exit 1: fmt has no findings, a file it cannot parse is bad input.
      sub->footer("Exit codes: 0 formatted, 2 bad usage, unreadable file, parse error (with its "
                  "line and a caret),\nor an output that cannot be written.");
      sub->callback([opt, &result] { result.exit_code = run_fmt(*opt); });
    }};

} // namespace
} // namespace ptxkit::cli
