// tool.cpp: the subcommand registry and the one entry point of every ptxkit command-line tool;
// maps every outcome to the exit codes of docs/cli.md (usage errors are 2, never CLI11's own).
#include "tool.h"

#include "command_registry.h"
#include "diagnostics.h"

#include <CLI/CLI.hpp>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

namespace ptxkit::cli {
namespace {

std::map<std::string, CommandSetup>& registry() {
  static std::map<std::string, CommandSetup> commands;
  return commands;
}

std::string program_name_of(int argc, char** argv) {
  if (argc < 1 || argv[0] == nullptr || argv[0][0] == '\0') return "ptxkit";
  return std::filesystem::path(argv[0]).filename().string();
}

} // namespace

CommandRegistration::CommandRegistration(std::string name, CommandSetup setup) {
  registry().emplace(std::move(name), std::move(setup));
}

int run_tool(int argc, char** argv) {
  const std::string name = program_name_of(argc, argv);
  set_program_name(name);
  CLI::App app{name + ": generate PTX from typed kernels, verify any PTX, launch only verified PTX",
               name};
  app.set_version_flag("--version", PTXKIT_VERSION);
  app.require_subcommand(1);
  app.footer("Exit codes: 0 ok, 1 findings, 2 bad input or usage, 3 no CUDA device or driver.\n"
             "Run `" +
             name + " COMMAND --help` for a command's options.");
  CommandResult result;
  for (auto& [command, setup] : registry())
    setup(app, result);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << name << ": error: " << e.what() << '\n';
    if (argc <= 1) std::cerr << app.help();
    return kExitBadInput;
  } catch (const std::exception& e) {
    // A command must report its own errors; reaching here is a bug, but never a crash.
    std::cerr << name << ": error: internal: " << e.what() << '\n';
    return kExitBadInput;
  }
  return result.exit_code;
}

} // namespace ptxkit::cli
