// kernel_cache_test.cpp: the module cache compiles each key once, even under concurrent
// requests, and never serves a module compiled from other PTX or other JIT options.
//
// A cache keyed by a hand-written string once left baked constants out; here the PTX
// hash is part of the key, so two PTX texts under one kernel key must yield two modules.
#include "fake_driver.h"
#include "kernel_cache_p.h"
#include "ptxkit/runtime/kernel_cache.h"
#include "test_ptx.h"

#include <chrono>
#include <gtest/gtest.h>
#include <thread>
#include <vector>

namespace ptxkit::runtime {
namespace {

using testing::FakeDriver;

struct CacheFixture {
  std::shared_ptr<FakeDriver> fake = std::make_shared<FakeDriver>();
  KernelCache cache{*Context::open(fake)};

  Expected<Module> get(const std::string& ptx, std::string_view key, const JitOptions& jit = {}) {
    return cache_get_text(cache, ptx, key, {testing::vector_add_signature()}, jit);
  }
};

TEST(KernelCache, ConcurrentRequestsForOneKeyCompileOnce) {
  CacheFixture f;
  f.fake->load_delay = std::chrono::milliseconds(50); // all threads arrive while it compiles
  constexpr int kThreads = 16;
  std::vector<std::thread> threads;
  std::vector<const void*> states(kThreads);
  std::vector<bool> ok(kThreads);
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      auto m = f.get(testing::vector_add_ptx(), "vadd/v1");
      ok[i] = m.has_value();
      if (m) states[i] = &m->ptx(); // identity of the shared module state
    });
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(f.fake->loads, 1);
  EXPECT_EQ(f.cache.loads(), 1u);
  EXPECT_EQ(f.cache.hits(), static_cast<std::uint64_t>(kThreads - 1));
  EXPECT_EQ(f.cache.size(), 1u);
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_TRUE(ok[i]);
    EXPECT_EQ(states[i], states[0]) << "thread " << i << " got another module";
  }
}

TEST(KernelCache, DifferentPtxUnderTheSameKernelKeyIsNeverServedStale) {
  CacheFixture f;
  // That bug: eps baked into the PTX but not into the hand-written key.
  std::string eps5 = testing::vector_add_ptx() + "// eps 1e-5\n";
  std::string eps6 = testing::vector_add_ptx() + "// eps 1e-6\n";
  auto a = f.get(eps5, "rmsnorm/hidden=896");
  auto b = f.get(eps6, "rmsnorm/hidden=896");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(f.fake->loads, 2);
  EXPECT_EQ(a->ptx(), eps5);
  EXPECT_EQ(b->ptx(), eps6);
  auto again = f.get(eps5, "rmsnorm/hidden=896");
  ASSERT_TRUE(again);
  EXPECT_EQ(&again->ptx(), &a->ptx());
  EXPECT_EQ(f.fake->loads, 2);
}

TEST(KernelCache, JitOptionsThatChangeCodeAreInTheKey) {
  CacheFixture f;
  JitOptions o3;
  o3.optimization_level = 3;
  JitOptions verbose; // logging does not change the code
  verbose.log_verbose = true;
  ASSERT_TRUE(f.get(testing::vector_add_ptx(), "vadd"));
  ASSERT_TRUE(f.get(testing::vector_add_ptx(), "vadd", o3));
  ASSERT_TRUE(f.get(testing::vector_add_ptx(), "vadd", verbose));
  EXPECT_EQ(f.fake->loads, 2);
  EXPECT_EQ(f.cache.size(), 2u);
}

TEST(KernelCache, KeysNameEveryComponent) {
  const CacheKey k{"vadd/v1", hash_ptx("x"), {9, 0}, JitOptions{}.fingerprint()};
  EXPECT_EQ(k.str(), "vadd/v1|ptx=af63f54c86021707|cc=9.0|O4,lineinfo=0,debug=0,maxreg=0");
  const CacheKey other_arch{"vadd/v1", hash_ptx("x"), {10, 0}, JitOptions{}.fingerprint()};
  EXPECT_NE(k.str(), other_arch.str());
  EXPECT_NE(hash_ptx("mov.f32 %f1, 0f358637BD;"), hash_ptx("mov.f32 %f1, 0f3727C5AC;"));
}

TEST(KernelCache, FailuresReachEveryWaiterAndAreNotCached) {
  CacheFixture f;
  f.fake->load_delay = std::chrono::milliseconds(30);
  std::string bad = testing::vector_add_ptx() + "// FAKE-JIT-ERROR: broken\n";
  std::vector<std::thread> threads;
  std::vector<std::string> messages(4);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      auto m = f.get(bad, "bad");
      messages[i] = m ? "(loaded)" : m.error().message;
    });
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(f.fake->loads, 1);
  for (const auto& m : messages)
    EXPECT_NE(m.find("broken"), std::string::npos) << m;
  EXPECT_EQ(f.cache.size(), 0u);
  auto retry = f.get(bad, "bad");
  EXPECT_FALSE(retry);
  EXPECT_EQ(f.fake->loads, 2); // tried again, not served a cached failure
}

TEST(KernelCache, RefusedPtxIsNotLoadedOrCached) {
  CacheFixture f;
  auto r = f.get(testing::vector_add_ptx("8.8", "sm_100"), "vadd");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kDeviceUnsupported);
  EXPECT_EQ(f.fake->loads, 0);
  EXPECT_EQ(f.cache.size(), 0u);
}

} // namespace
} // namespace ptxkit::runtime
