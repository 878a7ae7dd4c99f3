// context.h: RAII owners of the device's primary context, of streams and of events.
//
// A Context retains the device's primary context (the one the CUDA runtime and PyTorch share,
// so ptxkit cooperates with them in one process) and releases it when the last object that
// needs it is gone: streams, events, buffers and modules hold the context's shared state, so
// destroying them in any order is safe.
#pragma once

#include "ptxkit/runtime/device.h"
#include "ptxkit/runtime/driver.h"
#include "ptxkit/runtime/error.h"

#include <atomic>
#include <memory>

namespace ptxkit::runtime {

// The oldest driver the runtime accepts (CUDA 12.0): every entry point it uses exists there.
inline constexpr int kMinimumDriverVersion = 12000;

namespace detail {
struct CaptureState;
struct StreamAccess;

// Shared by a Context and everything made from it; releases the primary context last.
struct ContextState {
  std::shared_ptr<Driver> driver;
  cu::Device device = 0;
  cu::Context context = nullptr;
  DeviceInfo info;
  // Graph captures (graph.h) in progress on this context's streams: a context-wide
  // synchronize is not permitted while any runs.
  std::atomic<int> captures{0};
  ContextState() = default;
  ContextState(const ContextState&) = delete;
  ContextState& operator=(const ContextState&) = delete;
  ~ContextState();
  // Makes the context current on the calling thread before an object is destroyed there: the
  // last owner of a buffer, stream or module may be a thread that never used the context.
  void bind() const {
    if (context != nullptr) (void)driver->ctx_set_current(context);
  }
};
} // namespace detail

class Context {
public:
  // cuInit, checks the driver version and device ordinal, reads the device's limits, retains the
  // primary context and makes it current on this thread. No device / no driver / a driver too
  // old are errors of the "unavailable" kinds (Error::is_unavailable()).
  static Expected<Context> open(std::shared_ptr<Driver> driver, int ordinal = 0);
  // load_cuda_driver() then open().
  static Expected<Context> open_default(int ordinal = 0);

  const DeviceInfo& device() const { return state_->info; }
  Driver& driver() const { return *state_->driver; }
  cu::Context handle() const { return state_->context; }

  // Makes this context current on the calling thread (each thread that uses it must).
  Expected<void> make_current() const;
  // cuCtxSynchronize; refused while a stream of this context is capturing a graph (graph.h),
  // since the driver would invalidate the capture.
  Expected<void> synchronize() const;

  const std::shared_ptr<detail::ContextState>& state() const { return state_; }

private:
  explicit Context(std::shared_ptr<detail::ContextState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::ContextState> state_;
};

class Stream {
public:
  // A new non-blocking stream (it does not synchronize with the legacy default stream).
  static Expected<Stream> create(const Context& ctx);
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();

  cu::Stream handle() const { return stream_; }
  Driver& driver() const { return *state_->driver; }
  // cuStreamSynchronize; refused while the stream is capturing a graph (graph.h): the captured
  // work has not run, and the driver would invalidate the capture.
  Expected<void> synchronize() const;
  // True while capture() (graph.h) records this stream's work into a graph. A capture begun
  // with the driver directly is not seen here (capture_status() asks the driver).
  bool capturing() const { return capture_ != nullptr; }

private:
  friend struct detail::StreamAccess;
  Stream(std::shared_ptr<detail::ContextState> s, cu::Stream h)
      : state_(std::move(s)), stream_(h) {}
  std::shared_ptr<detail::ContextState> state_;
  cu::Stream stream_ = nullptr;
  detail::CaptureState* capture_ = nullptr; // the capture in progress (owned by capture())
};

class Event {
public:
  static Expected<Event> create(const Context& ctx);
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();

  cu::Event handle() const { return event_; }
  // Recording on a capturing stream is legal (it becomes part of the graph), but such an event
  // has no completion to wait for or time: synchronize() and elapsed_ms() then refuse it, as
  // the driver would (CUDA_ERROR_CAPTURED_EVENT), until it is recorded outside a capture.
  Expected<void> record(const Stream& stream);
  Expected<void> synchronize() const;
  // Milliseconds between two recorded events (cuEventElapsedTime); `end` must have completed.
  static Expected<float> elapsed_ms(const Event& start, const Event& end);

private:
  Event(std::shared_ptr<detail::ContextState> s, cu::Event h) : state_(std::move(s)), event_(h) {}
  std::shared_ptr<detail::ContextState> state_;
  cu::Event event_ = nullptr;
  bool captured_ = false; // last recorded on a capturing stream
};

} // namespace ptxkit::runtime
