// device_bench.h: the benchmark cases of `ptxkit bench` (the kernels' performance targets).
//
// Each case times one kernel, or a pipeline of launches (flash-decoding chunk + reduce), at a
// large shape with CUDA events: warm-up, then the median of many samples, each after an untimed
// read-only pass over twice the L2 (cold and clean: no dirty lines left to write back). The
// single-kernel cases are those the kernels' definitions state (bench_case.h); the ones that ask
// for it (GEMV) are also timed back to back over rotating copies of their buffers (the launch
// latency overlapped, as in a decode step). Achieved bandwidth counts the fewest bytes the
// job must move (each input read once, each output written once) and is set beside the measured
// device-to-device copy bandwidth (bytes read + written), which is the ceiling the targets use.
#pragma once

#include "device_harness.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace ptxkit::cli::device {

struct BenchResult {
  std::string name;                 // e.g. "rmsnorm_65536x896"
  std::vector<std::string> kernels; // the kernels it launches
  std::string shape;                // prose
  double median_us = 0;
  double min_us = 0;
  double bytes = 0; // fewest bytes the job moves
  double gbps = 0;  // bytes / median
  double pct_of_copy = 0;
  double gflops = 0;  // 0 where arithmetic does not matter
  std::string target; // the target in words, empty when informative only
  std::optional<bool> met;
  std::string note; // how the figure was judged
};

struct LaunchOverhead {
  int launches = 0;
  int rounds = 0;
  double raw_us = 0;     // per launch, raw cuLaunchKernel, median of the rounds
  double checked_us = 0; // per launch, Function::launch_args on the cached function
  double diff_pct = 0;
  bool met = false; // within 10%
};

struct BenchReport {
  std::string device;
  double copy_gbps = 0;
  std::size_t copy_bytes = 0;
  std::vector<BenchResult> results;
  std::optional<LaunchOverhead> overhead;
};

// Every case name with the kernels it launches ("launch_overhead" launches residual_add): the
// pipelines, then every registered kernel's own cases (and their back-to-back twins) in registry
// order, then launch_overhead.
struct BenchCaseInfo {
  std::string name;
  std::vector<std::string> kernels;
};
const std::vector<BenchCaseInfo>& bench_cases();

// Runs the cases whose name or one of whose kernels is in `filter` (all when empty); `log` gets
// one line per case as it finishes.
rt::Expected<BenchReport> run_benchmarks(Session& session, const std::vector<std::string>& filter,
                                         std::ostream& log);

} // namespace ptxkit::cli::device
