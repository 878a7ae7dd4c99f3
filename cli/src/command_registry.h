// command_registry.h: how each `ptxkit` subcommand plugs itself into the CLI11 app.
//
// A subcommand file defines a setup function and a static CommandRegistration; main() builds the
// app from every registration in name order, so the help output and behaviour do not depend on
// static initialization order.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace ptxkit::cli {

// Exit codes of docs/cli.md, the same for every subcommand.
enum ExitCode : int {
  kExitOk = 0,
  kExitFindings = 1,
  kExitBadInput = 2,
  kExitNoDevice = 3,
};

// The subcommand's result: its callback stores the exit code here.
struct CommandResult {
  int exit_code = kExitOk;
};

// setup(app, result) adds one subcommand to `app`; its callback runs the command and sets
// result.exit_code.
using CommandSetup = std::function<void(CLI::App& app, CommandResult& result)>;

struct CommandRegistration {
  CommandRegistration(std::string name, CommandSetup setup);
};

} // namespace ptxkit::cli
