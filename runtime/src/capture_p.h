// capture_p.h: runtime-internal hooks of graph capture (graph.h) into streams, launches and
// blocking calls (not installed).
//
// A capture sets a flag on its Stream (so Stream::synchronize and Function::launch_args see it)
// and counts itself per context, per thread and, in global mode, per process, which is how the
// driver decides whether a "potentially unsafe" call is forbidden: the calling thread has a
// capture in progress, or any thread has a global-mode one.
#pragma once

#include "ptxkit/runtime/context.h"
#include "ptxkit/runtime/graph.h"

#include <string_view>

namespace ptxkit::runtime::detail {

struct StreamAccess {
  static CaptureState* capture(const Stream& s) { return s.capture_; }
  static void set_capture(Stream& s, CaptureState* c) { s.capture_ = c; }
  static const std::shared_ptr<ContextState>& state(const Stream& s) { return s.state_; }
};

// Refuses `what` (a blocking copy, an allocation) when a capture in progress forbids it on this
// thread: the call would run once, now, rather than be replayed, and the driver would refuse it
// and invalidate the capture.
Expected<void> refuse_blocking_call_while_capturing(std::string_view what);

} // namespace ptxkit::runtime::detail
