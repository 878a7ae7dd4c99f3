// device_smoke.cpp: proves the dlopen path on a real GPU and measures the checked launch path.
//
// Run on the GPU machine (the device tests proper live in tests/device/). It opens the device
// through libcuda.so.1, JIT-loads a hand-written vector add, checks its output exactly, shows a
// real JIT failure and a refusal before loading, then times 10,000 launches through
// Function::launch against 10,000 raw cuLaunchKernel calls on the same function, and measures
// the D2D copy bandwidth and the vector add with event timing (timing.h). Last, CUDA graphs
// (graph.h): three dependent vector adds captured, shown not to run at capture, replayed and
// checked exactly; the refusals and failures around a capture on the real driver; and a step of
// 32 empty kernels replayed as one graph against 32 checked launches. Exit 0 when everything
// held, 1 when something did not, 3 when there is no usable device (it says why).
#include "module_p.h"
#include "ptxkit/runtime/runtime.h"
#include "test_ptx.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace ptxkit::runtime;

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}

struct LaunchTiming {
  double enqueue_us = 0; // per launch, the launch loop alone (host cost while the queue has room)
  double total_us = 0;   // per launch, the loop plus the final stream synchronize
};

// Medians over `rounds` of `launches` calls of `launch`, then a stream synchronize.
template <class F>
LaunchTiming time_launches(const Stream& stream, int launches, int rounds, F&& launch) {
  std::vector<double> enqueue, total;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i)
      launch();
    const auto t1 = std::chrono::steady_clock::now();
    (void)stream.synchronize();
    const auto t2 = std::chrono::steady_clock::now();
    enqueue.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
    total.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count() / launches);
  }
  std::sort(enqueue.begin(), enqueue.end());
  std::sort(total.begin(), total.end());
  return {enqueue[enqueue.size() / 2], total[total.size() / 2]};
}

void report(const char* what, LaunchTiming raw, LaunchTiming checked) {
  std::printf("  %s: raw cuLaunchKernel %.3f us (enqueue %.3f), checked Function::launch %.3f us "
              "(enqueue %.3f): %+.1f%% end to end, %+.1f%% enqueue\n",
              what, raw.total_us, raw.enqueue_us, checked.total_us, checked.enqueue_us,
              100.0 * (checked.total_us / raw.total_us - 1.0),
              100.0 * (checked.enqueue_us / raw.enqueue_us - 1.0));
}

} // namespace

