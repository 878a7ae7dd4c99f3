// bench_cases_test.cpp: the bench cases the kernels state (bench_case.h), checked without a
// device: every case resolves to a valid config of its kernel, names are unique over the
// registry, and targets read as `ptxkit bench` prints them.
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/bench_case.h>
#include <ptxkit/kernels/registry.h>
#include <set>
#include <string>

namespace ptxkit::kernels {
namespace {

TEST(BenchTarget, ReadsAsTheTablePrintsIt) {
  EXPECT_EQ(
      (BenchTarget{.max_us = 125, .min_pct_of_copy = 90, .qualifier = "(PyTorch rms_norm 137.6 us)"}
           .text()),
      "<= 125 us and >= 90% of copy bandwidth (PyTorch rms_norm 137.6 us)");
  EXPECT_EQ(BenchTarget{.min_pct_of_copy = 80}.text(), ">= 80% of copy bandwidth");
  EXPECT_EQ((BenchTarget{.min_pct_of_copy = 80, .qualifier = "on the weight bytes"}.text()),
            ">= 80% of copy bandwidth on the weight bytes");
  EXPECT_EQ((BenchTarget{.max_us = 20, .qualifier = "(>= 10x PyTorch SDPA 238 us)"}.text()),
            "<= 20 us (>= 10x PyTorch SDPA 238 us)");
  EXPECT_EQ(BenchTarget{.max_us = 1.5}.text(), "<= 1.5 us");
}

TEST(BenchTarget, EveryBoundThatIsSetMustHold) {
  const BenchTarget both{.max_us = 125, .min_pct_of_copy = 90};
  EXPECT_TRUE(both.met(117.6, 94.2));
  EXPECT_TRUE(both.met(125, 90));
  EXPECT_FALSE(both.met(126, 94.2)); // too slow
  EXPECT_FALSE(both.met(117.6, 89)); // too little of the copy bandwidth
  EXPECT_TRUE(BenchTarget{.min_pct_of_copy = 80}.met(1e9, 80.5)); // no time bound
  EXPECT_TRUE(BenchTarget{.max_us = 20}.met(19, 0));              // no bandwidth bound
  EXPECT_FALSE(BenchTarget{.max_us = 20}.met(21, 100));
}

TEST(BenchCases, EachResolvesToAValidConfigOfItsKernel) {
  std::size_t cases = 0;
  for (const Kernel* k : KernelRegistry::all()) {
    for (const BenchCase& c : k->bench_cases()) {
      SCOPED_TRACE(std::string(k->name()) + " / " + c.name);
      ++cases;
      ConfigValues values = k->defaults();
      if (!c.config.empty()) {
        const ReferenceConfig* rc = k->reference_config(c.config);
        ASSERT_NE(rc, nullptr) << "no reference config '" << c.config << "'";
        values = rc->values;
      }
      for (const auto& set : c.sets) {
        auto ok = apply_assignment(*k, values, set);
        ASSERT_TRUE(ok) << ok.error().message;
      }
      auto valid = k->validate(values);
      EXPECT_TRUE(valid) << valid.error().message;
      EXPECT_FALSE(c.shape.empty());
      EXPECT_GE(c.bytes, 0);
      EXPECT_GE(c.flops, 0);
      if (c.target) {
        EXPECT_TRUE(c.target->max_us > 0 || c.target->min_pct_of_copy > 0)
            << "a target with no bound is informative: leave it out";
        EXPECT_LE(c.target->min_pct_of_copy, 100);
      }
    }
  }
  // The library states its single-kernel cases itself (the bench has no list of them).
  EXPECT_GE(cases, 20u);
}

TEST(BenchCases, NamesAreUniqueOverTheRegistryAndTheBackToBackTwins) {
  std::set<std::string> names;
  for (const Kernel* k : KernelRegistry::all())
    for (const BenchCase& c : k->bench_cases()) {
      EXPECT_TRUE(names.insert(c.name).second) << c.name;
      if (c.back_to_back) {
        EXPECT_TRUE(names.insert(c.name + "_back_to_back").second) << c.name;
        EXPECT_TRUE(names.insert(c.name + "_warm_l2").second) << c.name;
      }
    }
  EXPECT_TRUE(names.contains("rmsnorm_65536x896"));
  EXPECT_TRUE(names.contains("q4k_gemv_4096x14336_back_to_back"));
}

} // namespace
} // namespace ptxkit::kernels
