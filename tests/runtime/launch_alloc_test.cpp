// launch_alloc_test.cpp: the checked launch path and a graph replay perform no heap allocation.
//
// The cached launch path must stay within 10% of a raw cuLaunchKernel; an allocation per launch
// would cost more than all the checks together. This binary replaces the global operator new
// with a counting one and launches 1,000 times through each entry point on the fake driver
// (which itself does not allocate when it records no arguments). Not built with the sanitizers,
// which install their own allocator.
#include "fake_driver.h"
#include "module_p.h"
#include "ptxkit/runtime/arg_pack.h"
#include "ptxkit/runtime/graph.h"
#include "test_ptx.h"

#include <atomic>
#include <cstdlib>
#include <gtest/gtest.h>
#include <new>

// GCC pairs the replaced operator new/delete below with malloc/free at every inlined call site
// and warns; the pairing is intended.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
std::atomic<long> g_allocations{0};
} // namespace

void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace ptxkit::runtime {
namespace {

TEST(LaunchAllocations, TheCheckedLaunchPathDoesNotAllocate) {
  auto fake = std::make_shared<testing::FakeDriver>();
  auto ctx = Context::open(fake);
  ASSERT_TRUE(ctx);
  auto m = load_module_text(*ctx, testing::vector_add_ptx(), "vadd.ptx",
                            {testing::vector_add_signature()}, {});
  ASSERT_TRUE(m);
  auto fn = m->function("vadd");
  auto stream = Stream::create(*ctx);
  auto buf = DeviceBuffer<float>::allocate(*ctx, 1024);
  ASSERT_TRUE(fn && stream && buf);
  LaunchContract contract;
  contract.block = Dim3{256, 1, 1};
  contract.check = [](const LaunchDims& d) -> std::optional<std::string> {
    if (d.grid.x == 0) return "no blocks";
    return std::nullopt;
  };
  fn->set_contract(contract);
  ArgPack pack;
  pack.buffer(*buf).buffer(*buf).buffer(*buf).value(std::uint32_t{1024});
  const LaunchDims dims{{4, 1, 1}, {256, 1, 1}, 0};
  const std::uint32_t n = 1024;
  ASSERT_TRUE(fn->launch(*stream, dims, *buf, *buf, *buf, n)); // warm-up

  const long before = g_allocations.load();
  int ok = 0;
  for (int i = 0; i < 1000; ++i) {
    ok += fn->launch(*stream, dims, *buf, *buf, *buf, n).has_value();
    ok += fn->launch_args(*stream, dims, pack.refs()).has_value();
  }
  const long allocations = g_allocations.load() - before;
  EXPECT_EQ(ok, 2000);
  EXPECT_EQ(allocations, 0) << "the launch path allocated";
  EXPECT_EQ(fake->launches, 2001);

  // The counter works: a refused launch builds its message, which allocates.
  const long before_refusal = g_allocations.load();
  EXPECT_FALSE(fn->launch(*stream, dims, *buf, *buf));
  EXPECT_GT(g_allocations.load(), before_refusal);
}

// A decoder step captured once is replayed every token: the replay must not allocate either
// (the capture may: it records the launches and keeps their modules).
TEST(LaunchAllocations, AGraphReplayDoesNotAllocate) {
  auto fake = std::make_shared<testing::FakeDriver>();
  auto ctx = Context::open(fake);
  ASSERT_TRUE(ctx);
  auto m = load_module_text(*ctx, testing::vector_add_ptx(), "vadd.ptx",
                            {testing::vector_add_signature()}, {});
  ASSERT_TRUE(m);
  auto fn = m->function("vadd");
  auto stream = Stream::create(*ctx);
  auto buf = DeviceBuffer<float>::allocate(*ctx, 1024);
  ASSERT_TRUE(fn && stream && buf);
  const LaunchDims dims{{4, 1, 1}, {256, 1, 1}, 0};
  const std::uint32_t n = 1024;
  const long before_capture = g_allocations.load();
  auto graph = capture(*stream, [&](const Stream& s) -> Expected<void> {
    for (int i = 0; i < 3; ++i)
      PTXKIT_RT_TRY(fn->launch(s, dims, *buf, *buf, *buf, n));
    return {};
  });
  ASSERT_TRUE(graph);
  EXPECT_GT(g_allocations.load(), before_capture); // the counter sees the capture's allocations
  ASSERT_TRUE(graph->launch(*stream));             // warm-up

  const long before = g_allocations.load();
  int ok = 0;
  for (int i = 0; i < 1000; ++i)
    ok += graph->launch(*stream).has_value();
  // The launch path outside a capture, after one: the capture's hook costs it nothing.
  for (int i = 0; i < 1000; ++i)
    ok += fn->launch(*stream, dims, *buf, *buf, *buf, n).has_value();
  EXPECT_EQ(g_allocations.load() - before, 0) << "a graph replay or a later launch allocated";
  EXPECT_EQ(ok, 2000);
  EXPECT_EQ(fake->graph_launches, 1001);
  EXPECT_EQ(fake->launches, 3 * 1001 + 1000);
}

} // namespace
} // namespace ptxkit::runtime
