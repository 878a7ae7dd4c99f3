// usage_errors.h: CLI11's own parse errors (unknown option, missing argument, bad number, ...) in
// the tool's words, so that they read like every other message of docs/cli.md:
//
//   TOOL: error: unknown option '--bogus'
//   TOOL: run `TOOL gen --help` for usage
//
// CLI11 words them as sentences of its own ("The following argument was not expected: --bogus",
// "Could not convert: --jobs = x"); these functions rephrase the ones a user meets and lowercase
// the rest. Kept apart from tool.cpp so that a unit test can feed them apps of its own.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace ptxkit::cli {

// The message of `e`, thrown by root.parse(), without the `TOOL: error: ` prefix. Reads what the
// parse reached from `root` (the selected commands, the arguments left over).
std::string parse_error_message(const CLI::App& root, const CLI::ParseError& e);

// The command words the last parse of `root` selected below it ("golden check"), or "".
std::string selected_command_words(const CLI::App& root);

// Prints `e` as `TOOL: error: MESSAGE` and the `--help` hint to stderr; returns kExitBadInput.
int report_parse_error(const CLI::App& root, const CLI::ParseError& e);

} // namespace ptxkit::cli
