// tool.cpp: the subcommand registry and the one entry point of every ptxkit command-line tool;
// maps every outcome to the exit codes of docs/cli.md (usage errors are 2, never CLI11's own).
#include "tool.h"

#include "command_registry.h"
#include "diagnostics.h"
#include "usage_errors.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <ptxkit/kernels/nearest_name.h>
#include <set>
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
  std::vector<std::string> commands = {"help"};
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

// `help [COMMAND...]`: the page of the tool or of the command the words name, the same text as
// `NAME COMMAND... --help`. A command of its own (not a flag) so that it is listed with the
// others and has a page that says what it does and returns.
int print_help(const CLI::App& root, const std::vector<std::string>& words) {
  const CLI::App* app = &root;
  std::string path = root.get_name();
  for (const std::string& word : words) {
    auto match = app->get_subcommands([&](const CLI::App* sub) { return sub->get_name() == word; });
    if (match.empty()) {
      if (app == &root) return unknown_command(root.get_name(), word);
      const std::string command = path.substr(root.get_name().size() + 1);
      std::vector<std::string> names;
      std::string list;
      for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
        names.push_back(sub->get_name());
        list += (list.empty() ? "" : ", ") + sub->get_name();
      }
      if (names.empty())
        return usage_error("unexpected argument '" + word + "': " + command +
                           " has no commands of its own");
      return usage_error("unknown " + command + " command '" + word + "'" +
                         kernels::did_you_mean(word, names) + "; valid " + command +
                         " commands: " + list);
    }
    app = match.front();
    path += " " + word;
  }
  // Not app->help(): that would follow the selected command, which is `help` itself.
  std::cout << app->get_formatter()->make_help(app, path, CLI::AppFormatMode::Normal);
  return kExitOk;
}

void add_help_command(CLI::App& root, CommandResult& result) {
  auto words = std::make_shared<std::vector<std::string>>();
  const std::string name = root.get_name();
  CLI::App* help =
      root.add_subcommand("help", "Print the tool's help, or a command's: the same page as `" +
                                      name + " COMMAND --help`");
  help->add_option("COMMAND", *words,
                   "The command, and a command of it (" + name + " help golden check)");
  help->footer("Exit codes: 0 help printed, 2 unknown command.");
  help->callback([&root, words, &result] { result.exit_code = print_help(root, *words); });
}

// CLI11 names an option's value by its C++ type (TEXT, INT, UINT), which says nothing about what
// to give; every command names its values (FILE, KERNEL, N, ...), and one that does not yet gets
// VALUE rather than a type. A positional's name already says what it takes, so it gets none.
void name_generic_metavars(CLI::App& app) {
  static const std::set<std::string> generic = {"TEXT",    "INT",  "UINT",   "FLOAT",  "CHAR",
                                                "BOOLEAN", "ENUM", "NUMBER", "COMPLEX"};
  for (CLI::Option* opt : app.get_options()) {
    const std::string type = opt->get_type_name();
    const std::string base = type.substr(0, type.find(':'));
    if (opt->get_type_size() != 0 && generic.count(base) != 0)
      opt->type_name(opt->get_positional() ? "" : "VALUE");
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    name_generic_metavars(*sub);
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
  CommandResult result;
  for (auto& [command, setup] : registry())
    setup(app, result);
  add_help_command(app, result);
  name_generic_metavars(app);
  // Set after the commands are added: a subcommand copies its parent's footer when created, and
  // each command's page ends with its own exit codes, not the tool's.
  app.footer("Exit codes: 0 ok, 1 findings, 2 bad input or usage, 3 no CUDA device or driver "
             "(run and bench);\neach command's --help ends with the ones it returns.\nRun `" +
             name + " COMMAND --help` for a command's options.");
  // The first word names the command.
  if (argc >= 2) {
    const std::string first = argv[1];
    if (!first.empty() && first[0] != '-' && first != "help" && registry().count(first) == 0)
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
    // CLI11's own messages, in the tool's format and words (never CLI11's exit codes).
    return report_parse_error(app, e);
  } catch (const std::exception& e) {
    // A command must report its own errors; reaching here is a bug, but never a crash.
    std::cerr << name << ": error: internal: " << e.what() << '\n';
    return kExitBadInput;
  }
  return result.exit_code;
}

} // namespace ptxkit::cli
