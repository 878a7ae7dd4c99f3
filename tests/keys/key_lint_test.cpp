// key_lint_test.cpp: the key-coverage proof (key_lint.h) on the library and on negative controls.
//
// Each bug of the hand-written keys is reproduced by a mis-keyed kernel or key function
// (miskeyed_kernels.*) and must be caught with a message that names the field and the baked
// immediate; each repaired twin must pass. The library kernels behind them (rmsnorm, rope_neox)
// must be clean.
#include "miskeyed_kernels.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/key_lint.h>
#include <ptxkit/kernels/registry.h>
#include <string>
#include <vector>

namespace ptxkit::kernels {
namespace {

using Severity = KeyFinding::Severity;

// Two targets keep the tests fast; the CLI ctest covers every target.
KeyLintOptions two_targets(KeyFunction key = {}) {
  KeyLintOptions o;
  o.key = std::move(key);
  o.targets = {*ptxgen::Target::parse("sm_90"), *ptxgen::Target::parse("sm_80")};
  return o;
}

KernelKeyReport lint(std::string_view name, KeyFunction key = {}) {
  const Kernel* k = KernelRegistry::find(name);
  EXPECT_NE(k, nullptr) << name;
  if (k == nullptr) return {};
  auto r = lint_kernel_keys(*k, two_targets(std::move(key)));
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return r ? *r : KernelKeyReport{};
}

std::string all_messages(const KernelKeyReport& r) {
  std::string out;
  for (const auto& f : r.findings)
    out += "[" + f.proof + "] " + f.field + ": " + f.message + "\n";
  return out;
}

const KeyFinding* find(const KernelKeyReport& r, Severity s, std::string_view proof,
                       std::string_view field) {
  for (const auto& f : r.findings)
    if (f.severity == s && f.proof == proof && f.field == field) return &f;
  return nullptr;
}

// 1e-6f is 0x358637BD: the immediate PTX prints for RMSNorm's default eps.
constexpr const char* kEpsImmediate = "0f358637BD";

TEST(KeyLint, LibraryRmsNormIsCleanAndListsEveryBakedImmediate) {
  KernelKeyReport r = lint("rmsnorm");
  EXPECT_EQ(r.violations(), 0u) << all_messages(r);
  EXPECT_EQ(r.warnings(), 0u) << all_messages(r);
  EXPECT_EQ(r.fields_checked, 4u);
  EXPECT_EQ(r.fields_in_key, 3u); // hidden, eps, dtype; rows is exempt
  EXPECT_GT(r.immediates_checked, r.instances);
  EXPECT_GT(r.configs_tried, 20u);
  bool eps_listed = false;
  for (const auto& line : r.provenance)
    eps_listed |= line.find(kEpsImmediate) != std::string::npos &&
                  line.find("<- eps = ") != std::string::npos && line.rfind("line ", 0) == 0;
  EXPECT_TRUE(eps_listed) << r.provenance.size() << " provenance lines";
}

TEST(KeyLint, RmsNormEpsDeclaredExemptIsCaught) {
  KernelKeyReport r = lint("test_rmsnorm_eps_exempt");
  EXPECT_GE(r.violations(), 2u) << all_messages(r);
  const KeyFinding* prov = find(r, Severity::kViolation, "provenance", "eps");
  ASSERT_NE(prov, nullptr) << all_messages(r);
  EXPECT_NE(prov->message.find("field 'eps' is baked into the PTX but the key does not cover it"),
            std::string::npos)
      << prov->message;
  EXPECT_NE(prov->message.find(kEpsImmediate), std::string::npos) << prov->message;
  EXPECT_NE(prov->message.find("<- eps = 1e-06"), std::string::npos) << prov->message;
  const KeyFinding* diff = find(r, Severity::kViolation, "differential", "eps");
  ASSERT_NE(diff, nullptr) << all_messages(r);
  // The first perturbation is one ulp up: 1e-06 -> 1.0000001e-06, 0f358637BD -> 0f358637BE.
  EXPECT_NE(diff->message.find("eps = 1e-06 -> 1.0000001e-06"), std::string::npos) << diff->message;
  EXPECT_NE(diff->message.find("0f358637BE"), std::string::npos) << diff->message;
  EXPECT_NE(diff->message.find("baked immediate"), std::string::npos) << diff->message;
  // hidden is keyed and clean.
  EXPECT_EQ(find(r, Severity::kViolation, "provenance", "hidden"), nullptr);
}

TEST(KeyLint, RepairedRmsNormEpsKeyedPasses) {
  KernelKeyReport r = lint("test_rmsnorm_eps_keyed");
  EXPECT_EQ(r.violations(), 0u) << all_messages(r);
  EXPECT_EQ(r.warnings(), 0u) << all_messages(r);
  EXPECT_EQ(r.fields_in_key, 2u);
}

TEST(KeyLint, HandWrittenRopeKeyWithoutThetaIsCaught) {
  KernelKeyReport r = lint("rope_neox", keytest::handwritten_rope_key);
  const KeyFinding* prov = find(r, Severity::kViolation, "provenance", "theta");
  ASSERT_NE(prov, nullptr) << all_messages(r);
  EXPECT_NE(prov->message.find("field 'theta' is baked into the PTX but the key does not cover it"),
            std::string::npos)
      << prov->message;
  EXPECT_NE(prov->message.find("<- theta = "), std::string::npos) << prov->message;
  EXPECT_NE(prov->message.find("line "), std::string::npos) << prov->message;
  ASSERT_NE(find(r, Severity::kViolation, "differential", "theta"), nullptr) << all_messages(r);
  // head_dim and num_heads are in that key and need no finding.
  EXPECT_EQ(find(r, Severity::kViolation, "provenance", "head_dim"), nullptr) << all_messages(r);
}

TEST(KeyLint, RopeKeyWithThetaRoundedByPercentGIsCaughtByOneUlp) {
  // Provenance passes (theta changes the key when doubled), the differential proof does not:
  // theta one ulp away keeps the %g text and changes the PTX.
  KernelKeyReport r = lint("rope_neox", keytest::rounded_theta_rope_key);
  EXPECT_EQ(find(r, Severity::kViolation, "provenance", "theta"), nullptr) << all_messages(r);
  const KeyFinding* diff = find(r, Severity::kViolation, "differential", "theta");
  ASSERT_NE(diff, nullptr) << all_messages(r);
  EXPECT_NE(diff->message.find("theta = 1e+06 -> 1000000.06"), std::string::npos) << diff->message;
  EXPECT_NE(diff->message.find("keeps the key"), std::string::npos) << diff->message;
}

TEST(KeyLint, RepairedRopeKeyAndLibraryRopePass) {
  KernelKeyReport hand = lint("rope_neox", keytest::repaired_rope_key);
  EXPECT_EQ(hand.violations(), 0u) << all_messages(hand);
  KernelKeyReport lib = lint("rope_neox");
  EXPECT_EQ(lib.violations(), 0u) << all_messages(lib);
  EXPECT_EQ(lib.warnings(), 0u) << all_messages(lib);
  EXPECT_EQ(lib.fields_in_key, lib.fields_checked);
}

TEST(KeyLint, BatchSizeInTheKeyIsAnOverSpecifiedKey) {
  KernelKeyReport r = lint("test_rmsnorm_batch_keyed");
  EXPECT_EQ(r.violations(), 0u) << all_messages(r);
  const KeyFinding* w = find(r, Severity::kWarning, "differential", "batch");
  ASSERT_NE(w, nullptr) << all_messages(r);
  EXPECT_NE(w->message.find("field 'batch' is in the key but none of its"), std::string::npos)
      << w->message;
  EXPECT_NE(w->message.find("over-specified key"), std::string::npos) << w->message;
  EXPECT_EQ(r.warnings(), 1u) << all_messages(r);
}

TEST(KeyLint, RepairedBatchExemptPasses) {
  KernelKeyReport r = lint("test_rmsnorm_batch_exempt");
  EXPECT_EQ(r.violations(), 0u) << all_messages(r);
  EXPECT_EQ(r.warnings(), 0u) << all_messages(r);
  EXPECT_EQ(r.fields_in_key, 2u);
}

TEST(KeyLint, PerturbationsCoverUlpsAndBoundaries) {
  FieldInfo f;
  f.name = "eps";
  f.type = FieldType::kF32;
  f.spec.min = 0.0;
  f.spec.max = 1.0;
  auto vs = perturbations(f, FieldValue{1e-6f});
  auto has = [&](float x) {
    return std::any_of(vs.begin(), vs.end(), [&](const FieldValue& v) {
      return std::get<float>(v) == x && std::signbit(std::get<float>(v)) == std::signbit(x);
    });
  };
  EXPECT_TRUE(has(std::nextafter(1e-6f, 1.0f)));
  EXPECT_TRUE(has(std::nextafter(1e-6f, 0.0f)));
  EXPECT_TRUE(has(0.0f));
  EXPECT_TRUE(has(1.0f));
  EXPECT_TRUE(has(std::nextafter(1.0f, 0.0f)));
  EXPECT_FALSE(has(1e-6f)); // never the base value

  FieldInfo u;
  u.name = "hidden";
  u.type = FieldType::kU32;
  u.spec.min = 4.0;
  u.spec.max = 65536.0;
  u.spec.multiple_of = 4;
  auto us = perturbations(u, FieldValue{std::uint32_t{896}});
  auto hasu = [&](std::uint32_t x) {
    return std::find(us.begin(), us.end(), FieldValue{x}) != us.end();
  };
  for (std::uint32_t x : {897u, 895u, 900u, 892u, 4u, 8u, 65536u, 65532u})
    EXPECT_TRUE(hasu(x)) << x;
  EXPECT_FALSE(hasu(896u));
}

// Golden files: a temporary directory with hand-made files.
class GoldenKeys : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ptxkit_key_lint_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  std::filesystem::path dir_;
};

TEST_F(GoldenKeys, SameKeyDifferentBytesIsAViolation) {
  write("k.a.sm_90.ptx", "// ptxkit golden: kernel=k config=a target=sm_90 key=k-1\nadd.f32 1;\n");
  write("k.b.sm_90.ptx", "// ptxkit golden: kernel=k config=b target=sm_90 key=k-1\nadd.f32 2;\n");
  write("k.c.sm_90.ptx", "// ptxkit golden: kernel=k config=c target=sm_90 key=k-2\nadd.f32 3;\n");
  auto r = lint_golden_keys(dir_.string(), {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->files, 3u);
  EXPECT_EQ(r->keys, 2u);
  EXPECT_EQ(r->shared_key_sets, 1u);
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_NE(r->findings[0].message.find("same key k-1 but differ (first at line 2)"),
            std::string::npos)
      << r->findings[0].message;
  // Filtered to another kernel, nothing is read.
  auto other = lint_golden_keys(dir_.string(), {"other"});
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->files, 0u);
}

TEST_F(GoldenKeys, SameKeySameBodyPassesAndMissingKeyIsAViolation) {
  write("k.a.sm_90.ptx", "// ptxkit golden: kernel=k config=a target=sm_90 key=k-1\nadd.f32 1;\n");
  write("k.b.sm_90.ptx", "// ptxkit golden: kernel=k config=b target=sm_90 key=k-1\nadd.f32 1;\n");
  auto r = lint_golden_keys(dir_.string(), {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->shared_key_sets, 1u);
  EXPECT_TRUE(r->findings.empty());
  write("k.c.sm_90.ptx", "// ptxkit golden: kernel=k config=c target=sm_90\nadd.f32 1;\n");
  auto missing = lint_golden_keys(dir_.string(), {});
  ASSERT_TRUE(missing.has_value());
  ASSERT_EQ(missing->findings.size(), 1u);
  EXPECT_NE(missing->findings[0].message.find("has no key="), std::string::npos);
  EXPECT_FALSE(lint_golden_keys((dir_ / "absent").string(), {}).has_value());
}

TEST(KeyLint, RepositoryGoldenFilesAreConsistent) {
  auto r = lint_golden_keys(std::string(PTXKIT_SOURCE_DIR) + "/golden", {});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_GT(r->files, 10u);
  EXPECT_LE(r->keys, r->files);
  EXPECT_TRUE(r->findings.empty()) << r->findings.front().message;
}

} // namespace
} // namespace ptxkit::kernels
