// tool.cpp: the subcommand registry and the one entry point of every ptxkit command-line tool;
// maps every outcome to the exit codes of docs/cli.md (usage errors are 2, never CLI11's own).
#include "tool.h"

#include "command_registry.h"
#include "diagnostics.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <ptxkit/kernels/nearest_name.h>
#include <string>
#include <string_view>
#include <vector>

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

// "unknown command 'X'", with the nearest command name when one is close, and the list.
int unknown_command(const std::string& name, std::string_view word) {
  std::vector<std::string> commands;
  std::string list;
  for (const auto& [command, setup] : registry()) {
    commands.push_back(command);
    list += (list.empty() ? "" : ", ") + command;
  }
  std::cerr << name << ": error: unknown command '" << word << "'"
            << kernels::did_you_mean(word, commands) << '\n'
            << name << ": commands: " << list << " (`" << name << " help COMMAND` for one)\n";
  return kExitBadInput;
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
  // The first word names the command; `help [COMMAND]` prints the tool's or a command's help.
  if (argc >= 2) {
    const std::string first = argv[1];
    if (first == "help") {
      if (argc == 2) {
        std::cout << app.help();
        return kExitOk;
      }
      const std::string command = argv[2];
      if (registry().count(command) == 0) return unknown_command(name, command);
      // The same page as `NAME COMMAND --help`.
      std::vector<std::string> words = {argv[0], command, "--help"};
      std::vector<char*> args;
      for (std::string& w : words)
        args.push_back(w.data());
      try {
        app.parse(static_cast<int>(args.size()), args.data());
      } catch (const CLI::ParseError& e) {
        return app.exit(e);
      }
      return kExitOk;
    }
    if (!first.empty() && first[0] != '-' && registry().count(first) == 0)
      return unknown_command(name, first);
    if (first.size() > 1 && first[0] == '-' && first != "-h" && first != "--help" &&
        first != "--version") {
      std::cerr << name << ": error: unknown option '" << first << "': a command comes first, `"
                << name << " COMMAND [OPTIONS]` (`" << name << " --help` lists the commands)\n";
      return kExitBadInput;
    }
  }
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
