// graph_test.cpp: capture() and Graph on the fake driver, which records captured work and
// replays it on cuGraphLaunch.
//
// A replay must run exactly the launches captured, in order, with the argument bytes they had
// when captured; a capture must end whatever the enqueue function does; and the calls that
// would break a capture must be refused before the driver sees them, with a clear error. Each
// refusal has its negative control: the same call outside a capture succeeds.
#include "fake_driver.h"
#include "module_p.h"
#include "ptxkit/runtime/arg_pack.h"
#include "ptxkit/runtime/graph.h"
#include "test_ptx.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ptxkit::runtime {
namespace {

using testing::FakeDriver;
using testing::LaunchRecord;

struct Fixture {
  std::shared_ptr<FakeDriver> fake = std::make_shared<FakeDriver>();
  std::optional<Context> ctx;
  std::optional<Module> module;
  std::optional<Function> vadd, empty;
  std::optional<Stream> stream;
  std::optional<DeviceBuffer<float>> a, b, out;

  Fixture() {
    auto c = Context::open(fake);
    EXPECT_TRUE(c);
    ctx.emplace(std::move(*c));
    // One module holding both kernels.
    std::string ptx = testing::vector_add_ptx();
    ptx += ".visible .entry empty()\n{\n  ret;\n}\n";
    auto m =
        load_module_text(*ctx, ptx, "graph.ptx",
                         {testing::vector_add_signature(), testing::empty_kernel_signature()}, {});
    EXPECT_TRUE(m);
    module.emplace(std::move(*m));
    vadd.emplace(*module->function("vadd"));
    empty.emplace(*module->function("empty"));
    stream.emplace(*Stream::create(*ctx));
    a.emplace(*DeviceBuffer<float>::allocate(*ctx, 1024));
    b.emplace(*DeviceBuffer<float>::allocate(*ctx, 1024));
    out.emplace(*DeviceBuffer<float>::allocate(*ctx, 1024));
  }

