// tool.h: the `ptxkit` command line as a function, so that the same commands run in `ptxkit`
// itself and in every kernel tool a project builds with ptxkit_add_kernel_tool() (its own
// kernels registered beside the built-in ones).
#pragma once

namespace ptxkit::cli {

// Builds the CLI11 app from every registered subcommand, parses `argv` and runs the command;
// returns the exit code (docs/cli.md). The program name in help and messages is argv[0]'s
// file name.
int run_tool(int argc, char** argv);

} // namespace ptxkit::cli
