// bench_case.cpp: a benchmark target in words and its verdict.
#include <cstdio>
#include <ptxkit/kernels/bench_case.h>

namespace ptxkit::kernels {

std::string BenchTarget::text() const {
  // Built with append only: GCC 12 reports a false -Wrestrict on `"literal" + std::string`.
  std::string words;
  char buf[64];
  if (max_us > 0) {
    std::snprintf(buf, sizeof buf, "<= %g us", max_us);
    words.append(buf);
  }
  if (min_pct_of_copy > 0) {
    std::snprintf(buf, sizeof buf, ">= %.0f%% of copy bandwidth", min_pct_of_copy);
    words.append(words.empty() ? "" : " and ").append(buf);
  }
  if (!qualifier.empty()) words.append(words.empty() ? "" : " ").append(qualifier);
  return words;
}

bool BenchTarget::met(double median_us, double pct_of_copy) const {
  return (max_us <= 0 || median_us <= max_us) &&
         (min_pct_of_copy <= 0 || pct_of_copy >= min_pct_of_copy);
}

} // namespace ptxkit::kernels