  // A three-kernel step: out = a + b over 1024, an empty kernel, a = out + b over 512.
  Expected<void> step(const Stream& s) const {
    PTXKIT_RT_TRY(vadd->launch(s, {{4, 1, 1}, {256, 1, 1}, 0}, *a, *b, *out, 1024u));
    PTXKIT_RT_TRY(empty->launch(s, {{1, 1, 1}, {32, 1, 1}, 0}));
    return vadd->launch(s, {{2, 1, 1}, {256, 1, 1}, 0}, *out, *b, *a, 512u);
  }
};

std::vector<std::uint8_t> bytes_of(const void* p, std::size_t n) {
  const auto* b = static_cast<const std::uint8_t*>(p);
  return {b, b + n};
}

TEST(Graphs, AReplayRunsTheCapturedLaunchesInOrderWithTheirArguments) {
  Fixture f;
  f.fake->log_launches = true;
  ASSERT_TRUE(f.step(*f.stream)); // the step run directly: what every replay must repeat
  const std::vector<LaunchRecord> direct = f.fake->launch_log;
  ASSERT_EQ(direct.size(), 3u);
  EXPECT_EQ(direct[0].args,
            (std::vector<std::vector<std::uint8_t>>{
                bytes_of(f.a->device_ptr_address(), 8), bytes_of(f.b->device_ptr_address(), 8),
                bytes_of(f.out->device_ptr_address(), 8), bytes_of("\0\4\0\0", 4)}));
  EXPECT_TRUE(direct[1].args.empty());
  EXPECT_EQ(direct[2].grid[0], 2u);
  f.fake->launch_log.clear();
  const int ran = f.fake->launches;

  auto graph = capture(*f.stream, [&](const Stream& s) { return f.step(s); });
  ASSERT_TRUE(graph) << graph.error().message;
  // Captured, not run.
  EXPECT_EQ(f.fake->launches, ran);
  EXPECT_TRUE(f.fake->launch_log.empty());
  EXPECT_EQ(f.fake->captured_operations, 3);
  EXPECT_EQ(graph->kernel_launches(), 3u);
  EXPECT_FALSE(f.stream->capturing());
  EXPECT_EQ(*capture_status(*f.stream), cu::StreamCaptureStatus::kNone);
  // The graph was instantiated and the captured graph released.
  EXPECT_EQ(f.fake->live_graph_execs, 1);
  EXPECT_EQ(f.fake->live_graphs, 0);

  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(graph->launch(*f.stream));
  EXPECT_EQ(f.fake->graph_launches, 3);
  EXPECT_EQ(f.fake->launches, ran + 9);
  ASSERT_EQ(f.fake->launch_log.size(), 9u);
  for (std::size_t i = 0; i < 9; ++i)
    EXPECT_EQ(f.fake->launch_log[i], direct[i % 3]) << "launch " << i;
  // A replay may go to any stream of the context.
  auto other = Stream::create(*f.ctx);
  ASSERT_TRUE(other);
  ASSERT_TRUE(graph->launch(*other));
  EXPECT_EQ(f.fake->launches, ran + 12);
}

TEST(Graphs, ArgumentValuesAreThoseAtCapture) {
  Fixture f;
  f.fake->log_launches = true;
  std::uint32_t n = 256;
  ArgPack pack;
  pack.buffer(*f.a).buffer(*f.b).buffer(*f.out).value(std::uint32_t{128});
  auto graph = capture(*f.stream, [&](const Stream& s) -> Expected<void> {
    PTXKIT_RT_TRY(f.vadd->launch(s, {{1, 1, 1}, {256, 1, 1}, 0}, *f.a, *f.b, *f.out, n));
    return f.vadd->launch_args(s, {{1, 1, 1}, {128, 1, 1}, 0}, pack.refs());
  });
  ASSERT_TRUE(graph) << graph.error().message;
  n = 999; // the graph holds the bytes captured, not a reference to this variable
  ASSERT_TRUE(graph->launch(*f.stream));
  ASSERT_EQ(f.fake->launch_log.size(), 2u);
  EXPECT_EQ(f.fake->launch_log[0].args[3], bytes_of("\0\1\0\0", 4));   // 256
  EXPECT_EQ(f.fake->launch_log[1].args[3], bytes_of("\x80\0\0\0", 4)); // 128
  EXPECT_EQ(f.fake->launch_log[1].block[0], 128u);
}

TEST(Graphs, CapturedCopiesAndMemsetsRunAtEachReplayNotAtCapture) {
  Fixture f;
  Driver& d = f.ctx->driver();
  const std::size_t bytes = f.a->bytes();
  ASSERT_TRUE(f.a->fill_bytes(0));
  ASSERT_TRUE(f.b->fill_bytes(0));
  auto graph = capture(*f.stream, [&](const Stream& s) -> Expected<void> {
    PTXKIT_RT_TRY(
        check(d, d.memset_d8_async(f.a->device_ptr(), 7, bytes, s.handle()), "cuMemsetD8Async"));
    return check(d, d.memcpy_dtod_async(f.b->device_ptr(), f.a->device_ptr(), bytes, s.handle()),
                 "cuMemcpyDtoDAsync");
  });
  ASSERT_TRUE(graph) << graph.error().message;
  std::vector<float> host(1024);
  ASSERT_TRUE(f.b->download(host));
  EXPECT_EQ(host[0], 0.0f) << "captured work ran at capture";
  EXPECT_EQ(f.fake->async_memsets, 0);
  ASSERT_TRUE(graph->launch(*f.stream));
  ASSERT_TRUE(f.b->download(host));
  std::uint32_t word = 0;
  std::memcpy(&word, &host[1023], 4);
  EXPECT_EQ(word, 0x07070707u);
}

TEST(Graphs, AnErrorInsideTheCaptureEndsItAndLeavesTheStreamUsable) {
  Fixture f;
  // A launch refused by the checks, after one that was captured.
  auto refused = capture(*f.stream, [&](const Stream& s) -> Expected<void> {
    PTXKIT_RT_TRY(f.empty->launch(s, {{1, 1, 1}, {32, 1, 1}, 0}));
    return f.vadd->launch(s, {{1, 1, 1}, {256, 1, 1}, 0}, *f.a, *f.b); // two arguments short
  });
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::kBadLaunch);
  EXPECT_EQ(refused.error().message, "launch of vadd: 2 argument(s) given, but the .entry takes 4");
  EXPECT_FALSE(f.stream->capturing());
  EXPECT_EQ(*capture_status(*f.stream), cu::StreamCaptureStatus::kNone);
  EXPECT_EQ(f.fake->live_graphs, 0) << "the partial graph was not destroyed";
  EXPECT_EQ(f.fake->live_graph_execs, 0);

