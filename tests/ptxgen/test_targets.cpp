// test_targets.cpp: the target table, and the every-instruction kernel assembled by ptxas for
// every supported target (one test per target; skipped, saying so, only when ptxas is absent).
#include "every_instruction.h"
#include "ptxkit/ptxgen/ptxgen.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <string>

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

struct PtxasResult {
  int status;
  std::string output;
};

PtxasResult run_ptxas(const std::string& arch, const std::string& ptx) {
  std::filesystem::path dir = std::filesystem::path(PTXKIT_BINARY_DIR) / "tests" / "ptxgen-tmp";
  std::filesystem::create_directories(dir);
  std::filesystem::path file = dir / std::string("every_instruction_").append(arch).append(".ptx");
  std::ofstream(file) << ptx;
  std::string cmd = std::string(PTXKIT_PTXAS);
  cmd.append(" -arch=").append(arch).append(" ").append(file.string()).append(" -o /dev/null 2>&1");
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  PtxasResult r{-1, ""};
  if (!pipe) return r;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), pipe.get()))
    r.output += buf.data();
  r.status = pclose(pipe.release());
  return r;
}

class EveryInstruction : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryInstruction, AssemblesWithPtxas) {
  Target target = Target::parse(GetParam()).value();
  Expected<Kernel> k = testing::build_every_instruction_kernel(target);
  ASSERT_TRUE(k) << k.error().to_string();
  PrintedPtx p = print(*k, PrintOptions{true, ""});
  ASSERT_EQ(p.baked.size(), 1u);
  EXPECT_EQ(p.baked[0].field, "scale");
  std::string ptxas = PTXKIT_PTXAS;
  if (ptxas.empty() || !std::filesystem::exists(ptxas)) {
    GTEST_SKIP() << "SKIPPED: ptxas not found (PTXKIT_PTXAS empty): PTX for " << GetParam()
                 << " was built but not assembled";
  }
  PtxasResult r = run_ptxas(GetParam(), p.text);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("error"), std::string::npos) << r.output;
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
  std::string ptxas = PTXKIT_PTXAS;
  if (ptxas.empty() || !std::filesystem::exists(ptxas)) {
    GTEST_SKIP() << "SKIPPED: ptxas not found";
  }
  PtxasResult r = run_ptxas("sm_90", ".version 8.0\n.target sm_90\n.address_size 64\n"
                                     ".visible .entry k() { add.f32 %f1, %f2; }\n");
  EXPECT_NE(r.status, 0);
}

} // namespace
} // namespace ptxkit::ptxgen
