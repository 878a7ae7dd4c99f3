// diagnostics.cpp: error printing for the CLI (format fixed by docs/cli.md).
#include "diagnostics.h"

#include "command_registry.h"

#include <iostream>
#include <string>

namespace ptxkit::cli {
namespace {

std::string& program() {
  static std::string name = "ptxkit";
  return name;
}

} // namespace

void set_program_name(std::string_view name) {
  program() = std::string(name);
}

std::string_view program_name() {
  return program();
}

int usage_error(std::string_view message) {
  std::cerr << program() << ": error: " << message << '\n';
  return kExitBadInput;
}

void located_error(std::string_view path, std::size_t line, std::size_t col,
                   std::string_view message) {
  std::cerr << path << ':' << line << ':' << col << ": error: " << message << '\n';
}

} // namespace ptxkit::cli
