// diagnostics.h: the CLI's error printing, in the one format CLI.md fixes.
//
//   PATH:LINE:COL: error: MESSAGE   where a location exists
//   ptxkit: error: MESSAGE          otherwise
#pragma once

#include <cstddef>
#include <string_view>

namespace ptxkit::cli {

// Prints `ptxkit: error: message` to stderr and returns kExitBadInput, for `return usage_error(..)`.
int usage_error(std::string_view message);

// Prints `path:line:col: error: message` to stderr.
void located_error(std::string_view path, std::size_t line, std::size_t col,
                   std::string_view message);

}  // namespace ptxkit::cli
