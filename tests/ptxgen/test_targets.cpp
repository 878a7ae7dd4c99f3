// test_targets.cpp: the target table, and the every-instruction kernel assembled by ptxas for
// every supported target (one test per target; skipped, saying so, only when ptxas is absent)
// and checked by the verifier, which must find no error in it.
#include "every_instruction.h"
#include "ptxgen_test_util.h"
#include "ptxkit/ptxgen/ptxgen.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ptxkit::ptxgen {
namespace {

TEST(Targets, ParseKnownAndUnknown) {
  Expected<Target> t = Target::parse("sm_90a");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->name(), "sm_90a");
  EXPECT_EQ(t->sm(), 90u);
  EXPECT_TRUE(t->arch_specific());
  EXPECT_EQ(t->ptx_version(), "8.0");
  Expected<Target> bad = Target::parse("sm_70");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("unsupported target 'sm_70'"), std::string::npos);
  EXPECT_NE(bad.error().message.find("sm_120a"), std::string::npos);
  EXPECT_FALSE(Target::parse(""));
  EXPECT_FALSE(Target::parse("sm_90 "));
}

TEST(Targets, RequiredTargetsAreSupported) {
  for (const char* name : {"sm_80", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120"}) {
    EXPECT_TRUE(Target::parse(name)) << name;
  }
  const auto& all = Target::all_supported();
  ASSERT_GE(all.size(), 6u);
  for (std::size_t i = 1; i < all.size(); ++i)
    EXPECT_LE(all[i - 1].sm(), all[i].sm());
  EXPECT_EQ(Target::parse("sm_100").value().ptx_version(), "8.6");
  EXPECT_EQ(Target::parse("sm_120").value().ptx_version(), "8.7");
}

class EveryInstruction : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryInstruction, AssemblesWithPtxas) {
  Target target = Target::parse(GetParam()).value();
  Expected<Kernel> k = testing::build_every_instruction_kernel(target);
  ASSERT_TRUE(k) << k.error().to_string();
  PrintedPtx p = print(*k, PrintOptions{true, ""});
  ASSERT_EQ(p.baked.size(), 1u);
  EXPECT_EQ(p.baked[0].field, "scale");
  if (!have_ptxas()) {
    GTEST_SKIP() << "SKIPPED: ptxas not found (PTXKIT_PTXAS empty): PTX for " << GetParam()
                 << " was built but not assembled";
  }
  PtxasResult r = run_ptxas(GetParam(), p.text, "every_instruction");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("error"), std::string::npos) << r.output;
}

// The verifier accepts what the builder prints: no error finding at any target.
TEST_P(EveryInstruction, VerifierFindsNoErrors) {
  Expected<Kernel> k = testing::build_every_instruction_kernel(target(GetParam().c_str()));
  ASSERT_TRUE(k) << k.error().to_string();
  EXPECT_EQ(verifier_errors(print(*k).text, "every_instruction_" + GetParam() + ".ptx"), "");
}

std::vector<std::string> target_names() {
  std::vector<std::string> v;
  for (const Target& t : Target::all_supported())
    v.emplace_back(t.name());
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllTargets, EveryInstruction, ::testing::ValuesIn(target_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(EveryInstructionNegative, PtxasRejectsBrokenPtx) {
  // The harness itself must be able to fail: a deliberately broken module is rejected.
  if (!have_ptxas()) {
    GTEST_SKIP() << "SKIPPED: ptxas not found";
  }
  PtxasResult r = run_ptxas("sm_90",
                            ".version 8.0\n.target sm_90\n.address_size 64\n"
                            ".visible .entry k() { add.f32 %f1, %f2; }\n",
                            "broken");
  EXPECT_NE(r.status, 0);
}

} // namespace
} // namespace ptxkit::ptxgen
