// key_test.cpp: the cache key of every registered kernel changes with every baked field (a 1-ulp
// float change included), with the target and only with those; exempt fields leave it unchanged.
//
// Generic over the registry, so a kernel added later is covered without editing this file: the
// hand-written-key defect (a baked eps missing from the key) cannot come back for any kernel.
#include "perturb.h"

#include <gtest/gtest.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>
#include <string>

namespace ptxkit::kernels {
namespace {

// True when `s` is PREFIX followed by exactly 16 lower-case hex digits (and `tail`).
// (No std::regex: GCC 12 warns inside it under -O1 with sanitizers.)
inline bool is_key(const std::string& s, const std::string& prefix, const std::string& tail = "") {
  if (s.size() != prefix.size() + 16 + tail.size() || s.rfind(prefix, 0) != 0) return false;
  if (s.compare(prefix.size() + 16, tail.size(), tail) != 0) return false;
  for (std::size_t i = prefix.size(); i < prefix.size() + 16; ++i)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
  return true;
}

TEST(CacheKey, HasTheDocumentedShape) {
  for (const Kernel* k : KernelRegistry::all()) {
    std::string key = cache_key(*k, k->defaults(), "sm_90");
    EXPECT_TRUE(is_key(key, std::string(k->name()) + "-")) << key;
  }
}

TEST(CacheKey, MaterialListsEveryBakedFieldAndNoExemptOne) {
  for (const Kernel* k : KernelRegistry::all()) {
    std::string m = key_material(*k, k->defaults(), "sm_80");
    EXPECT_EQ(m.rfind("ptxkit-key-v1\nkernel=" + std::string(k->name()) + "\ntarget=sm_80\n", 0),
              0u)
        << m;
    for (const auto& f : k->fields()) {
      bool present = m.find("\n" + f.name + ":") != std::string::npos;
      EXPECT_EQ(present, f.spec.baked) << k->name() << "." << f.name << "\n" << m;
    }
  }
}

TEST(CacheKey, FloatsEnterByExactBitPattern) {
  const Kernel* k = KernelRegistry::find("rmsnorm");
  ASSERT_NE(k, nullptr);
  ConfigValues v = k->defaults();
  v[static_cast<std::size_t>(k->field_index("eps"))] = FieldValue{1e-6f};
  EXPECT_NE(key_material(*k, v, "sm_90").find("eps:f32=0x358637bd\n"), std::string::npos)
      << key_material(*k, v, "sm_90");
}

TEST(CacheKey, ChangesWithEveryBakedFieldAndNotWithExemptOnes) {
  int baked_checked = 0, exempt_checked = 0;
  for (const Kernel* k : KernelRegistry::all()) {
    for (const ConfigValues& base : testing::test_configs(*k)) {
      ASSERT_TRUE(k->validate(base)) << k->name();
      const std::string key = cache_key(*k, base, "sm_90");
      for (std::size_t i = 0; i < k->fields().size(); ++i) {
        const FieldInfo& f = k->fields()[i];
        auto moved = testing::perturbed(*k, base, i);
        ASSERT_TRUE(moved) << k->name() << "." << f.name << ": no valid neighbouring value";
        std::string other = cache_key(*k, *moved, "sm_90");
        if (f.spec.baked) {
          EXPECT_NE(other, key) << k->name() << "." << f.name << " is baked but not in the key";
          ++baked_checked;
        } else {
          EXPECT_EQ(other, key) << k->name() << "." << f.name << " is exempt but changed the key";
          ++exempt_checked;
        }
      }
    }
  }
  EXPECT_GE(baked_checked, 8);
  EXPECT_GE(exempt_checked, 2);
}

TEST(CacheKey, OneUlpOfEpsChangesTheKey) {
  const Kernel* k = KernelRegistry::find("rmsnorm");
  ASSERT_NE(k, nullptr);
  ConfigValues a = k->defaults(), b = a;
  auto i = static_cast<std::size_t>(k->field_index("eps"));
  b[i] = FieldValue{std::nextafter(std::get<float>(a[i]), 1.0f)};
  EXPECT_NE(cache_key(*k, a, "sm_90"), cache_key(*k, b, "sm_90"));
  // 1e-5 vs 1e-6: the hand-written-key defect (eps missing from the key) in one line.
  a[i] = FieldValue{1e-5f};
  b[i] = FieldValue{1e-6f};
  EXPECT_NE(cache_key(*k, a, "sm_90"), cache_key(*k, b, "sm_90"));
}

TEST(CacheKey, ChangesWithTheTargetAndIsStable) {
  for (const Kernel* k : KernelRegistry::all()) {
    EXPECT_NE(cache_key(*k, k->defaults(), "sm_80"), cache_key(*k, k->defaults(), "sm_90"));
    EXPECT_EQ(cache_key(*k, k->defaults(), "sm_90"), cache_key(*k, k->defaults(), "sm_90"));
  }
}

TEST(CacheKey, Fnv1aMatchesPublishedVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
}

} // namespace
} // namespace ptxkit::kernels
