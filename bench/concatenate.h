// concatenate.h: a PTX module whose functions and module-scope variables are a real file's,
// N times over, each copy's symbols renamed so that the result is still one valid module.
//
// Why: a size series made of real code shows whether a tool's time and memory grow linearly
// with the number of functions. Repeating the text verbatim would define every symbol N times
// (an invalid module, which a verifier may treat differently from a valid one), so copy k > 0
// renames every symbol the file *defines* at module scope (`.entry`, `.func`, `.global`,
// `.const`, `.shared` names; not `.extern` ones, which stay references to the same outside
// symbol) by appending `_cat<k>`. Function-scope names (registers, labels, parameters) are
// already local to their function and are kept. The `.file` table and the `.section` debug
// blocks are kept once (copy 0): they describe copy 0, and copies' `.loc` lines still name
// valid file indices. The symbols come from ptxkit's parser, the renaming is textual (whole
// identifiers), so the layout of the text (and what the parser sees) is the original's.
#pragma once

#include "ptxkit/verifier/parser.h"

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <variant>

namespace ptxkit::bench {

inline bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// The names `text` defines at module scope (see above); nullopt when it does not parse.
inline std::optional<std::unordered_set<std::string>> module_symbols(const std::string& text) {
  auto parsed = verifier::parse(text, "concatenate");
  if (!parsed) return std::nullopt;
  std::unordered_set<std::string> names;
  for (const verifier::TopLevel& item : parsed.value().items) {
    if (const auto* fn = std::get_if<verifier::Function>(&item)) {
      if (fn->linkage != verifier::Linkage::kExtern) names.emplace(fn->name);
    } else if (const auto* var = std::get_if<verifier::VarDecl>(&item)) {
      if (var->linkage != verifier::Linkage::kExtern) names.emplace(var->name);
    }
  }
  return names;
}

// `code` with every whole identifier of `names` suffixed with `suffix`.
inline std::string rename_symbols(std::string_view code,
                                  const std::unordered_set<std::string>& names,
                                  const std::string& suffix) {
  std::string out;
  out.reserve(code.size() + code.size() / 16);
  std::string word;
  for (std::size_t i = 0; i < code.size();) {
    if (!is_identifier_char(code[i])) {
      out += code[i++];
      continue;
    }
    std::size_t e = i;
    while (e < code.size() && is_identifier_char(code[e]))
      ++e;
    word.assign(code.substr(i, e - i));
    out += word;
    // `%r1` and `.b32` are not symbols: only a word not preceded by '%' or '.' can be one.
    const bool symbol_position = i == 0 || (code[i - 1] != '%' && code[i - 1] != '.');
    if (symbol_position && names.count(word) != 0) out += suffix;
    i = e;
  }
  return out;
}

// `text` split at the end of its `.address_size` line (or `.target` when there is none): the
// header, kept once, and the body, repeated.
inline std::size_t header_end(const std::string& text) {
  std::size_t at = text.find(".address_size");
  if (at == std::string::npos) at = text.find(".target");
  if (at == std::string::npos) return 0;
  std::size_t eol = text.find('\n', at);
  return eol == std::string::npos ? text.size() : eol + 1;
}

// The body without its module-level `.file` lines and `.section { ... }` blocks (copy 0's debug
// information, kept once).
inline std::string without_debug_tables(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  int depth = 0;
  for (std::size_t pos = 0; pos < body.size();) {
    std::size_t eol = body.find('\n', pos);
    std::size_t next = eol == std::string_view::npos ? body.size() : eol + 1;
    std::string_view line = body.substr(pos, next - pos);
    std::size_t b = line.find_first_not_of(" \t");
    std::string_view trimmed = b == std::string_view::npos ? "" : line.substr(b);
    if (depth == 0 && trimmed.starts_with(".file")) {
      pos = next;
      continue;
    }
    if (depth == 0 && trimmed.starts_with(".section")) {
      // Skip to the brace that closes the section.
      std::size_t open = body.find('{', pos);
      if (open == std::string_view::npos) break;
      int d = 0;
      std::size_t i = open;
      for (; i < body.size(); ++i) {
        d += body[i] == '{' ? 1 : body[i] == '}' ? -1 : 0;
        if (d == 0) break;
      }
      std::size_t after = body.find('\n', i);
      pos = after == std::string_view::npos ? body.size() : after + 1;
      continue;
    }
    for (char c : line)
      depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    out += line;
    pos = next;
  }
  return out;
}

// `text` with its body repeated `copies` times (copy 0 verbatim); nullopt when `text` does not
// parse.
inline std::optional<std::string> concatenate(const std::string& text, int copies) {
  auto names = module_symbols(text);
  if (!names) return std::nullopt;
  const std::size_t cut = header_end(text);
  std::string out = text;
  if (copies <= 1) return out;
  const std::string code = without_debug_tables(std::string_view(text).substr(cut));
  out.reserve(text.size() + code.size() * static_cast<std::size_t>(copies - 1));
  if (!out.empty() && out.back() != '\n') out += '\n';
  for (int k = 1; k < copies; ++k)
    out += rename_symbols(code, *names, "_cat" + std::to_string(k));
  return out;
}

} // namespace ptxkit::bench
