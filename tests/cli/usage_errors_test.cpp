// usage_errors_test.cpp: CLI11's parse errors in the tool's words (cli/src/usage_errors.h), on
// apps built here: the lit tests (tests/lit/cli/usage-errors.test) cover the errors the real
// commands can produce; these also cover kinds no command meets today (excluded and required
// options, option groups), so a command that starts using them reads the same.
#include "diagnostics.h"
#include "usage_errors.h"

#include <gtest/gtest.h>
#include <iostream>
#include <sstream>
#include <string>

namespace ptxkit::cli {
namespace {

// The message parse_error_message gives for `command_line`, or "no error" when it parses.
std::string error_of(CLI::App& app, const std::string& command_line) {
  try {
    app.parse(command_line);
  } catch (const CLI::ParseError& e) {
    return parse_error_message(app, e);
  }
  return "no error";
}

struct Tool {
  CLI::App app{"a tool", "tool"};
  CLI::App* gen = nullptr;
  CLI::App* group = nullptr;
  std::string kernel, format = "text", out_dir;
  int jobs = 1;
  bool all = false;
  Tool() {
    app.require_subcommand(1);
    gen = app.add_subcommand("gen", "generate");
    gen->add_option("KERNEL", kernel)->required();
    gen->add_option("-j,--jobs", jobs)->type_name("N");
    gen->add_option("--format", format)
        ->type_name("FORMAT")
        ->check(CLI::IsMember({"text", "json", "sarif"}));
    auto* all_flag = gen->add_flag("--all", all);
    auto* dir = gen->add_option("--out-dir", out_dir)->type_name("DIR");
    all_flag->excludes(dir);
    group = app.add_subcommand("golden", "golden files");
    group->require_subcommand(1);
    group->add_subcommand("check", "check");
    group->add_subcommand("update", "update");
  }
};

TEST(UsageErrors, UnknownOptionsAndUnexpectedArgumentsAreNamedAndQuoted) {
  Tool t;
  EXPECT_EQ(error_of(t.app, "gen k --bogus"), "unknown option '--bogus'");
  Tool u;
  EXPECT_EQ(error_of(u.app, "gen k x y --bogus"),
            "unknown option '--bogus'; unexpected arguments 'x', 'y'");
  EXPECT_EQ(selected_command_words(u.app), "gen");
}

TEST(UsageErrors, BadNumbersAndChoicesSayWhatIsValid) {
  Tool t;
  EXPECT_EQ(error_of(t.app, "gen k -j many"),
            "invalid value 'many' for --jobs: expected a whole number");
  Tool u;
  EXPECT_EQ(error_of(u.app, "gen k --format jsonn"),
            "invalid value 'jsonn' for --format (did you mean 'json'?); valid values: text, "
            "json, sarif");
}

TEST(UsageErrors, MissingValuesAndArguments) {
  Tool t;
  EXPECT_EQ(error_of(t.app, "gen k --out-dir"), "--out-dir needs a value: DIR");
  Tool u;
  EXPECT_EQ(error_of(u.app, "gen"), "KERNEL is required");
}

TEST(UsageErrors, ExcludedOptions) {
  Tool t;
  const std::string message = error_of(t.app, "gen k --all --out-dir d");
  EXPECT_NE(message.find(" cannot be combined with "), std::string::npos) << message;
  EXPECT_NE(message.find("--all"), std::string::npos) << message;
  EXPECT_NE(message.find("--out-dir"), std::string::npos) << message;
}

TEST(UsageErrors, CommandGroupsNameTheirCommands) {
  Tool t;
  EXPECT_EQ(error_of(t.app, "golden"), "golden needs a command: check, update");
  Tool u;
  EXPECT_EQ(error_of(u.app, "golden chek"),
            "unknown golden command 'chek' (did you mean 'check'?); valid golden commands: "
            "check, update");
  Tool v;
  EXPECT_EQ(error_of(v.app, ""), "no command given; commands: gen, golden");
}

TEST(UsageErrors, AnyOtherMessageStartsLowercaseButKeepsNames) {
  CLI::App app{"a tool", "tool"};
  std::string a, b;
  app.add_option("--a", a);
  app.add_option("--b", b);
  app.require_option(1);
  const std::string message = error_of(app, "");
  EXPECT_EQ(message.rfind("exactly 1 option from [", 0), 0u) << message;
  CLI::App needs{"a tool", "tool"};
  auto* x = needs.add_option("--x", a);
  needs.add_option("--y", b)->needs(x);
  EXPECT_EQ(error_of(needs, "--y 1"), "--y requires --x");
}

TEST(UsageErrors, ReportIsTheToolsErrorLineAndTheHelpToReadExit2) {
  set_program_name("mytool");
  Tool t;
  std::ostringstream err;
  std::streambuf* saved = std::cerr.rdbuf(err.rdbuf());
  int code = -1;
  try {
    t.app.parse(std::string("golden check --bogus"));
  } catch (const CLI::ParseError& e) {
    code = report_parse_error(t.app, e);
  }
  std::cerr.rdbuf(saved);
  set_program_name("ptxkit");
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err.str(), "mytool: error: unknown option '--bogus'\n"
                       "mytool: run `mytool golden check --help` for usage\n");
}

} // namespace
} // namespace ptxkit::cli