  // A driver failure inside the capture.
  f.fake->fail_next("cuLaunchKernel", cu::kErrorLaunchFailed);
  auto failed = capture(*f.stream, [&](const Stream& s) { return f.step(s); });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().cu_result, cu::kErrorLaunchFailed);
  EXPECT_FALSE(f.stream->capturing());
  EXPECT_EQ(*capture_status(*f.stream), cu::StreamCaptureStatus::kNone);

  // The stream works, directly and for a new capture.
  EXPECT_TRUE(f.stream->synchronize());
  const int ran = f.fake->launches;
  EXPECT_TRUE(f.step(*f.stream));
  EXPECT_EQ(f.fake->launches, ran + 3);
  auto graph = capture(*f.stream, [&](const Stream& s) { return f.step(s); });
  ASSERT_TRUE(graph) << graph.error().message;
  EXPECT_TRUE(graph->launch(*f.stream));
  EXPECT_EQ(f.fake->launches, ran + 6);
}

TEST(Graphs, AnExceptionThroughTheCaptureEndsIt) {
  Fixture f;
  EXPECT_THROW((void)capture(*f.stream,
                             [&](const Stream& s) -> Expected<void> {
                               (void)f.step(s);
                               throw std::runtime_error("enqueue threw");
                             }),
               std::runtime_error);
  EXPECT_FALSE(f.stream->capturing());
  EXPECT_EQ(*capture_status(*f.stream), cu::StreamCaptureStatus::kNone);
  EXPECT_EQ(f.fake->live_graphs, 0);
  EXPECT_TRUE(f.stream->synchronize());
  EXPECT_TRUE(f.a->fill_bytes(0)) << "blocking calls are allowed again after the capture";
}

