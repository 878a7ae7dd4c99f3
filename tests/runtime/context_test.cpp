// context_test.cpp: opening a device, the "unavailable" refusals, and RAII of streams, events
// and buffers, against the fake driver.
//
// The CLI's exit code 3 rests on Context::open classifying "no driver / no device / driver too
// old" correctly; the RAII types must release every driver object exactly once, in any order.
#include "fake_driver.h"
#include "ptxkit/runtime/buffer.h"
#include "ptxkit/runtime/context.h"

#include <cmath>
#include <gtest/gtest.h>
#include <memory>
#include <thread>
#include <vector>

namespace ptxkit::runtime {
namespace {

using testing::FakeDriver;

TEST(ContextOpen, ReadsTheDeviceLimitsAndRetainsThePrimaryContext) {
  auto fake = std::make_shared<FakeDriver>();
  {
    auto ctx = Context::open(fake);
    ASSERT_TRUE(ctx) << ctx.error().message;
    const DeviceInfo& d = ctx->device();
    EXPECT_EQ(d.name, "Fake H200");
    EXPECT_EQ(d.cc, (ComputeCapability{9, 0}));
    EXPECT_EQ(d.driver_version, 13000);
    EXPECT_EQ(d.max_threads_per_block, 1024u);
    EXPECT_EQ(d.max_block, (Dim3{1024, 1024, 64}));
    EXPECT_EQ(d.max_grid, (Dim3{2147483647u, 65535, 65535}));
    EXPECT_EQ(d.max_shared_per_block, 49152u);
    EXPECT_EQ(d.max_shared_per_block_optin, 232448u);
    EXPECT_EQ(d.multiprocessors, 132u);
    EXPECT_EQ(fake->retains, 1);
    EXPECT_EQ(fake->releases, 0);
  }
  EXPECT_EQ(fake->releases, 1);
}

TEST(ContextOpen, NoDeviceFromCuInitIsUnavailable) {
  auto fake = std::make_shared<FakeDriver>();
  fake->fail_next("cuInit", cu::kErrorNoDevice);
  auto ctx = Context::open(fake);
  ASSERT_FALSE(ctx);
  EXPECT_EQ(ctx.error().kind, ErrorKind::kNoDevice);
  EXPECT_TRUE(ctx.error().is_unavailable());
  EXPECT_EQ(ctx.error().message,
            "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected): no CUDA "
            "device is visible to this process");
}

TEST(ContextOpen, ZeroDevicesAndBadOrdinalsAreNoDevice) {
  auto fake = std::make_shared<FakeDriver>();
  fake->device_count = 0;
  auto none = Context::open(fake);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, ErrorKind::kNoDevice);
  EXPECT_EQ(none.error().message, "the NVIDIA driver (CUDA 13.0) sees no CUDA device");

  fake->device_count = 1;
  auto second = Context::open(fake, 1);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().kind, ErrorKind::kNoDevice);
  EXPECT_EQ(second.error().message, "CUDA device 1 was asked for, but the driver sees 1 device(s)");
  EXPECT_EQ(fake->retains, 0);
}

TEST(ContextOpen, OldDriversAreDriverTooOld) {
  auto fake = std::make_shared<FakeDriver>();
  fake->driver_version = 11080;
  auto ctx = Context::open(fake);
  ASSERT_FALSE(ctx);
  EXPECT_EQ(ctx.error().kind, ErrorKind::kDriverTooOld);
  EXPECT_EQ(ctx.error().message,
            "the NVIDIA driver supports CUDA 11.8, but ptxkit needs a driver for CUDA 12.0 or "
            "newer");

  auto fake2 = std::make_shared<FakeDriver>();
  fake2->fail_next("cuInit", cu::kErrorCallRequiresNewerDriver);
  auto ctx2 = Context::open(fake2);
  ASSERT_FALSE(ctx2);
  EXPECT_EQ(ctx2.error().kind, ErrorKind::kDriverTooOld);
}

