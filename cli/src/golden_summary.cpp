// golden_summary.cpp: a line classifier for generated PTX and the change summary built on it.
#include "golden_summary.h"

#include "golden_header_line.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

namespace ptxkit::cli {
namespace {

constexpr std::string_view kSpace = " \t\r";

std::string_view trim(std::string_view s) {
  const std::size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

// The next whitespace-delimited token of `s`, removed from it.
std::string_view next_token(std::string_view& s) {
  s = trim(s);
  const std::size_t end = std::min(s.find_first_of(kSpace), s.size());
  std::string_view token = s.substr(0, end);
  s.remove_prefix(end);
  return token;
}

bool is_opcode(std::string_view token) {
  if (token.empty() || token.front() < 'a' || token.front() > 'z') return false;
  return std::all_of(token.begin(), token.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
  });
}

// `.reg .TYPE %a<N>, %b;` -> adds N to %a and 1 to %b.
void count_registers(std::string_view declaration, PtxShape& shape) {
  std::string_view rest = declaration;
  next_token(rest); // .reg
  next_token(rest); // .TYPE
  rest = trim(rest);
  if (!rest.empty() && rest.back() == ';') rest.remove_suffix(1);
  while (!rest.empty()) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    std::string_view item = trim(rest.substr(0, comma));
    rest.remove_prefix(std::min(comma + 1, rest.size()));
    if (item.empty() || item.front() != '%') continue;
    std::uint64_t count = 1;
    if (const std::size_t lt = item.find('<'); lt != std::string_view::npos) {
      const char* first = item.data() + lt + 1;
      const char* last = item.data() + item.size();
      if (std::from_chars(first, last, count).ec != std::errc()) continue;
      item = item.substr(0, lt);
    } else {
      while (item.size() > 1 && item.back() >= '0' && item.back() <= '9')
        item.remove_suffix(1);
    }
    if (count > 0) shape.registers[std::string(item)] += count;
  }
}

std::string header_field(const std::optional<GoldenHeaderLine>& primary,
                         const std::optional<GoldenHeaderLine>& fallback,
                         std::string GoldenHeaderLine::*field) {
  if (primary && !((*primary).*field).empty()) return (*primary).*field;
  if (fallback && !((*fallback).*field).empty()) return (*fallback).*field;
  return "?";
}

} // namespace

PtxShape ptx_shape(std::string_view ptx) {
  PtxShape shape;
  bool in_block_comment = false;
  while (!ptx.empty()) {
    const std::size_t nl = std::min(ptx.find('\n'), ptx.size());
    std::string_view line = trim(ptx.substr(0, nl));
    ptx.remove_prefix(std::min(nl + 1, ptx.size()));
    if (in_block_comment) {
      const std::size_t end = line.find("*/");
      if (end == std::string_view::npos) continue;
      in_block_comment = false;
      line = trim(line.substr(end + 2));
    }
    if (line.substr(0, 2) == "/*") {
      in_block_comment = line.find("*/", 2) == std::string_view::npos;
      continue;
    }
    if (line.substr(0, 4) == ".reg") {
      count_registers(line, shape);
      continue;
    }
    std::string_view rest = line;
    std::string_view token = next_token(rest);
    if (!token.empty() && token.front() == '@') token = next_token(rest); // guard
    if (!token.empty() && token.back() == ';') token.remove_suffix(1);    // `ret;`
    // Labels end in ':' and directives start with '.', so neither passes is_opcode.
    if (is_opcode(token)) ++shape.opcodes[std::string(token)];
  }
  return shape;
}

std::string instruction_changes(const PtxShape& before, const PtxShape& after) {
  std::map<std::string, std::int64_t> delta;
  for (const auto& [op, n] : before.opcodes)
    delta[op] -= static_cast<std::int64_t>(n);
  for (const auto& [op, n] : after.opcodes)
    delta[op] += static_cast<std::int64_t>(n);
  std::vector<std::pair<std::string, std::int64_t>> changed;
  for (const auto& [op, d] : delta)
    if (d != 0) changed.emplace_back(op, d);
  if (changed.empty()) return "unchanged";
  // std::map gave name order; a stable sort by size keeps it among equal sizes.
  std::stable_sort(changed.begin(), changed.end(), [](const auto& a, const auto& b) {
    return std::llabs(a.second) > std::llabs(b.second);
  });
  std::string out;
  for (const auto& [op, d] : changed) {
    if (!out.empty()) out += ", ";
    out += d > 0 ? '+' : '-';
    out += std::to_string(std::llabs(d));
    out += ' ';
    out += op;
  }
  return out;
}

std::string register_changes(const PtxShape& before, const PtxShape& after) {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> counts;
  for (const auto& [cls, n] : before.registers)
    counts[cls].first = n;
  for (const auto& [cls, n] : after.registers)
    counts[cls].second = n;
  std::string out;
  for (const auto& [cls, n] : counts) {
    if (n.first == n.second) continue;
    if (!out.empty()) out += ", ";
    out += cls + " " + std::to_string(n.first) + " -> " + std::to_string(n.second);
  }
  return out.empty() ? "unchanged" : out;
}

std::string golden_change_summary(std::string_view before, std::string_view after) {
  const auto old_header = read_golden_header(before);
  const auto new_header = read_golden_header(after);
  std::string out = "kernel=" + header_field(new_header, old_header, &GoldenHeaderLine::kernel) +
                    " config=" + header_field(new_header, old_header, &GoldenHeaderLine::config) +
                    " target=" + header_field(new_header, old_header, &GoldenHeaderLine::target);
  const std::string old_key = header_field(old_header, std::nullopt, &GoldenHeaderLine::key);
  const std::string new_key = header_field(new_header, std::nullopt, &GoldenHeaderLine::key);
  out += " key=" + old_key +
         (old_key == new_key && old_key != "?" ? " (unchanged)" : " -> " + new_key);
  const PtxShape old_shape = ptx_shape(before), new_shape = ptx_shape(after);
  out += "\ninstructions: " + instruction_changes(old_shape, new_shape) +
         "; registers: " + register_changes(old_shape, new_shape) + "\n";
  return out;
}

} // namespace ptxkit::cli