TEST(Graphs, CallsThatWouldBreakTheCaptureAreRefusedBeforeTheDriver) {
  Fixture f;
  auto event = Event::create(*f.ctx);
  ASSERT_TRUE(event);
  std::vector<float> host(1024, 1.0f);
  std::vector<Error> refusals;
  auto graph = capture(*f.stream, [&](const Stream& s) -> Expected<void> {
    auto keep = [&](Expected<void> r) {
      EXPECT_FALSE(r);
      if (!r) refusals.push_back(r.error());
    };
    keep(s.synchronize());
    keep(f.ctx->synchronize());
    keep(f.a->upload(host));
    keep(f.a->download(host));
    keep(f.a->copy_from(*f.b));
    keep(f.a->fill_bytes(0xFF));
    keep(f.a->fill_u32(0));
    auto fresh = DeviceBuffer<float>::allocate(*f.ctx, 16);
    EXPECT_FALSE(fresh);
    if (!fresh) refusals.push_back(fresh.error());
    // Recording an event is part of the capture; waiting for it is not.
    EXPECT_TRUE(event->record(s));
    keep(event->synchronize());
    auto ms = Event::elapsed_ms(*event, *event);
    EXPECT_FALSE(ms);
    if (!ms) refusals.push_back(ms.error());
    return f.step(s);
  });
  // The refusals did not reach the driver, so the capture is intact.
  ASSERT_TRUE(graph) << graph.error().message;
  EXPECT_EQ(f.fake->invalidations, 0);
  ASSERT_EQ(refusals.size(), 10u);
  for (const Error& e : refusals)
    EXPECT_EQ(e.kind, ErrorKind::kBadArgument) << e.message;
  EXPECT_EQ(refusals[0].message,
            "Stream::synchronize on a stream that is capturing a CUDA graph: the captured work "
            "has not run (it runs when the graph is launched), and the driver refuses the call "
            "and invalidates the capture; synchronize after capture() returns");
  EXPECT_EQ(refusals[1].message.rfind("Context::synchronize while a stream of the context is "
                                      "capturing a CUDA graph",
                                      0),
            0u);
  EXPECT_EQ(refusals[2].message,
            "DeviceBuffer upload (cuMemcpyHtoD) while a CUDA graph is being captured: a blocking "
            "operation is not recorded into the graph (it would run once, now, not at each "
            "replay), and the driver refuses it and invalidates the capture; do it before or "
            "after capture()");
  EXPECT_EQ(refusals[7].message.rfind("device allocation (cuMemAlloc) while", 0), 0u);
  EXPECT_EQ(refusals[8].message.rfind("Event::synchronize of an event last recorded on a stream "
                                      "capturing a CUDA graph",
                                      0),
            0u);
  EXPECT_EQ(refusals[9].message.rfind("Event::elapsed_ms of an event", 0), 0u);

  // Negative controls: the same calls after the capture.
  EXPECT_TRUE(f.stream->synchronize());
  EXPECT_TRUE(f.ctx->synchronize());
  EXPECT_TRUE(f.a->upload(host));
  EXPECT_TRUE(f.a->download(host));
  EXPECT_TRUE(f.a->copy_from(*f.b));
  EXPECT_TRUE(f.a->fill_u32(0));
  EXPECT_TRUE(DeviceBuffer<float>::allocate(*f.ctx, 16));
  EXPECT_FALSE(event->synchronize()) << "still last recorded in the capture";
  ASSERT_TRUE(event->record(*f.stream));
  EXPECT_TRUE(event->synchronize());
  EXPECT_TRUE(Event::elapsed_ms(*event, *event));
}

