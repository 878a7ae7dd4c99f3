// parallel_for.cpp: a fixed pool of std::threads over an atomic index.
#include "parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace ptxkit::cli {

unsigned default_jobs() {
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (std::size_t i = next++; i < count && !failed; i = next++) {
      try {
        body(i);
      } catch (...) {
        // Only the first exception is kept; the others stop their threads the same way.
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        failed = true;
      }
    }
  };
  const std::size_t threads = std::min<std::size_t>(std::max(jobs, 1u), count);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break; // no more threads to be had: the ones running still cover every index
    }
  }
  worker();
  for (std::thread& t : pool)
    t.join();
  if (first_error) std::rethrow_exception(first_error);
}

} // namespace ptxkit::cli
