// loc.h: ptxkit::ptxgen::Loc, the source position every emitting builder call records.
//
// Loc is one class under every compiler, never an alias of std::source_location: libstdc++'s
// std::source_location needs __builtin_source_location, which clang 14 lacks, so an alias would
// make Loc a different type (and builder functions different symbols) under g++ and clang++, and
// a clang++ program could not link the libraries g++ built. Only how `current()` captures the
// caller's position differs: g++ 12 has no __builtin_COLUMN, so there it goes through
// std::source_location; the two overloads have different signatures, so no symbol is defined
// twice. `Loc loc = Loc::current()` as a default argument captures the caller's position.
//
// An operator cannot take that trailing default argument: its parameters are its operands. An
// operator that emits instructions (`p + i` with a register index) takes its operand as a
// Located<X> instead, whose implicit converting constructor has the defaulted Loc: a default
// argument is evaluated where the conversion happens, in the user's expression, so the
// instruction is attributed to the user's line and never to the ptxgen header defining the
// operator. (A thread-local "current statement" location was the alternative; it needs every
// caller to set it and goes stale across helpers, while Located needs nothing from the user.)
#pragma once

#include <cstdint>
#include <version>

#if !defined(__clang__) && defined(__cpp_lib_source_location)
#include <source_location>
#define PTXKIT_LOC_FROM_STD_SOURCE_LOCATION 1
#endif

namespace ptxkit::ptxgen {

class Loc {
public:
#if defined(PTXKIT_LOC_FROM_STD_SOURCE_LOCATION)
  static constexpr Loc current(std::source_location s = std::source_location::current()) noexcept {
    return Loc(s.file_name(), s.line(), s.column());
  }
#else
  static constexpr Loc current(const char* file = __builtin_FILE(),
                               std::uint_least32_t line = __builtin_LINE(),
                               std::uint_least32_t column = __builtin_COLUMN()) noexcept {
    return Loc(file, line, column);
  }
#endif
  constexpr Loc() noexcept = default;
  constexpr const char* file_name() const noexcept {
    return file_;
  }
  constexpr std::uint_least32_t line() const noexcept {
    return line_;
  }
  constexpr std::uint_least32_t column() const noexcept {
    return column_;
  }

private:
  constexpr Loc(const char* file, std::uint_least32_t line, std::uint_least32_t column) noexcept
      : file_(file), line_(line), column_(column) {}

  const char* file_ = "";
  std::uint_least32_t line_ = 0;
  std::uint_least32_t column_ = 0;
};

// An operand X plus the source position of the expression that supplied it (see above).
template <class X>
struct Located {
  constexpr Located(X v, Loc l = Loc::current()) noexcept // NOLINT: implicit on purpose
      : value(v), loc(l) {}
  X value;
  Loc loc;
};

} // namespace ptxkit::ptxgen