TEST(Graphs, ACaptureTheDriverInvalidatedIsReportedAndEnded) {
  Fixture f;
  Driver& d = f.ctx->driver();
  // Around the runtime: the driver's own synchronize of the capturing stream.
  auto graph = capture(*f.stream, [&](const Stream& s) -> Expected<void> {
    PTXKIT_RT_TRY(f.step(s));
    EXPECT_EQ(d.stream_synchronize(s.handle()), cu::kErrorStreamCaptureUnsupported);
    cu::StreamCaptureStatus status{};
    EXPECT_EQ(d.stream_is_capturing(s.handle(), &status), cu::kSuccess);
    EXPECT_EQ(status, cu::StreamCaptureStatus::kInvalidated);
    return {}; // the enqueue function does not notice
  });
  ASSERT_FALSE(graph);
  EXPECT_EQ(graph.error().kind, ErrorKind::kDriver);
  EXPECT_EQ(graph.error().cu_result, cu::kErrorStreamCaptureInvalidated);
  EXPECT_EQ(graph.error().cu_name, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED");
  EXPECT_NE(graph.error().message.find("an operation not permitted during capture was made"),
            std::string::npos)
      << graph.error().message;
  EXPECT_FALSE(f.stream->capturing());
  EXPECT_EQ(*capture_status(*f.stream), cu::StreamCaptureStatus::kNone);
  EXPECT_TRUE(f.stream->synchronize());
}

TEST(Graphs, GlobalModeForbidsOtherThreadsBlockingCallsAndThreadLocalModeDoesNot) {
  Fixture f;
  std::vector<float> host(1024, 2.0f);
  Driver& d = f.ctx->driver();
  auto global = capture(
      *f.stream,
      [&](const Stream& s) -> Expected<void> {
        std::thread([&] {
          auto r = f.a->upload(host);
          ASSERT_FALSE(r);
          EXPECT_EQ(r.error().kind, ErrorKind::kBadArgument);
        }).join();
        return f.step(s);
      },
      CaptureMode::kGlobal);
  EXPECT_TRUE(global) << global.error().message;
  EXPECT_EQ(f.fake->invalidations, 0);

  auto local = capture(
      *f.stream,
      [&](const Stream& s) -> Expected<void> {
        std::thread([&] {
          EXPECT_TRUE(f.a->upload(host));
          // The driver agrees: another thread's blocking copy leaves a thread-local capture be.
          EXPECT_EQ(d.memcpy_htod(f.b->device_ptr(), host.data(), f.b->bytes()), cu::kSuccess);
        }).join();
        EXPECT_FALSE(f.a->upload(host)) << "the capturing thread itself is still refused";
        return f.step(s);
      },
      CaptureMode::kThreadLocal);
  EXPECT_TRUE(local) << local.error().message;
  EXPECT_EQ(f.fake->invalidations, 0);

  // And the driver's side of global mode: another thread's raw blocking copy invalidates it.
  auto broken = capture(*f.stream, [&](const Stream& s) -> Expected<void> {
    std::thread([&] {
      EXPECT_EQ(d.memcpy_htod(f.b->device_ptr(), host.data(), f.b->bytes()),
                cu::kErrorStreamCaptureUnsupported);
    }).join();
    return f.step(s);
  });
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().cu_result, cu::kErrorStreamCaptureInvalidated);
}

TEST(Graphs, CapturesDoNotNestOnOneStreamButMayRunOnTwo) {
  Fixture f;
  auto second = Stream::create(*f.ctx);
  ASSERT_TRUE(second);
  std::optional<Graph> inner_graph;
  auto outer = capture(*f.stream, [&](const Stream& s) -> Expected<void> {
    auto nested = capture(*f.stream, [&](const Stream&) -> Expected<void> { return {}; });
    EXPECT_FALSE(nested);
    if (!nested) {
      EXPECT_EQ(nested.error().message, "capture on a stream that is already capturing a CUDA "
                                        "graph: captures on one stream do not nest");
    }
    auto inner = capture(*second, [&](const Stream& s2) {
      return f.empty->launch(s2, {{1, 1, 1}, {32, 1, 1}, 0});
    });
    EXPECT_TRUE(inner);
    if (inner) inner_graph.emplace(std::move(*inner));
    return f.step(s);
  });
  ASSERT_TRUE(outer) << outer.error().message;
  ASSERT_TRUE(inner_graph);
  EXPECT_EQ(outer->kernel_launches(), 3u);
  EXPECT_EQ(inner_graph->kernel_launches(), 1u);
}

TEST(Graphs, ADestroyedOrMovedFromGraphIsNotLaunched) {
  Fixture f;
  auto graph = capture(*f.stream, [&](const Stream& s) { return f.step(s); });
  ASSERT_TRUE(graph);
  const cu::GraphExec handle = graph->handle();
  Graph moved = std::move(*graph);
  auto r = graph->launch(*f.stream);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kBadArgument);
  EXPECT_EQ(r.error().message, "launch of an empty Graph (moved from)");
  EXPECT_TRUE(moved.launch(*f.stream));
  { Graph gone = std::move(moved); }
  EXPECT_EQ(f.fake->live_graph_execs, 0);
  // What the driver says to a destroyed executable graph.
  Driver& d = f.ctx->driver();
  const int replays = f.fake->graph_launches;
  EXPECT_EQ(d.graph_launch(handle, f.stream->handle()), cu::kErrorInvalidValue);
  EXPECT_EQ(d.graph_exec_destroy(handle), cu::kErrorInvalidValue);
  EXPECT_EQ(f.fake->graph_launches, replays);
}

