// bench_case.h: a kernel's own benchmark cases, which `ptxkit bench` times with no list of its own.
//
// A case is one kernel at one large shape, one launch per timed sample (optionally also back to
// back over rotating copies of its buffers), its outputs then checked against the CPU reference.
// Everything the bench needs is data here, so a kernel defined outside this repository is timed
// the same way as a built-in one. Pipelines of several kernels are not cases of one kernel.
#pragma once

#include <functional>
#include <optional>
#include <ptxkit/kernels/host_tensors.h>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

// A performance target; every bound that is set must hold. The copy bandwidth is the measured
// device-to-device copy (bytes read + written) of the same run.
struct BenchTarget {
  double max_us = 0;            // median time at most this; 0: no time bound
  double min_pct_of_copy = 0;   // achieved GB/s at least this % of the copy's; 0: no such bound
  std::string_view qualifier{}; // appended to the words, e.g. "on the weight bytes"

  // The target in words, as printed: "<= 125 us and >= 90% of copy bandwidth (qualifier)".
  [[nodiscard]] std::string text() const;
  [[nodiscard]] bool met(double median_us, double pct_of_copy) const;
};

struct BenchCase {
  std::string name{};   // unique over every kernel's cases, e.g. "rmsnorm_65536x896"
  std::string config{}; // the reference config tag the case starts from; empty: the defaults
  std::vector<std::string> sets{};     // FIELD=VALUE applied on top, as `--set` takes them
  std::string shape{};                 // prose for the table, e.g. "65536 x 896 f32"
  std::optional<BenchTarget> target{}; // none: informative only
  // Bytes the job must move, for GB/s; 0: each distinct buffer once (inputs read, outputs
  // written). Set it where the kernel reads only part of a buffer (a gather) or where only some
  // buffers matter (a GEMV's weights).
  double bytes = 0;
  double flops = 0; // arithmetic per launch, for GFLOP/s; 0: not reported
  // Applied to the generated inputs before the launch (e.g. every sequence at full length).
  std::function<void(HostTensors&)> adjust_inputs{};
  // Also timed as "<name>_back_to_back": launches back to back over as many copies of the buffers
  // as take twice the L2 (`bytes` per copy), each finding its data cold, the launch latency
  // overlapped as in a model's decode step.
  bool back_to_back = false;
};

} // namespace ptxkit::kernels
