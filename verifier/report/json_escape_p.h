// json_escape_p.h: JSON string escaping shared by the JSON and SARIF printers.
//
// Why hand-written: the verifier library stays free of a JSON dependency for two small printers;
// only escaping needs care (control characters, quotes, backslashes; UTF-8 passes through).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace ptxkit::verifier::detail {

inline void json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x",
                      static_cast<unsigned>(static_cast<unsigned char>(c)));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

inline std::string json_quote(std::string_view s) {
  std::string out;
  json_string(out, s);
  return out;
}

} // namespace ptxkit::verifier::detail
