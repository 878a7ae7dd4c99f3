// unified_diff.cpp: longest-common-subsequence line diff printed as unified hunks.
//
// Golden files are a few hundred lines, so the quadratic LCS table is cheap and gives minimal,
// stable diffs; common prefix and suffix are stripped first so a one-line change costs little.
#include "unified_diff.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ptxkit::cli {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

struct Edit {
  char op; // ' ', '-', '+'
  std::string_view line;
  std::size_t a; // line index in before (for ' ' and '-'), or the insertion point
  std::size_t b; // line index in after (for ' ' and '+'), or the insertion point
};

std::vector<Edit> diff_edits(const std::vector<std::string_view>& a,
                             const std::vector<std::string_view>& b) {
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre])
    ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;
  const std::size_t n = a.size() - pre - suf;
  const std::size_t m = b.size() - pre - suf;
  // lcs[i][j]: LCS length of a[pre+i..] and b[pre+j..] (middle part only).
  std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      at(i, j) =
          a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::vector<Edit> edits;
  for (std::size_t i = 0; i < pre; ++i)
    edits.push_back({' ', a[i], i, i});
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[pre + i] == b[pre + j]) {
      edits.push_back({' ', a[pre + i], pre + i, pre + j});
      ++i, ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      // Removals before additions, as diff -u prints them.
      edits.push_back({'-', a[pre + i], pre + i, pre + j});
      ++i;
    } else {
      edits.push_back({'+', b[pre + j], pre + i, pre + j});
      ++j;
    }
  }
  for (std::size_t k = 0; k < suf; ++k)
    edits.push_back({' ', a[pre + n + k], pre + n + k, pre + m + k});
  return edits;
}

std::string range(std::size_t start, std::size_t count) {
  // diff -u: 1-based start; an empty range names the line before it.
  std::size_t first = count == 0 ? start : start + 1;
  if (count == 1) return std::to_string(first);
  return std::to_string(first) + "," + std::to_string(count);
}

} // namespace

std::string unified_diff(std::string_view before, std::string_view after,
                         std::string_view before_label, std::string_view after_label, int context) {
  if (before == after) return {};
  const auto a = split_lines(before);
  const auto b = split_lines(after);
  const auto edits = diff_edits(a, b);
  std::string out = "--- " + std::string(before_label) + "\n+++ " + std::string(after_label) + "\n";
  const std::size_t ctx = static_cast<std::size_t>(std::max(context, 0));
  std::size_t k = 0;
  while (k < edits.size()) {
    // Find the next change.
    while (k < edits.size() && edits[k].op == ' ')
      ++k;
    if (k == edits.size()) break;
    std::size_t start = k >= ctx ? k - ctx : 0;
    // Extend the hunk while changes are within 2*ctx unchanged lines of each other.
    std::size_t end = k;
    while (true) {
      while (end < edits.size() && edits[end].op != ' ')
        ++end;
      std::size_t same = 0;
      std::size_t probe = end;
      while (probe < edits.size() && edits[probe].op == ' ' && same <= 2 * ctx)
        ++probe, ++same;
      if (probe < edits.size() && edits[probe].op != ' ' && same <= 2 * ctx) {
        end = probe;
        continue;
      }
      end = std::min(edits.size(), end + ctx);
      break;
    }
    std::size_t a_count = 0, b_count = 0;
    for (std::size_t x = start; x < end; ++x) {
      if (edits[x].op != '+') ++a_count;
      if (edits[x].op != '-') ++b_count;
    }
    out +=
        "@@ -" + range(edits[start].a, a_count) + " +" + range(edits[start].b, b_count) + " @@\n";
    for (std::size_t x = start; x < end; ++x) {
      out += edits[x].op;
      out += edits[x].line;
      out += '\n';
    }
    k = end;
  }
  if (!before.empty() && before.back() != '\n') out += "\\ No newline at end of file (before)\n";
  if (!after.empty() && after.back() != '\n') out += "\\ No newline at end of file (after)\n";
  return out;
}

} // namespace ptxkit::cli
