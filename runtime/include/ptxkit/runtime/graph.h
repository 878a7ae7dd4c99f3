// graph.h: CUDA graphs: record a stream's work once, replay all of it with one launch.
//
// A decoder step is dozens of kernel launches whose shapes and buffers never change from one
// token to the next; launched one by one, each costs a few microseconds of host work. capture()
// runs a function that enqueues the step on a stream while the driver records it into a graph
// instead of running it (stream capture), and instantiates that graph; Graph::launch then
// replays every recorded operation, in order, with one cuGraphLaunch and no per-kernel host
// work.
//
//   auto step = capture(stream, [&](const Stream& s) -> Expected<void> {
//     PTXKIT_RT_TRY(rmsnorm.launch(s, norm_dims, x, gamma, y));
//     return matmul.launch(s, mm_dims, y, w, out);      // checked launches, as outside a capture
//   });
//   for (...) step->launch(stream);                      // the whole step, one call
//
// What a replay does is fixed at capture: each launch's grid, block and argument *values* were
// copied when it was captured. A buffer passed to a captured launch is its device address, so
// the buffer must outlive the graph and the graph sees whatever it holds when it runs; a scalar
// that changes per step (a position, a length) must be read by the kernels from device memory,
// not passed by value. The modules of the kernels launched through Function stay loaded while
// the graph exists.
//
// While a stream captures, nothing enqueued on it runs, so calls that wait for work or act at
// once are errors: the runtime refuses, before the driver sees them (which would invalidate the
// capture), Stream::synchronize of the capturing stream, Context::synchronize, Event::synchronize
// and elapsed_ms of an event recorded in the capture, and every blocking DeviceBuffer operation
// (allocate, upload, download, copy_from, fill_*: they would run once, now, not at each replay).
// Destroying a DeviceBuffer inside the enqueue function is not refusable (a destructor) and makes
// the driver invalidate the capture. Load modules (KernelCache::get) before capturing.
#pragma once

#include "ptxkit/runtime/context.h"
#include "ptxkit/runtime/error.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace ptxkit::runtime {

// Which threads a capture forbids the "potentially unsafe" driver calls (blocking copies,
// allocations, synchronizations) while it runs; the runtime refuses them accordingly.
enum class CaptureMode {
  kGlobal,      // every thread of the process (the CUDA runtime's default): the safest
  kThreadLocal, // the capturing thread only, for a process where other threads keep working
};

namespace detail {
// What a capture in progress collects besides the driver's graph.
struct CaptureState {
  std::vector<std::shared_ptr<const void>> keep_alive; // modules of the captured kernels
  std::size_t kernel_launches = 0;                     // launches made through Function
  void note_launch(const std::shared_ptr<const void>& module);
};
} // namespace detail

// An instantiated (executable) graph. Move-only; destroying it releases the driver's graph.
class Graph {
public:
  Graph(Graph&& other) noexcept;
  Graph& operator=(Graph&& other) noexcept;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph();

  // Enqueues a replay of everything captured on `stream` (any stream of the context): one
  // cuGraphLaunch, no allocation. Replays are ordered after earlier replays of this graph. The
  // driver does not synchronize access to one graph: launch it from one thread at a time.
  Expected<void> launch(const Stream& stream) const;

  cu::GraphExec handle() const { return exec_; }
  // How many launches through Function::launch / launch_args the capture recorded.
  std::size_t kernel_launches() const { return kernel_launches_; }

private:
  friend Expected<Graph> capture(Stream& stream,
                                 const std::function<Expected<void>(const Stream&)>& enqueue,
                                 CaptureMode mode);
  Graph(std::shared_ptr<detail::ContextState> s, cu::GraphExec exec,
        std::vector<std::shared_ptr<const void>> keep_alive, std::size_t kernel_launches)
      : state_(std::move(s)), exec_(exec), keep_alive_(std::move(keep_alive)),
        kernel_launches_(kernel_launches) {}
  void release();
  std::shared_ptr<detail::ContextState> state_;
  cu::GraphExec exec_ = nullptr;
  std::vector<std::shared_ptr<const void>> keep_alive_;
  std::size_t kernel_launches_ = 0;
};

// Begins capturing `stream`, calls enqueue(stream), ends the capture and instantiates the graph.
// The capture is ended whatever happens (an error returned by `enqueue`, an exception thrown
// through this call), so the stream is never left capturing. Errors: `enqueue`'s own error as
// it returned it; a capture the driver invalidated (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, with
// the likely causes named); a stream already capturing (captures on one stream do not nest).
// The capturing thread must be the one that calls capture() and has the context current.
Expected<Graph> capture(Stream& stream, const std::function<Expected<void>(const Stream&)>& enqueue,
                        CaptureMode mode = CaptureMode::kGlobal);

// The driver's view of `stream` (cuStreamIsCapturing), including captures begun outside capture().
Expected<cu::StreamCaptureStatus> capture_status(const Stream& stream);

} // namespace ptxkit::runtime
