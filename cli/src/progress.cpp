// progress.cpp: the stderr progress line (progress.h).
#include "progress.h"

#include <cstdio>
#include <unistd.h>

namespace ptxkit::cli {

Progress::Progress(std::string label, std::size_t total, std::size_t min_total)
    : label_(std::move(label)), total_(total),
      enabled_(total >= min_total && ::isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
  if (!enabled_) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(label_.size()) + 32, "");
  std::fflush(stderr);
}

void Progress::step() {
  const std::size_t done = ++done_;
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (done != total_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  std::fprintf(stderr, "\r%s: %zu/%zu", label_.c_str(), done, total_);
  std::fflush(stderr);
}

} // namespace ptxkit::cli
