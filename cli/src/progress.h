// progress.h: a one-line progress counter on stderr for long commands (`verify` over a tree).
//
// Only when stderr is a terminal and the work is long enough to wait for: logs, pipes and CI
// output stay byte-identical whatever the timing. Thread-safe; redraws at most every 100 ms and
// erases its line when done, so results printed afterwards start on a clean line.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace ptxkit::cli {

class Progress {
public:
  Progress(std::string label, std::size_t total, std::size_t min_total = 8);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // One item done (any thread).
  void step();

private:
  std::string label_;
  std::size_t total_;
  bool enabled_;
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_{};
};

} // namespace ptxkit::cli
