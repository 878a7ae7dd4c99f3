// diagnostics.cpp: error printing for the CLI (format fixed by CLI.md).
#include "diagnostics.h"

#include "command_registry.h"

#include <iostream>

namespace ptxkit::cli {

int usage_error(std::string_view message) {
  std::cerr << "ptxkit: error: " << message << '\n';
  return kExitBadInput;
}

void located_error(std::string_view path, std::size_t line, std::size_t col,
                   std::string_view message) {
  std::cerr << path << ':' << line << ':' << col << ": error: " << message << '\n';
}

}  // namespace ptxkit::cli
