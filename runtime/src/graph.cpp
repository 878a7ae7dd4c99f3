// graph.cpp: stream capture into a graph, its instantiation and launch (see graph.h).
//
// The capture is bracketed by an object whose destructor ends it, so that neither an error
// returned by the enqueue function nor an exception thrown through it can leave the stream
// capturing: a stream left capturing would turn every later operation on it into an error.
#include "ptxkit/runtime/graph.h"

#include "capture_p.h"

#include <atomic>
#include <string>
#include <utility>

namespace ptxkit::runtime {

namespace detail {
namespace {
// Global-mode captures in progress in the process, and captures begun on this thread: the
// driver's rule for when a thread may not make a potentially unsafe call.
std::atomic<int> g_global_captures{0};
thread_local int t_captures = 0;
} // namespace

Expected<void> refuse_blocking_call_while_capturing(std::string_view what) {
  if (t_captures == 0 && g_global_captures.load(std::memory_order_acquire) == 0) return {};
  return fail(ErrorKind::kBadArgument,
              std::string(what) +
                  " while a CUDA graph is being captured: a blocking operation is not recorded "
                  "into the graph (it would run once, now, not at each replay), and the driver "
                  "refuses it and invalidates the capture; do it before or after capture()");
}

void CaptureState::note_launch(const std::shared_ptr<const void>& module) {
  ++kernel_launches;
  for (const auto& kept : keep_alive)
    if (kept.get() == module.get()) return;
  keep_alive.push_back(module);
}
} // namespace detail

namespace {

cu::StreamCaptureMode to_cu(CaptureMode mode) {
  return mode == CaptureMode::kGlobal ? cu::StreamCaptureMode::kGlobal
                                      : cu::StreamCaptureMode::kThreadLocal;
}

// A capture begun on a stream: marks it as capturing and counts it until end() (or the
// destructor, when an exception skipped end()) ends it.
class ActiveCapture {
public:
  ActiveCapture(Stream& stream, detail::CaptureState& state, CaptureMode mode)
      : stream_(stream), handle_(stream.handle()), ctx_(detail::StreamAccess::state(stream)),
        mode_(mode) {
    detail::StreamAccess::set_capture(stream_, &state);
    ctx_->captures.fetch_add(1, std::memory_order_acq_rel);
    ++detail::t_captures;
    if (mode_ == CaptureMode::kGlobal)
      detail::g_global_captures.fetch_add(1, std::memory_order_acq_rel);
  }
  ActiveCapture(const ActiveCapture&) = delete;
  ActiveCapture& operator=(const ActiveCapture&) = delete;
  ~ActiveCapture() {
    if (open_) {
      cu::Graph graph = nullptr;
      if (end(&graph) == cu::kSuccess && graph != nullptr) (void)ctx_->driver->graph_destroy(graph);
    }
  }

  // cuStreamEndCapture on the handle the capture began on; clears the marks either way.
  cu::Result end(cu::Graph* graph) {
    open_ = false;
    const cu::Result r = ctx_->driver->stream_end_capture(handle_, graph);
    detail::StreamAccess::set_capture(stream_, nullptr);
    ctx_->captures.fetch_sub(1, std::memory_order_acq_rel);
    --detail::t_captures;
    if (mode_ == CaptureMode::kGlobal)
      detail::g_global_captures.fetch_sub(1, std::memory_order_acq_rel);
    return r;
  }

private:
  Stream& stream_;
  cu::Stream handle_;
  std::shared_ptr<detail::ContextState> ctx_;
  CaptureMode mode_;
  bool open_ = true;
};

} // namespace

Graph::Graph(Graph&& o) noexcept
    : state_(std::move(o.state_)), exec_(std::exchange(o.exec_, nullptr)),
      keep_alive_(std::move(o.keep_alive_)),
      kernel_launches_(std::exchange(o.kernel_launches_, 0)) {}

Graph& Graph::operator=(Graph&& o) noexcept {
  if (this != &o) {
    release();
    state_ = std::move(o.state_);
    exec_ = std::exchange(o.exec_, nullptr);
    keep_alive_ = std::move(o.keep_alive_);
    kernel_launches_ = std::exchange(o.kernel_launches_, 0);
  }
  return *this;
}

Graph::~Graph() {
  release();
}

// The driver frees an executable graph still running on the device when it completes, so this
// need not wait for the replays in flight.
void Graph::release() {
  if (exec_ != nullptr) {
    state_->bind();
    (void)state_->driver->graph_exec_destroy(exec_);
  }
  exec_ = nullptr;
}

Expected<void> Graph::launch(const Stream& stream) const {
  if (exec_ == nullptr)
    return fail(ErrorKind::kBadArgument, "launch of an empty Graph (moved from)");
  return check(*state_->driver, state_->driver->graph_launch(exec_, stream.handle()),
               "cuGraphLaunch");
}

Expected<Graph> capture(Stream& stream, const std::function<Expected<void>(const Stream&)>& enqueue,
                        CaptureMode mode) {
  if (stream.handle() == nullptr)
    return fail(ErrorKind::kBadArgument, "capture on a moved-from Stream");
  if (stream.capturing())
    return fail(ErrorKind::kBadArgument,
                "capture on a stream that is already capturing a CUDA graph: captures on one "
                "stream do not nest");
  const auto& ctx = detail::StreamAccess::state(stream);
  Driver& d = *ctx->driver;
  PTXKIT_RT_TRY(
      check(d, d.stream_begin_capture(stream.handle(), to_cu(mode)), "cuStreamBeginCapture"));

  detail::CaptureState state;
  ActiveCapture active(stream, state, mode);
  Expected<void> enqueued = enqueue(std::as_const(stream));
  cu::Graph graph = nullptr;
  const cu::Result ended = active.end(&graph);
  if (!enqueued) {
    // The enqueue function's own error says what went wrong; whatever the driver recorded
    // until then is discarded.
    if (ended == cu::kSuccess && graph != nullptr) (void)d.graph_destroy(graph);
    return fail(std::move(enqueued).error());
  }
  if (ended != cu::kSuccess) {
    Error e = driver_error(d, ended, "cuStreamEndCapture");
    if (ended == cu::kErrorStreamCaptureInvalidated)
      e.message += ": an operation not permitted during capture was made while it ran (a "
                   "synchronize, a blocking copy, an allocation or free, a query of the "
                   "capturing stream), possibly by another thread or directly through the "
                   "driver";
    return fail(std::move(e));
  }
  cu::GraphExec exec = nullptr;
  const cu::Result r = d.graph_instantiate(&exec, graph, 0);
  // The executable graph is independent of the graph it was made from.
  (void)d.graph_destroy(graph);
  PTXKIT_RT_TRY(check(d, r, "cuGraphInstantiateWithFlags"));
  return Graph(ctx, exec, std::move(state.keep_alive), state.kernel_launches);
}

Expected<cu::StreamCaptureStatus> capture_status(const Stream& stream) {
  cu::StreamCaptureStatus status = cu::StreamCaptureStatus::kNone;
  PTXKIT_RT_TRY(check(stream.driver(),
                      stream.driver().stream_is_capturing(stream.handle(), &status),
                      "cuStreamIsCapturing"));
  return status;
}

} // namespace ptxkit::runtime
