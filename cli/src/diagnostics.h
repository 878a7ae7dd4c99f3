// diagnostics.h: the CLI's error printing, in the one format docs/cli.md fixes.
//
//   PATH:LINE:COL: error: MESSAGE   where a location exists
//   TOOL: error: MESSAGE            otherwise (TOOL is `ptxkit`, or the name of a project's own
//                                   kernel tool built with ptxkit_add_kernel_tool())
#pragma once

#include <cstddef>
#include <string_view>

namespace ptxkit::cli {

// The name errors and help give the running tool ("ptxkit" until run_tool sets it).
void set_program_name(std::string_view name);
std::string_view program_name();

// Prints `TOOL: error: message` to stderr and returns kExitBadInput, for `return usage_error(..)`.
int usage_error(std::string_view message);

// Prints `path:line:col: error: message` to stderr.
void located_error(std::string_view path, std::size_t line, std::size_t col,
                   std::string_view message);

} // namespace ptxkit::cli
