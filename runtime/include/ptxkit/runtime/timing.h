// timing.h: timing launches with CUDA events, and the device-to-device copy bandwidth baseline.
//
// `ptxkit bench` and the performance targets compare each kernel's achieved bandwidth with the
// device's measured copy bandwidth, timed the same way: events on the stream around the work,
// warm-up runs first, the median of many samples. A sample may hold several back-to-back
// launches, which amortizes the events' resolution for kernels of a few microseconds.
#pragma once

#include "ptxkit/runtime/context.h"

#include <cstddef>
#include <functional>
#include <vector>

namespace ptxkit::runtime {

struct TimingOptions {
  int warmup = 10;                // untimed runs first
  int iterations = 100;           // timed samples
  int launches_per_sample = 1;    // back-to-back runs between one pair of events
  std::size_t l2_flush_bytes = 0; // > 0: before each sample (untimed) overwrite a buffer this
                                  // large, so every sample starts with a cold L2. The L2 is
                                  // write-back: the flush leaves it full of dirty lines, which
                                  // the timed work then pays to write back (see before_sample)
  // Enqueued on the stream before each sample's start event (after the flush), untimed: e.g. a
  // read-only pass over a buffer larger than the L2, which leaves it cold *and clean*, as a
  // kernel that follows other kernels' reads finds it.
  std::function<Expected<void>()> before_sample;
};

struct Timing {
  std::vector<double> samples_us; // per launch, in sample order
  double median_us = 0;
  double min_us = 0;
  double mean_us = 0;
};

// Runs `launch` warmup times, then `iterations` samples of `launches_per_sample` runs each between
// two events recorded on `stream`. `launch` must enqueue its work on `stream`.
Expected<Timing> time_on_stream(const Context& ctx, const Stream& stream,
                                const std::function<Expected<void>()>& launch,
                                const TimingOptions& options = {});

// GB/s for `bytes` moved in `us` microseconds (1 GB = 1e9 bytes).
inline double gigabytes_per_second(double bytes, double us) {
  return us > 0 ? bytes / (us * 1e3) : 0;
}

struct CopyBandwidth {
  std::size_t bytes = 0; // size of the copy; it reads and writes this many bytes each
  Timing timing;
  double gbps = 0; // (bytes read + bytes written) / median time
};

// cuMemcpyDtoDAsync of `bytes` between two fresh buffers, timed as above.
Expected<CopyBandwidth> measure_copy_bandwidth(const Context& ctx, const Stream& stream,
                                               std::size_t bytes,
                                               const TimingOptions& options = {});

} // namespace ptxkit::runtime
