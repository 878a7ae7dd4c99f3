// parallel_for.h: run a function on every index of [0, count) on a few threads.
//
// Why this and not a task library: the CLI's parallel work (`verify -j N`) is a flat list of
// independent files, so a fixed set of std::threads taking the next index from one atomic counter
// balances uneven file sizes without any queue. Callers write each result into the slot of its
// index, which keeps the output order independent of the thread count.
#pragma once

#include <cstddef>
#include <functional>

namespace ptxkit::cli {

// The default worker count: every core the machine reports, at least 1.
[[nodiscard]] unsigned default_jobs();

// Calls body(i) once for each i in [0, count), on min(jobs, count) threads (the calling thread is
// one of them; jobs 0 counts as 1). Returns when every call has returned. If a call throws, the
// remaining indices are skipped and the first exception is rethrown here.
void parallel_for(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& body);

} // namespace ptxkit::cli