TEST(ContextOpen, OtherFailuresAreDriverErrorsNamingTheCall) {
  auto fake = std::make_shared<FakeDriver>();
  fake->fail_next("cuDevicePrimaryCtxRetain", cu::kErrorOutOfMemory);
  auto ctx = Context::open(fake);
  ASSERT_FALSE(ctx);
  EXPECT_EQ(ctx.error().kind, ErrorKind::kDriver);
  EXPECT_FALSE(ctx.error().is_unavailable());
  EXPECT_EQ(ctx.error().message,
            "cuDevicePrimaryCtxRetain failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
}

TEST(ContextObjects, StreamsAndEventsAreDestroyedOnceAndKeepTheContextAlive) {
  auto fake = std::make_shared<FakeDriver>();
  std::optional<Stream> stream;
  std::optional<Event> start;
  std::optional<Event> stop;
  {
    auto ctx = Context::open(fake);
    ASSERT_TRUE(ctx);
    auto s = Stream::create(*ctx);
    ASSERT_TRUE(s);
    stream.emplace(std::move(*s));
    auto a = Event::create(*ctx);
    auto b = Event::create(*ctx);
    ASSERT_TRUE(a && b);
    start.emplace(std::move(*a));
    stop.emplace(std::move(*b));
  }
  EXPECT_EQ(fake->releases, 0); // still held by the stream and events
  EXPECT_EQ(fake->live_streams, 1);
  EXPECT_EQ(fake->live_events, 2);
  ASSERT_TRUE(start->record(*stream));
  ASSERT_TRUE(stop->record(*stream));
  ASSERT_TRUE(stop->synchronize());
  auto ms = Event::elapsed_ms(*start, *stop);
  ASSERT_TRUE(ms);
  EXPECT_FLOAT_EQ(*ms, 1.5f);
  Stream moved = std::move(*stream);
  stream.reset();
  EXPECT_EQ(fake->live_streams, 1);
  ASSERT_TRUE(moved.synchronize());
  start.reset();
  stop.reset();
  EXPECT_EQ(fake->live_events, 0);
  EXPECT_EQ(fake->releases, 0);
  { Stream gone = std::move(moved); }
  EXPECT_EQ(fake->live_streams, 0);
  EXPECT_EQ(fake->releases, 1);
}

TEST(DeviceBuffers, RoundTripFillAndCopy) {
  auto fake = std::make_shared<FakeDriver>();
  auto ctx = Context::open(fake);
  ASSERT_TRUE(ctx);
  const std::vector<float> host{1.0f, 2.0f, 3.0f, 4.0f};
  auto a = DeviceBuffer<float>::from_host(*ctx, host);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->size(), 4u);
  EXPECT_EQ(a->bytes(), 16u);
  auto b = DeviceBuffer<float>::allocate(*ctx, 4);
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->fill_bytes(0xFF));
  std::vector<float> back(4, 0.0f);
  ASSERT_TRUE(b->download(back));
  EXPECT_TRUE(std::isnan(back[0]) && std::isnan(back[3])); // poisoned
  ASSERT_TRUE(b->copy_from(*a));
  ASSERT_TRUE(b->download(back));
  EXPECT_EQ(back, host);
  ASSERT_TRUE(b->fill_u32(0x40000000u)); // 2.0f
  ASSERT_TRUE(b->download(back));
  EXPECT_EQ(back, std::vector<float>(4, 2.0f));
  EXPECT_EQ(fake->live_allocations(), 2u);
  a = fail(ErrorKind::kBadArgument, "drop"); // destroys the first buffer
  EXPECT_EQ(fake->live_allocations(), 1u);
}

TEST(DeviceBuffers, ALastOwnerOnAnotherThreadBindsTheContextBeforeFreeing) {
  auto fake = std::make_shared<FakeDriver>();
  auto ctx = Context::open(fake);
  ASSERT_TRUE(ctx);
  auto buf = DeviceBuffer<float>::allocate(*ctx, 16);
  ASSERT_TRUE(buf);
  const int before = fake->set_current_calls;
  std::thread([b = std::move(*buf)]() mutable { auto gone = std::move(b); }).join();
  EXPECT_EQ(fake->live_allocations(), 0u);
  EXPECT_EQ(fake->set_current_calls, before + 1);
}

TEST(DeviceBuffers, SizeMismatchesAndDriverFailuresAreErrors) {
  auto fake = std::make_shared<FakeDriver>();
  auto ctx = Context::open(fake);
  ASSERT_TRUE(ctx);
  auto buf = DeviceBuffer<int>::allocate(*ctx, 8);
  ASSERT_TRUE(buf);
  std::vector<int> small(3);
  const auto r = buf->download(small);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kBadArgument);
  EXPECT_EQ(r.error().message, "download of 3 elements into a device buffer of 8");

  fake->fail_next("cuMemAlloc", cu::kErrorOutOfMemory);
  auto big = DeviceBuffer<double>::allocate(*ctx, 1000);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message,
            "cuMemAlloc(8000 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  EXPECT_EQ(big.error().cu_name, "CUDA_ERROR_OUT_OF_MEMORY");

  auto empty = DeviceBuffer<float>::allocate(*ctx, 0); // legal, owns no allocation
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->device_ptr(), 0u);
  EXPECT_TRUE(empty->upload({}));
}

} // namespace
} // namespace ptxkit::runtime
