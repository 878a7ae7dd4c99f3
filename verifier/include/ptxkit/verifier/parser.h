// parser.h: PTX text -> ast.h Module, or a located parse error.
//
// The verifier checks PTX exactly as the driver will load it, so parsing accepts the PTX ISA as
// current compilers emit it and rejects anything else with `path:line:col: error: expected X,
// found Y`, never crashing, hanging or exhausting the stack (nesting depth is bounded). Errors are
// values (ParseResult), never exceptions.
#pragma once

#include "ptxkit/verifier/ast.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ptxkit::verifier {

// A parse failure: where, what, and the offending source line (for the caret display).
struct ParseError {
  std::string path;
  SourceLoc loc;
  std::string message;     // "expected ';', found 'foo'"
  std::string source_line; // the whole line at loc.line, without its newline

  // "path:line:col: error: message\n<source line>\n<spaces>^\n"
  std::string format() const;
};

// Module or ParseError. [[nodiscard]]: a parse result must be looked at.
class [[nodiscard]] ParseResult {
public:
  ParseResult(Module m) : module_(std::move(m)) {}
  ParseResult(ParseError e) : error_(std::move(e)) {}
  bool ok() const { return module_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Module& value() const& { return *module_; }
  Module&& value() && { return std::move(*module_); }
  const Module& operator*() const& { return *module_; }
  const Module* operator->() const { return &*module_; }
  const ParseError& error() const { return *error_; }

private:
  std::optional<Module> module_;
  std::optional<ParseError> error_;
};

// Limits that keep hostile input from exhausting the stack or memory.
inline constexpr std::uint32_t kMaxBlockDepth = 256; // nested `{ }` blocks
inline constexpr std::uint32_t kMaxInitDepth = 64;   // nested initializer braces

// Parses `text` (copied into the module's storage). `path` is used in locations and errors.
ParseResult parse(std::string_view text, std::string path);
// Same, taking ownership of the text (no copy: use it for large files).
ParseResult parse_owned(std::string text, std::string path);

} // namespace ptxkit::verifier
