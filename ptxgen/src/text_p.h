// text_p.h: cat(), string concatenation by appending (private to ptxgen's sources).
//
// g++ 12 at -O2 reports a false -Wrestrict in `"literal" + std::string&&` (libstdc++'s
// operator+ inserts at the front); appending every piece to one string avoids that form and is
// no slower. Integers are formatted in decimal.
#pragma once

#include <concepts>
#include <string>
#include <string_view>

namespace ptxkit::ptxgen::detail {

inline std::string_view text_piece(std::string_view s) {
  return s;
}
inline std::string_view text_piece(const std::string& s) {
  return s;
}
inline std::string_view text_piece(const char* s) {
  return s;
}
template <std::integral I>
requires(!std::same_as<I, char> && !std::same_as<I, bool>) std::string text_piece(I v) {
  return std::to_string(v);
}

template <class... P>
std::string cat(const P&... parts) {
  std::string s;
  (s.append(text_piece(parts)), ...);
  return s;
}

} // namespace ptxkit::ptxgen::detail
