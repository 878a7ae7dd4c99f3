// context.cpp: opening a device (driver checks, limits, primary context), streams and events.
//
// Context::open is where "is there a usable GPU here?" is answered, once, with an error kind the
// CLI maps to exit code 3 and a message that says which of driver, device or version is missing.
#include "ptxkit/runtime/context.h"

#include <array>
#include <string>
#include <utility>

namespace ptxkit::runtime {

std::string Dim3::str() const {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

namespace detail {
ContextState::~ContextState() {
  if (context != nullptr) (void)driver->primary_ctx_release(device);
}
} // namespace detail

namespace {

Expected<std::uint32_t> attribute(Driver& d, cu::DeviceAttribute a, cu::Device dev,
                                  const char* what) {
  int v = 0;
  PTXKIT_RT_TRY(check(d, d.device_get_attribute(&v, a, dev),
                      std::string("cuDeviceGetAttribute(") + what + ")"));
  return static_cast<std::uint32_t>(v < 0 ? 0 : v);
}

Expected<DeviceInfo> read_device_info(Driver& d, cu::Device dev, int ordinal, int version) {
  DeviceInfo info;
  info.ordinal = ordinal;
  info.driver_version = version;
  std::array<char, 256> name{};
  PTXKIT_RT_TRY(check(d, d.device_get_name(name.data(), static_cast<int>(name.size()), dev),
                      "cuDeviceGetName"));
  name.back() = '\0';
  info.name = name.data();

  struct Field {
    cu::DeviceAttribute attr;
    const char* what;
    std::uint32_t* out;
  };
  std::uint32_t cc_major = 0;
  std::uint32_t cc_minor = 0;
  const std::array<Field, 17> fields{{
      {cu::DeviceAttribute::kComputeCapabilityMajor, "compute capability major", &cc_major},
      {cu::DeviceAttribute::kComputeCapabilityMinor, "compute capability minor", &cc_minor},
      {cu::DeviceAttribute::kMaxThreadsPerBlock, "max threads per block",
       &info.max_threads_per_block},
      {cu::DeviceAttribute::kMaxBlockDimX, "max block x", &info.max_block.x},
      {cu::DeviceAttribute::kMaxBlockDimY, "max block y", &info.max_block.y},
      {cu::DeviceAttribute::kMaxBlockDimZ, "max block z", &info.max_block.z},
      {cu::DeviceAttribute::kMaxGridDimX, "max grid x", &info.max_grid.x},
      {cu::DeviceAttribute::kMaxGridDimY, "max grid y", &info.max_grid.y},
      {cu::DeviceAttribute::kMaxGridDimZ, "max grid z", &info.max_grid.z},
      {cu::DeviceAttribute::kMaxSharedMemoryPerBlock, "max shared memory per block",
       &info.max_shared_per_block},
      {cu::DeviceAttribute::kMaxSharedMemoryPerBlockOptin, "max shared memory per block opt-in",
       &info.max_shared_per_block_optin},
      {cu::DeviceAttribute::kWarpSize, "warp size", &info.warp_size},
      {cu::DeviceAttribute::kMultiprocessorCount, "multiprocessor count", &info.multiprocessors},
      {cu::DeviceAttribute::kL2CacheSize, "L2 cache size", &info.l2_bytes},
      {cu::DeviceAttribute::kMemoryClockRate, "memory clock rate", &info.memory_clock_khz},
      {cu::DeviceAttribute::kGlobalMemoryBusWidth, "memory bus width", &info.memory_bus_bits},
      {cu::DeviceAttribute::kClockRate, "clock rate", &info.clock_khz},
  }};
  for (const auto& f : fields) {
    auto v = attribute(d, f.attr, dev, f.what);
    if (!v) return fail(std::move(v).error());
    *f.out = *v;
  }
  info.cc = {static_cast<int>(cc_major), static_cast<int>(cc_minor)};
  if (info.max_shared_per_block_optin < info.max_shared_per_block)
    info.max_shared_per_block_optin = info.max_shared_per_block;
  return info;
}

} // namespace

Expected<Context> Context::open(std::shared_ptr<Driver> driver, int ordinal) {
  Driver& d = *driver;
  PTXKIT_RT_TRY(check(d, d.init(0), "cuInit"));
  int version = 0;
  PTXKIT_RT_TRY(check(d, d.driver_get_version(&version), "cuDriverGetVersion"));
  if (version < kMinimumDriverVersion)
    return fail(ErrorKind::kDriverTooOld,
                "the NVIDIA driver supports CUDA " + driver_version_string(version) +
                    ", but ptxkit needs a driver for CUDA " +
                    driver_version_string(kMinimumDriverVersion) + " or newer");
  int count = 0;
  PTXKIT_RT_TRY(check(d, d.device_get_count(&count), "cuDeviceGetCount"));
  if (count <= 0)
    return fail(ErrorKind::kNoDevice, "the NVIDIA driver (CUDA " + driver_version_string(version) +
                                          ") sees no CUDA device");
  if (ordinal < 0 || ordinal >= count)
    return fail(ErrorKind::kNoDevice, "CUDA device " + std::to_string(ordinal) +
                                          " was asked for, but the driver sees " +
                                          std::to_string(count) + " device(s)");
  auto state = std::make_shared<detail::ContextState>();
  state->driver = std::move(driver);
  PTXKIT_RT_TRY(check(d, d.device_get(&state->device, ordinal), "cuDeviceGet"));
  auto info = read_device_info(d, state->device, ordinal, version);
  if (!info) return fail(std::move(info).error());
  state->info = std::move(*info);
  cu::Context ctx = nullptr;
  PTXKIT_RT_TRY(check(d, d.primary_ctx_retain(&ctx, state->device), "cuDevicePrimaryCtxRetain"));
  state->context = ctx; // from here on ~ContextState releases it
  PTXKIT_RT_TRY(check(d, d.ctx_set_current(ctx), "cuCtxSetCurrent"));
  return Context(std::move(state));
}

Expected<Context> Context::open_default(int ordinal) {
  auto driver = load_cuda_driver();
  if (!driver) return fail(std::move(driver).error());
  return open(std::move(*driver), ordinal);
}

Expected<void> Context::make_current() const {
  return check(driver(), driver().ctx_set_current(state_->context), "cuCtxSetCurrent");
}

Expected<void> Context::synchronize() const {
  if (state_->captures.load(std::memory_order_acquire) > 0)
    return fail(ErrorKind::kBadArgument,
                "Context::synchronize while a stream of the context is capturing a CUDA graph: "
                "the driver refuses it and invalidates the capture; synchronize after capture() "
                "returns");
  return check(driver(), driver().ctx_synchronize(), "cuCtxSynchronize");
}

// ---- Stream ----

Expected<Stream> Stream::create(const Context& ctx) {
  constexpr unsigned kNonBlocking = 1; // CU_STREAM_NON_BLOCKING
  cu::Stream s = nullptr;
  PTXKIT_RT_TRY(
      check(ctx.driver(), ctx.driver().stream_create(&s, kNonBlocking), "cuStreamCreate"));
  return Stream(ctx.state(), s);
}

// A move does not carry a capture in progress along: capture() ends it on the handle it began
// with and clears the flag of the object it was given.
Stream::Stream(Stream&& o) noexcept
    : state_(std::move(o.state_)), stream_(std::exchange(o.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (stream_ != nullptr) {
      state_->bind();
      (void)state_->driver->stream_destroy(stream_);
    }
    state_ = std::move(o.state_);
    stream_ = std::exchange(o.stream_, nullptr);
  }
  return *this;
}

Stream::~Stream() {
  if (stream_ != nullptr) {
    state_->bind();
    (void)state_->driver->stream_destroy(stream_);
  }
}

Expected<void> Stream::synchronize() const {
  if (capture_ != nullptr)
    return fail(ErrorKind::kBadArgument,
                "Stream::synchronize on a stream that is capturing a CUDA graph: the captured "
                "work has not run (it runs when the graph is launched), and the driver refuses "
                "the call and invalidates the capture; synchronize after capture() returns");
  return check(*state_->driver, state_->driver->stream_synchronize(stream_), "cuStreamSynchronize");
}

// ---- Event ----

Expected<Event> Event::create(const Context& ctx) {
  cu::Event e = nullptr;
  PTXKIT_RT_TRY(check(ctx.driver(), ctx.driver().event_create(&e, 0), "cuEventCreate"));
  return Event(ctx.state(), e);
}

Event::Event(Event&& o) noexcept
    : state_(std::move(o.state_)), event_(std::exchange(o.event_, nullptr)),
      captured_(std::exchange(o.captured_, false)) {}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    if (event_ != nullptr) {
      state_->bind();
      (void)state_->driver->event_destroy(event_);
    }
    state_ = std::move(o.state_);
    event_ = std::exchange(o.event_, nullptr);
    captured_ = std::exchange(o.captured_, false);
  }
  return *this;
}

