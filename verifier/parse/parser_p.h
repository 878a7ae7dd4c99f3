// parser_p.h: the parser's private pieces: the arena the AST points into, the cursor with line
// tracking, and the lexeme recognizers (lexemes.cpp, written with Spirit X3).
//
// Why private: ast.h promises only string_views and Spans; how they are stored (source text +
// bump arena, shared by all copies of a Module) is the parser's business.
#pragma once

#include "ptxkit/verifier/ast.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ptxkit::verifier::detail {

// Bump allocator for trivially destructible AST arrays; never frees until destroyed.
class Arena {
public:
  void* allocate(std::size_t bytes, std::size_t align);

  template <class T>
  Span<T> copy(const T* src, std::size_t n) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (n == 0) return {};
    T* dst = static_cast<T*>(allocate(n * sizeof(T), alignof(T)));
    std::uninitialized_copy(src, src + n, dst);
    return {dst, static_cast<std::uint32_t>(n)};
  }
  template <class T>
  Span<T> copy(const std::vector<T>& v) {
    return copy(v.data(), v.size());
  }
  template <class T>
  const T* make(const T& value) {
    static_assert(std::is_trivially_destructible_v<T>);
    return new (allocate(sizeof(T), alignof(T))) T(value);
  }
  std::string_view copy_string(std::string_view s) {
    if (s.empty()) return {};
    char* dst = static_cast<char*>(allocate(s.size(), 1));
    std::memcpy(dst, s.data(), s.size());
    return {dst, s.size()};
  }
  std::size_t bytes_used() const { return used_; }

private:
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  std::byte* cur_ = nullptr;
  std::size_t left_ = 0;
  std::size_t used_ = 0;
};

// What a Module's `storage` holds.
struct Storage {
  std::string text;
  Arena arena;
};

// ---- Lexemes (lexemes.cpp, Spirit X3) --------------------------------------------------------
// Each takes [p, end), and on success advances p past the lexeme and returns true; on failure
// leaves p alone and returns false.

inline bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%';
}
inline bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$';
}

// PTX identifier: [A-Za-z][A-Za-z0-9_$]* | [_$%][A-Za-z0-9_$]+
bool lex_identifier(const char*& p, const char* end, std::string_view& out);
// Dot-modifier body after the '.': [A-Za-z0-9_]+ ('::' [A-Za-z0-9_]+)*  (e.g. "shared::cta",
// "2d", "L2::cache_hint", "mbarrier::complete_tx::bytes").
bool lex_modifier(const char*& p, const char* end, std::string_view& out);

struct NumberLit {
  std::uint64_t bits = 0;
  bool is_float = false;
  bool f32_pattern = false;
};
// Integer (decimal, 0x hex, 0b binary, 0 octal; optional U suffix; optional leading '-' or '+')
// or float (0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX, decimal with '.'). `out_of_range` is set when it is
// an integer literal that does not fit 64 bits.
bool lex_number(const char*& p, const char* end, NumberLit& out, bool& out_of_range);
// Unsigned decimal/hex integer for directive arguments.
bool lex_uint(const char*& p, const char* end, std::uint64_t& out);
// A double-quoted string with backslash escapes, quotes included in `out`.
bool lex_string(const char*& p, const char* end, std::string_view& out);

// `.loc` arguments after the directive name, up to (not including) the end of its line.
struct LocArgs {
  std::uint32_t file = 0, line = 0, col = 0;
  std::string_view function_name;
  bool has_inlined_at = false;
  std::uint32_t inlined_file = 0, inlined_line = 0, inlined_col = 0;
};
bool lex_loc_args(const char*& p, const char* end, LocArgs& out);

// `.version` argument: MAJOR.MINOR
bool lex_version(const char*& p, const char* end, std::uint32_t& major, std::uint32_t& minor);

} // namespace ptxkit::verifier::detail
