// timing.cpp: event-timed samples and the copy-bandwidth baseline (see timing.h).
//
// Each sample is bracketed by its own event pair and synchronized before the next, so samples
// never overlap and an L2 flush (when asked for) runs before the start event, outside the time.
#include "ptxkit/runtime/timing.h"

#include "ptxkit/runtime/buffer.h"

#include <algorithm>
#include <numeric>

namespace ptxkit::runtime {

Expected<Timing> time_on_stream(const Context& ctx, const Stream& stream,
                                const std::function<Expected<void>()>& launch,
                                const TimingOptions& options) {
  if (options.iterations < 1 || options.launches_per_sample < 1 || options.warmup < 0)
    return fail(ErrorKind::kBadArgument,
                "timing needs iterations >= 1, launches_per_sample >= 1 and warmup >= 0");
  Driver& d = ctx.driver();
  auto start = Event::create(ctx);
  if (!start) return fail(std::move(start).error());
  auto stop = Event::create(ctx);
  if (!stop) return fail(std::move(stop).error());
  std::optional<DeviceBuffer<unsigned char>> flush;
  if (options.l2_flush_bytes > 0) {
    auto f = DeviceBuffer<unsigned char>::allocate(ctx, options.l2_flush_bytes);
    if (!f) return fail(std::move(f).error());
    flush.emplace(std::move(*f));
  }

  for (int i = 0; i < options.warmup; ++i)
    PTXKIT_RT_TRY(launch());
  PTXKIT_RT_TRY(stream.synchronize());

  Timing t;
  t.samples_us.reserve(static_cast<std::size_t>(options.iterations));
  for (int s = 0; s < options.iterations; ++s) {
    if (flush) {
      PTXKIT_RT_TRY(check(d,
                          d.memset_d8_async(flush->device_ptr(), static_cast<unsigned char>(s),
                                            flush->bytes(), stream.handle()),
                          "cuMemsetD8Async"));
    }
    if (options.before_sample) PTXKIT_RT_TRY(options.before_sample());
    PTXKIT_RT_TRY(start->record(stream));
    for (int i = 0; i < options.launches_per_sample; ++i)
      PTXKIT_RT_TRY(launch());
    PTXKIT_RT_TRY(stop->record(stream));
    PTXKIT_RT_TRY(stop->synchronize());
    auto ms = Event::elapsed_ms(*start, *stop);
    if (!ms) return fail(std::move(ms).error());
    t.samples_us.push_back(static_cast<double>(*ms) * 1e3 / options.launches_per_sample);
  }
  std::vector<double> sorted = t.samples_us;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  t.median_us = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  t.min_us = sorted.front();
  t.mean_us = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  return t;
}

Expected<CopyBandwidth> measure_copy_bandwidth(const Context& ctx, const Stream& stream,
                                               std::size_t bytes, const TimingOptions& options) {
  if (bytes == 0) return fail(ErrorKind::kBadArgument, "copy bandwidth of 0 bytes");
  auto src = DeviceBuffer<unsigned char>::allocate(ctx, bytes);
  if (!src) return fail(std::move(src).error());
  auto dst = DeviceBuffer<unsigned char>::allocate(ctx, bytes);
  if (!dst) return fail(std::move(dst).error());
  PTXKIT_RT_TRY(src->fill_bytes(0x5A));
  Driver& d = ctx.driver();
  auto timing = time_on_stream(
      ctx, stream,
      [&]() -> Expected<void> {
        return check(
            d, d.memcpy_dtod_async(dst->device_ptr(), src->device_ptr(), bytes, stream.handle()),
            "cuMemcpyDtoDAsync");
      },
      options);
  if (!timing) return fail(std::move(timing).error());
  CopyBandwidth bw;
  bw.bytes = bytes;
  bw.timing = std::move(*timing);
  bw.gbps = gigabytes_per_second(2.0 * static_cast<double>(bytes), bw.timing.median_us);
  return bw;
}

} // namespace ptxkit::runtime
