// loc.h: ptxkit::ptxgen::Loc, the source position every emitting builder call records.
//
// Loc is std::source_location where the standard library provides it (g++ 12). clang++-14 with
// libstdc++ 12 does not (libstdc++ needs __builtin_source_location, which clang 14 lacks), so
// there Loc is an equivalent built on __builtin_FILE/LINE/COLUMN with the same interface.
// Either way `Loc loc = Loc::current()` as a default argument captures the caller's position.
#pragma once

#include <cstdint>
#include <version>

#if defined(__cpp_lib_source_location)
#include <source_location>
#endif

namespace ptxkit::ptxgen {

#if defined(__cpp_lib_source_location)
using Loc = std::source_location;
#else
class Loc {
public:
  static constexpr Loc current(const char* file = __builtin_FILE(),
                               std::uint_least32_t line = __builtin_LINE(),
                               std::uint_least32_t column = __builtin_COLUMN()) noexcept {
    Loc l;
    l.file_ = file;
    l.line_ = line;
    l.column_ = column;
    return l;
  }
  constexpr Loc() noexcept = default;
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return ""; }
  constexpr std::uint_least32_t line() const noexcept { return line_; }
  constexpr std::uint_least32_t column() const noexcept { return column_; }

private:
  const char* file_ = "";
  std::uint_least32_t line_ = 0;
  std::uint_least32_t column_ = 0;
};
#endif

} // namespace ptxkit::ptxgen