TEST(Graphs, AGraphKeepsItsKernelsModulesLoaded) {
  Fixture f;
  std::optional<Graph> graph;
  {
    auto m = load_module_text(*f.ctx, testing::empty_kernel_ptx(), "own.ptx",
                              {testing::empty_kernel_signature()}, {});
    ASSERT_TRUE(m);
    auto fn = m->function("empty");
    ASSERT_TRUE(fn);
    auto g = capture(*f.stream, [&](const Stream& s) {
      return fn->launch(s, {{1, 1, 1}, {32, 1, 1}, 0});
    });
    ASSERT_TRUE(g);
    graph.emplace(std::move(*g));
  }
  const int unloads = f.fake->unloads;
  EXPECT_TRUE(graph->launch(*f.stream));
  graph.reset();
  EXPECT_EQ(f.fake->unloads, unloads + 1) << "the module outlived the graph or died before it";
}

TEST(Graphs, DriverFailuresAroundTheCapture) {
  Fixture f;
  bool called = false;
  f.fake->fail_next("cuStreamBeginCapture", cu::kErrorInvalidValue);
  auto begin = capture(*f.stream, [&](const Stream&) -> Expected<void> {
    called = true;
    return {};
  });
  ASSERT_FALSE(begin);
  EXPECT_EQ(begin.error().message,
            "cuStreamBeginCapture failed: CUDA_ERROR_INVALID_VALUE (invalid argument)");
  EXPECT_FALSE(called);
  EXPECT_FALSE(f.stream->capturing());

  f.fake->fail_next("cuGraphInstantiateWithFlags", cu::kErrorOutOfMemory);
  auto inst = capture(*f.stream, [&](const Stream& s) { return f.step(s); });
  ASSERT_FALSE(inst);
  EXPECT_EQ(inst.error().message,
            "cuGraphInstantiateWithFlags failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  EXPECT_EQ(f.fake->live_graphs, 0);
  EXPECT_EQ(f.fake->live_graph_execs, 0);

  auto graph = capture(*f.stream, [&](const Stream& s) { return f.step(s); });
  ASSERT_TRUE(graph);
  f.fake->fail_next("cuGraphLaunch", cu::kErrorLaunchFailed);
  auto launched = graph->launch(*f.stream);
  ASSERT_FALSE(launched);
  EXPECT_EQ(launched.error().message,
            "cuGraphLaunch failed: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)");
}

// The fake driver itself fails like the real one on misuse of the capture calls.
TEST(FakeDriverGraphs, MisuseFailsAsTheDriverDoes) {
  FakeDriver d;
  cu::Stream s = nullptr;
  ASSERT_EQ(d.stream_create(&s, 1), cu::kSuccess);
  cu::Graph g = nullptr;
  EXPECT_EQ(d.stream_end_capture(s, &g), cu::kErrorIllegalState) << "end without begin";
  EXPECT_EQ(d.stream_begin_capture(nullptr, cu::StreamCaptureMode::kGlobal),
            cu::kErrorStreamCaptureUnsupported)
      << "the legacy stream";
  ASSERT_EQ(d.stream_begin_capture(s, cu::StreamCaptureMode::kGlobal), cu::kSuccess);
  EXPECT_EQ(d.stream_begin_capture(s, cu::StreamCaptureMode::kGlobal), cu::kErrorIllegalState);
  cu::Result other_thread = cu::kSuccess;
  std::thread([&] { other_thread = d.stream_end_capture(s, &g); }).join();
  EXPECT_EQ(other_thread, cu::kErrorStreamCaptureWrongThread);
  EXPECT_EQ(d.ctx_synchronize(), cu::kErrorStreamCaptureUnsupported);
  EXPECT_EQ(d.stream_end_capture(s, &g), cu::kErrorStreamCaptureInvalidated);
  EXPECT_EQ(g, nullptr);
  EXPECT_EQ(d.stream_end_capture(s, &g), cu::kErrorIllegalState) << "the capture ended";
  EXPECT_EQ(d.ctx_synchronize(), cu::kSuccess);

  // A captured event cannot be waited for until it is recorded outside a capture.
  cu::Event e = nullptr;
  ASSERT_EQ(d.event_create(&e, 0), cu::kSuccess);
  ASSERT_EQ(d.stream_begin_capture(s, cu::StreamCaptureMode::kThreadLocal), cu::kSuccess);
  EXPECT_EQ(d.event_record(e, s), cu::kSuccess);
  ASSERT_EQ(d.stream_end_capture(s, &g), cu::kSuccess);
  EXPECT_EQ(d.event_synchronize(e), cu::kErrorCapturedEvent);
  EXPECT_EQ(d.event_record(e, s), cu::kSuccess);
  EXPECT_EQ(d.event_synchronize(e), cu::kSuccess);

  cu::GraphExec x = nullptr;
  EXPECT_EQ(d.graph_instantiate(&x, g, 0), cu::kSuccess);
  EXPECT_EQ(d.graph_destroy(g), cu::kSuccess);
  EXPECT_EQ(d.graph_destroy(g), cu::kErrorInvalidValue);
  EXPECT_EQ(d.graph_instantiate(&x, g, 0), cu::kErrorInvalidValue) << "a destroyed graph";
  EXPECT_EQ(d.graph_launch(x, s), cu::kSuccess) << "the executable graph outlives its graph";
  EXPECT_EQ(d.graph_exec_destroy(x), cu::kSuccess);
  EXPECT_EQ(d.graph_launch(x, s), cu::kErrorInvalidValue);
  EXPECT_EQ(d.live_graphs, 0);
  EXPECT_EQ(d.live_graph_execs, 0);
}

TEST(FakeDriverGraphs, ParamSizesComeFromTheEntry) {
  FakeDriver d;
  d.log_launches = true;
  cu::Module m = nullptr;
  const std::string ptx = ".version 9.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k(.param .u64 .ptr .global .align 16 k_p, "
                          ".param .align 8 .b8 k_s[24], .param .f64 k_d, .param .u16 k_h)\n"
                          "{\n  ret;\n}\n";
  ASSERT_EQ(d.module_load_data_ex(&m, ptx.c_str(), 0, nullptr, nullptr), cu::kSuccess);
  cu::Function fn = nullptr;
  ASSERT_EQ(d.module_get_function(&fn, m, "k"), cu::kSuccess);
  std::uint8_t storage[4][32] = {};
  void* params[4] = {storage[0], storage[1], storage[2], storage[3]};
  ASSERT_EQ(d.launch_kernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), cu::kSuccess);
  ASSERT_EQ(d.launch_log.size(), 1u);
  std::vector<std::size_t> sizes;
  for (const auto& arg : d.launch_log[0].args)
    sizes.push_back(arg.size());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{8, 24, 8, 2}));
}

TEST(GraphNames, CaptureResultsAreNamedWithoutTheDriver) {
  EXPECT_EQ(cu::result_name(cu::kErrorStreamCaptureInvalidated),
            "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED");
  EXPECT_EQ(cu::result_name(cu::kErrorStreamCaptureWrongThread),
            "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD");
  FakeDriver stub;
  stub.can_name_errors = false;
  const Error e = driver_error(stub, cu::kErrorStreamCaptureUnsupported, "cuStreamSynchronize");
  EXPECT_EQ(e.message, "cuStreamSynchronize failed: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
  EXPECT_EQ(e.kind, ErrorKind::kDriver);
}

} // namespace
} // namespace ptxkit::runtime
