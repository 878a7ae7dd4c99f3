// nearest_name.cpp: the edit distance behind "did you mean" (nearest_name.h).
#include <algorithm>
#include <ptxkit/kernels/nearest_name.h>

namespace ptxkit::kernels {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

} // namespace

std::optional<std::string> nearest_name(std::string_view word,
                                        const std::vector<std::string>& names) {
  // Two edits for words of five letters or more, one below (a three-letter typo is often
  // another word).
  const std::size_t allowed = word.size() >= 5 ? 2 : 1;
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& name : names) {
    std::size_t d = edit_distance(word, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  if (best) return best;
  for (const std::string& name : names)
    if (!word.empty() && name.starts_with(word)) return name;
  return std::nullopt;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& names) {
  auto n = nearest_name(word, names);
  return n ? " (did you mean '" + *n + "'?)" : std::string();
}

} // namespace ptxkit::kernels