int main() {
  auto ctx = Context::open_default();
  if (!ctx) {
    std::printf("no device: [%s] %s\n", std::string(to_string(ctx.error().kind)).c_str(),
                ctx.error().message.c_str());
    return ctx.error().is_unavailable() ? 3 : 1;
  }
  const DeviceInfo& d = ctx->device();
  std::printf("device %d: %s, cc %s, driver CUDA %s, %u SMs, max threads/block %u, max block "
              "%s, max grid %s, smem/block %u (opt-in %u), L2 %u B\n",
              d.ordinal, d.name.c_str(), d.cc.str().c_str(),
              driver_version_string(d.driver_version).c_str(), d.multiprocessors,
              d.max_threads_per_block, d.max_block.str().c_str(), d.max_grid.str().c_str(),
              d.max_shared_per_block, d.max_shared_per_block_optin, d.l2_bytes);

  // 1. Load, launch and check a vector add.
  JitOptions jit;
  jit.log_verbose = true;
  auto module = load_module_text(*ctx, testing::vector_add_ptx(), "vadd.ptx",
                                 {testing::vector_add_signature()}, jit);
  if (!module) {
    std::printf("FAIL: load: %s\n", module.error().message.c_str());
    return 1;
  }
  std::printf("JIT info log:\n%s\n", module->info_log().c_str());
  auto fn = module->function("vadd");
  auto stream = Stream::create(*ctx);
  if (!fn || !stream) {
    std::printf("FAIL: function/stream\n");
    return 1;
  }
  std::printf("vadd: %u registers, max %u threads/block, %u B static smem\n",
              fn->limits().num_registers, fn->limits().max_threads_per_block,
              fn->limits().static_smem_bytes);
  const std::uint32_t n = (1u << 20) + 7;
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(n), b(n), out(n);
  for (std::uint32_t i = 0; i < n; ++i)
    a[i] = dist(rng), b[i] = dist(rng);
  auto da = DeviceBuffer<float>::from_host(*ctx, a);
  auto db = DeviceBuffer<float>::from_host(*ctx, b);
  auto dout = DeviceBuffer<float>::allocate(*ctx, n);
  expect(da && db && dout, "buffers allocated and uploaded");
  expect(dout && dout->fill_bytes(0xFF).has_value(), "output poisoned with NaN");
  const LaunchDims dims{{(n + 255) / 256, 1, 1}, {256, 1, 1}, 0};
  auto launched = fn->launch(*stream, dims, *da, *db, *dout, n);
  if (!launched) std::printf("  %s\n", launched.error().message.c_str());
  expect(launched.has_value(), "vadd launched through Function::launch");
  expect(stream->synchronize().has_value(), "stream synchronized");
  expect(dout->download(out).has_value(), "output downloaded");
  std::uint32_t wrong = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    wrong += out[i] != a[i] + b[i];
  std::printf("vadd: %u of %u elements differ from the CPU sum\n", wrong, n);
  expect(wrong == 0, "vadd output equals the CPU sum exactly");

  // 2. Launch checks on the real device: refused before the driver.
  auto too_wide = fn->launch(*stream, {{1, 1, 1}, {512, 1, 1}, 0}, *da, *db, *dout, n);
  expect(!too_wide && too_wide.error().kind == ErrorKind::kBadLaunch,
         "block over .maxntid refused");
  if (!too_wide) std::printf("  %s\n", too_wide.error().message.c_str());
  const std::size_t wide_n = n;
  auto wrong_size = fn->launch(*stream, dims, *da, *db, *dout, wide_n);
  expect(!wrong_size, "8-byte argument for a .u32 param refused");
  if (!wrong_size) std::printf("  %s\n", wrong_size.error().message.c_str());

  // 3. A real JIT failure: the driver's log verbatim and the PTX line it names.
  std::string bad = testing::vector_add_ptx();
  bad.replace(bad.find("  add.f32 %f3, %f1, %f2;"), 24, "  add.f32 %f3, %f1, %bogus;");
  auto jit_fail =
      load_module_text(*ctx, bad, "bad_vadd.ptx", {testing::vector_add_signature()}, {});
  expect(!jit_fail && jit_fail.error().kind == ErrorKind::kJit, "JIT failure is a kJit error");
  if (!jit_fail) {
    std::printf("--- JIT failure message ---\n%s---\n", jit_fail.error().message.c_str());
    expect(jit_fail.error().ptx_line.has_value() && *jit_fail.error().ptx_line == 32,
           "JIT log names PTX line 32");
  }

  // 4. Refused before loading.
  auto newer = load_module_text(*ctx, testing::vector_add_ptx("9.9"), "new.ptx", {}, {});
  expect(!newer && newer.error().kind == ErrorKind::kDriverTooOld, "PTX 9.9 refused");
  if (!newer) std::printf("  %s\n", newer.error().message.c_str());
  auto blackwell =
      load_module_text(*ctx, testing::vector_add_ptx("8.8", "sm_100a"), "b.ptx", {}, {});
  expect(!blackwell && blackwell.error().kind == ErrorKind::kDeviceUnsupported,
         "sm_100a refused on this device");
  if (!blackwell) std::printf("  %s\n", blackwell.error().message.c_str());

  // 5. Launch overhead: the cached, checked path against raw cuLaunchKernel, 10,000 launches.
  KernelCache cache(*ctx);
  auto cached = cache_get_text(cache, testing::empty_kernel_ptx(), "empty/v1",
                               {testing::empty_kernel_signature()}, {});
  auto cached2 = cache_get_text(cache, testing::empty_kernel_ptx(), "empty/v1",
                                {testing::empty_kernel_signature()}, {});
  expect(cached && cached2 && cache.loads() == 1 && cache.hits() == 1,
         "cache: second request served without a second JIT");
  auto empty = cached->function("empty");
  expect(empty.has_value(), "empty kernel looked up");
  Driver& drv = ctx->driver();
  const cu::Stream s = stream->handle();
  const LaunchDims one{{1, 1, 1}, {32, 1, 1}, 0};
  constexpr int kLaunches = 10000;
  constexpr int kRounds = 7;
  // Warm-up.
  for (int i = 0; i < 2000; ++i)
    (void)empty->launch(*stream, one);
  (void)stream->synchronize();
  LaunchTiming raw, checked, raw_args, checked_args;
  for (int rep = 0; rep < 2; ++rep) { // the first repetition is a further warm-up
    raw = time_launches(*stream, kLaunches, kRounds, [&] {
      (void)drv.launch_kernel(empty->handle(), 1, 1, 1, 32, 1, 1, 0, s, nullptr, nullptr);
    });
    checked =
        time_launches(*stream, kLaunches, kRounds, [&] { (void)empty->launch(*stream, one); });
  }
  const LaunchDims small{{1, 1, 1}, {256, 1, 1}, 0};
  const std::uint32_t n_small = 256;
  cu::DevicePtr pa = da->device_ptr(), pb = db->device_ptr(), po = dout->device_ptr();
  void* params[] = {&pa, &pb, &po, const_cast<std::uint32_t*>(&n_small)};
  for (int rep = 0; rep < 2; ++rep) {
    raw_args = time_launches(*stream, kLaunches, kRounds, [&] {
      (void)drv.launch_kernel(fn->handle(), 1, 1, 1, 256, 1, 1, 0, s, params, nullptr);
    });
    checked_args = time_launches(*stream, kLaunches, kRounds, [&] {
      (void)fn->launch(*stream, small, *da, *db, *dout, n_small);
    });
  }
  // The checks alone, without the driver: what the checked path adds per launch.
  const std::uint32_t sizes[] = {8, 8, 8, 4};
  const auto c0 = std::chrono::steady_clock::now();
  int accepted = 0;
  for (int i = 0; i < 1000000; ++i)
    accepted += check_launch(fn->signature(), d, fn->limits(), nullptr, small, sizes).has_value();
  const auto c1 = std::chrono::steady_clock::now();
  std::printf("launch overhead, medians of %d rounds of %d launches:\n", kRounds, kLaunches);
  report("empty kernel, 0 args", raw, checked);
  report("vadd, 4 args", raw_args, checked_args);
  std::printf("  check_launch alone: %.1f ns per launch (%d of 1000000 accepted)\n",
              std::chrono::duration<double, std::nano>(c1 - c0).count() / 1e6, accepted);
  expect(checked.total_us <= raw.total_us * 1.10 &&
             checked_args.total_us <= raw_args.total_us * 1.10,
         "checked launch path within 10% of raw cuLaunchKernel (end to end)");
  // 6. Event timing: the D2D copy baseline `ptxkit bench` prints, and the vector add's time.
  TimingOptions topt;
  topt.warmup = 5;
  topt.iterations = 20;
  auto copy = measure_copy_bandwidth(*ctx, *stream, std::size_t{1} << 30, topt);
  expect(copy.has_value(), "copy bandwidth measured");
  if (copy)
    std::printf("D2D copy of 1 GiB: median %.1f us, %.0f GB/s (read + written)\n",
                copy->timing.median_us, copy->gbps);
  auto vadd_time = time_on_stream(
      *ctx, *stream, [&] { return fn->launch(*stream, dims, *da, *db, *dout, n); }, topt);
  expect(vadd_time.has_value(), "vadd timed with events");
  if (vadd_time)
    std::printf("vadd over %u elements: median %.2f us, %.0f GB/s (12 bytes per element)\n", n,
                vadd_time->median_us, gigabytes_per_second(12.0 * n, vadd_time->median_us));

  // 7. CUDA graphs on the real driver.
  auto dt = DeviceBuffer<float>::allocate(*ctx, n);
  auto dt2 = DeviceBuffer<float>::allocate(*ctx, n);
  expect(dt && dt2, "graph buffers allocated");
  if (dt && dt2) {
    expect(dt->fill_bytes(0xFF) && dt2->fill_bytes(0xFF) && dout->fill_bytes(0xFF),
           "graph outputs poisoned with NaN");
    // t = a + b; out = t + b; t2 = out + a: each launch reads the one before it.
    auto step = [&](const Stream& s2) -> Expected<void> {
      PTXKIT_RT_TRY(fn->launch(s2, dims, *da, *db, *dt, n));
      PTXKIT_RT_TRY(fn->launch(s2, dims, *dt, *db, *dout, n));
      return fn->launch(s2, dims, *dout, *da, *dt2, n);
    };
    bool refused_sync = false;
    auto graph = capture(*stream, [&](const Stream& s2) -> Expected<void> {
      auto sync = s2.synchronize();
      refused_sync = !sync && sync.error().kind == ErrorKind::kBadArgument;
      return step(s2);
    });
    if (!graph) std::printf("  %s\n", graph.error().message.c_str());
    expect(graph.has_value() && graph->kernel_launches() == 3, "three launches captured");
    expect(refused_sync, "a synchronize inside the capture refused without breaking it");
    auto status = capture_status(*stream);
    expect(status && *status == cu::StreamCaptureStatus::kNone, "the stream no longer captures");
    std::vector<float> t2(n);
    expect(stream->synchronize() && dt2->download(t2), "graph output read after capture");
    expect(std::isnan(t2[0]) && std::isnan(t2[n - 1]), "nothing ran at capture");
    if (graph) {
      expect(graph->launch(*stream) && graph->launch(*stream) && stream->synchronize(),
             "graph replayed twice");
      expect(dt2->download(t2).has_value(), "graph output downloaded");
      std::uint32_t differ = 0;
      for (std::uint32_t i = 0; i < n; ++i) {
        const float t = a[i] + b[i];
        const float o = t + b[i];
        differ += t2[i] != o + a[i];
      }
      std::printf("graph: %u of %u elements differ from the CPU's ((a + b) + b) + a\n", differ, n);
      expect(differ == 0, "graph replay output equals the CPU exactly");
    }
    // An error inside the capture: returned as it was, the stream left usable.
    auto refused = capture(*stream, [&](const Stream& s2) -> Expected<void> {
      PTXKIT_RT_TRY(fn->launch(s2, dims, *da, *db, *dt, n));
      return fn->launch(s2, {{1, 1, 1}, {512, 1, 1}, 0}, *da, *db, *dt, n); // over .maxntid
    });
    expect(!refused && refused.error().kind == ErrorKind::kBadLaunch,
           "a refused launch inside a capture is the capture's error");
    status = capture_status(*stream);
    expect(status && *status == cu::StreamCaptureStatus::kNone &&
               fn->launch(*stream, dims, *da, *db, *dt, n) && stream->synchronize(),
           "the stream launches and synchronizes after a failed capture");
    // The driver's own rule: its cuStreamSynchronize of a capturing stream invalidates it.
    cu::Result raw_sync = cu::kSuccess;
    auto invalidated = capture(*stream, [&](const Stream& s2) -> Expected<void> {
      PTXKIT_RT_TRY(step(s2));
      raw_sync = drv.stream_synchronize(s2.handle());
      return {};
    });
    std::printf("  raw cuStreamSynchronize while capturing: %s\n",
                std::string(cu::result_name(raw_sync)).c_str());
    if (!invalidated) std::printf("  %s\n", invalidated.error().message.c_str());
    expect(!invalidated && invalidated.error().cu_result == cu::kErrorStreamCaptureInvalidated,
           "a capture the driver invalidated is reported as such");
    status = capture_status(*stream);
    expect(status && *status == cu::StreamCaptureStatus::kNone && stream->synchronize(),
           "the stream is usable after an invalidated capture");
    // A moved-from graph is refused; its successor still launches.
    if (graph) {
      Graph moved = std::move(*graph);
      expect(!graph->launch(*stream) && moved.launch(*stream) && stream->synchronize(),
             "a moved-from graph refused, the moved-to one launched");
    }
  }

  // 8. A step of 32 kernels: 32 checked launches against one graph replay.
  constexpr int kStepKernels = 32;
  constexpr int kSteps = 1000;
  auto empty_step = [&](const Stream& s2) -> Expected<void> {
    for (int k = 0; k < kStepKernels; ++k)
      PTXKIT_RT_TRY(empty->launch(s2, one));
    return {};
  };
  auto step_graph = capture(*stream, empty_step);
  expect(step_graph.has_value(), "32-kernel step captured");
  if (step_graph) {
    LaunchTiming direct_step, graph_step;
    for (int rep = 0; rep < 2; ++rep) { // the first repetition is a warm-up
      direct_step = time_launches(*stream, kSteps, kRounds, [&] { (void)empty_step(*stream); });
      graph_step =
          time_launches(*stream, kSteps, kRounds, [&] { (void)step_graph->launch(*stream); });
    }
    std::printf("a step of %d empty kernels, medians of %d rounds of %d steps:\n"
                "  checked launches %.2f us per step (enqueue %.2f), graph replay %.2f us per "
                "step (enqueue %.2f): %.2fx end to end, %.1fx host time\n",
                kStepKernels, kRounds, kSteps, direct_step.total_us, direct_step.enqueue_us,
                graph_step.total_us, graph_step.enqueue_us,
                direct_step.total_us / graph_step.total_us,
                direct_step.enqueue_us / graph_step.enqueue_us);
  }
  std::printf("%s (%d failure(s))\n", failures == 0 ? "SMOKE PASSED" : "SMOKE FAILED", failures);
  return failures == 0 ? 0 : 1;
}
