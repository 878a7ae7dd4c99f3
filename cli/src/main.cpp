// main.cpp: the `ptxkit` command: builds the CLI11 app from the registered subcommands and maps
// every outcome to the exit codes of ../shared/CLI.md (usage errors are 2, never CLI11's own).
#include "command_registry.h"

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <map>

namespace ptxkit::cli {
namespace {

std::map<std::string, CommandSetup>& registry() {
  static std::map<std::string, CommandSetup> commands;
  return commands;
}

}  // namespace

CommandRegistration::CommandRegistration(std::string name, CommandSetup setup) {
  registry().emplace(std::move(name), std::move(setup));
}

}  // namespace ptxkit::cli

int main(int argc, char** argv) {
  using namespace ptxkit::cli;
  CLI::App app{"ptxkit: generate PTX from typed kernels, verify any PTX, launch only verified PTX"};
  app.set_version_flag("--version", PTXKIT_VERSION);
  app.require_subcommand(1);
  app.footer("Exit codes: 0 ok, 1 findings, 2 bad input or usage, 3 no CUDA device or driver.\n"
             "Run `ptxkit COMMAND --help` for a command's options.");
  CommandResult result;
  for (auto& [name, setup] : registry()) setup(app, result);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ptxkit: error: " << e.what() << '\n';
    if (argc <= 1) std::cerr << app.help();
    return kExitBadInput;
  } catch (const std::exception& e) {
    // A command must report its own errors; reaching here is a bug, but never a crash.
    std::cerr << "ptxkit: error: internal: " << e.what() << '\n';
    return kExitBadInput;
  }
  return result.exit_code;
}
