// timing_test.cpp: event timing and the copy-bandwidth baseline, against the fake driver.
//
// The fake answers cuEventElapsedTime from a script, so the medians, the per-launch division
// and the bandwidth arithmetic are checked exactly; the counts prove warm-up runs are untimed
// and that the L2 flush runs once per sample.
#include "fake_driver.h"
#include "ptxkit/runtime/timing.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ptxkit::runtime {
namespace {

using testing::FakeDriver;

TEST(Timing, MedianOfSamplesPerLaunchAfterWarmup) {
  auto fake = std::make_shared<FakeDriver>();
  auto ctx = Context::open(fake);
  ASSERT_TRUE(ctx);
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(stream);
  fake->elapsed_ms_sequence = {0.010f, 0.002f, 0.006f, 0.004f, 0.008f};
  int runs = 0;
  TimingOptions o;
  o.warmup = 3;
  o.iterations = 5;
  o.launches_per_sample = 2;
  o.l2_flush_bytes = 4096;
  auto t = time_on_stream(
      *ctx, *stream,
      [&]() -> Expected<void> {
        ++runs;
        return {};
      },
      o);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(runs, 3 + 5 * 2);
  ASSERT_EQ(t->samples_us.size(), 5u);
  EXPECT_NEAR(t->samples_us[0], 5.0, 1e-4); // 10 us for two launches
  EXPECT_NEAR(t->median_us, 3.0, 1e-4);
  EXPECT_NEAR(t->min_us, 1.0, 1e-4);
  EXPECT_NEAR(t->mean_us, 3.0, 1e-4);
  EXPECT_EQ(fake->async_memsets, 5);
  EXPECT_EQ(fake->event_records, 10);
}

TEST(Timing, BeforeSampleRunsOncePerSampleAfterTheFlushAndBeforeTheStartEvent) {
  auto fake = std::make_shared<FakeDriver>();
  auto ctx = Context::open(fake);
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(ctx && stream);
  fake->elapsed_ms_sequence = {0.004f};
  TimingOptions o;
  o.warmup = 2;
  o.iterations = 4;
  o.l2_flush_bytes = 4096;
  std::vector<std::string> order;
  o.before_sample = [&]() -> Expected<void> {
    order.push_back("before(memsets=" + std::to_string(fake->async_memsets) +
                    ",events=" + std::to_string(fake->event_records) + ")");
    return {};
  };
  auto t = time_on_stream(
      *ctx, *stream,
      [&]() -> Expected<void> {
        order.push_back("launch");
        return {};
      },
      o);
  ASSERT_TRUE(t) << t.error().message;
  // Not before the warm-up runs; in each sample after that sample's flush, before its events.
  const std::vector<std::string> want = {"launch",
                                         "launch",
                                         "before(memsets=1,events=0)",
                                         "launch",
                                         "before(memsets=2,events=2)",
                                         "launch",
                                         "before(memsets=3,events=4)",
                                         "launch",
                                         "before(memsets=4,events=6)",
                                         "launch"};
  EXPECT_EQ(order, want);

  // Its failure is the timing's failure, and nothing is timed after it.
  o.before_sample = []() -> Expected<void> {
    return fail(ErrorKind::kBadLaunch, "flush kernel: refused");
  };
  auto failed = time_on_stream(
      *ctx, *stream, []() -> Expected<void> { return {}; }, o);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "flush kernel: refused");
}

TEST(Timing, LaunchFailuresAndBadOptionsAreErrors) {
  auto fake = std::make_shared<FakeDriver>();
  auto ctx = Context::open(fake);
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(ctx && stream);
  auto failing = time_on_stream(*ctx, *stream, []() -> Expected<void> {
    return fail(ErrorKind::kBadLaunch, "launch of k: nope");
  });
  ASSERT_FALSE(failing);
  EXPECT_EQ(failing.error().message, "launch of k: nope");
  TimingOptions none;
  none.iterations = 0;
  auto bad = time_on_stream(
      *ctx, *stream, []() -> Expected<void> { return {}; }, none);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kBadArgument);
}

TEST(Timing, CopyBandwidthCountsBytesReadAndWritten) {
  auto fake = std::make_shared<FakeDriver>();
  auto ctx = Context::open(fake);
  auto stream = Stream::create(*ctx);
  ASSERT_TRUE(ctx && stream);
  fake->elapsed_ms_sequence = {0.5f};
  TimingOptions o;
  o.warmup = 1;
  o.iterations = 3;
  auto bw = measure_copy_bandwidth(*ctx, *stream, 1 << 20, o);
  ASSERT_TRUE(bw) << bw.error().message;
  EXPECT_EQ(fake->async_copies, 4);
  EXPECT_NEAR(bw->timing.median_us, 500.0, 1e-3);
  EXPECT_NEAR(bw->gbps, 2.0 * (1 << 20) / 500e3, 1e-6); // 4.194 GB/s
  EXPECT_EQ(fake->live_allocations(), 0u);              // both buffers freed
  EXPECT_DOUBLE_EQ(gigabytes_per_second(4.15e12 * 1e-6, 1.0), 4150.0);
}

} // namespace
} // namespace ptxkit::runtime