Event::~Event() {
  if (event_ != nullptr) {
    state_->bind();
    (void)state_->driver->event_destroy(event_);
  }
}

Expected<void> Event::record(const Stream& stream) {
  PTXKIT_RT_TRY(check(*state_->driver, state_->driver->event_record(event_, stream.handle()),
                      "cuEventRecord"));
  captured_ = stream.capturing();
  return {};
}

namespace {
Unexpected refuse_captured(const char* what) {
  return fail(ErrorKind::kBadArgument,
              std::string(what) +
                  " of an event last recorded on a stream capturing a CUDA graph: it marks a "
                  "point in the graph, not work that has run; record it outside the capture");
}
} // namespace

Expected<void> Event::synchronize() const {
  if (captured_) return refuse_captured("Event::synchronize");
  return check(*state_->driver, state_->driver->event_synchronize(event_), "cuEventSynchronize");
}

Expected<float> Event::elapsed_ms(const Event& start, const Event& end) {
  if (start.captured_ || end.captured_) return refuse_captured("Event::elapsed_ms");
  float ms = 0.0f;
  PTXKIT_RT_TRY(check(*start.state_->driver,
                      start.state_->driver->event_elapsed_time(&ms, start.event_, end.event_),
                      "cuEventElapsedTime"));
  return ms;
}

} // namespace ptxkit::runtime
