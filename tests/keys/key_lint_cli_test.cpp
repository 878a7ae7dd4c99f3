// key_lint_cli_test.cpp: `ptxkit lint-keys` as a user runs it: exit codes 0/2 of docs/cli.md, the
// per-kernel counts and the provenance lines, deterministic output.
//
// The mis-keyed kernels live only in key_lint_test's binary, so exit 1 is covered there through
// the same library call; here the library must be clean and the test kernels absent.
#include <array>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <sys/wait.h>

namespace {

struct CmdResult {
  int exit_code = -1;
  std::string out;
};

CmdResult run(const std::string& args) {
  std::string cmd = std::string(PTXKIT_EXE) + " " + args + " 2>&1";
  CmdResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0)
    r.out.append(buf.data(), n);
  int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

const std::string kGolden = std::string(" --golden-dir ") + PTXKIT_SOURCE_DIR + "/golden";

TEST(LintKeysCli, RmsNormIsCleanWithCountsAndProvenance) {
  CmdResult r = run("lint-keys rmsnorm --target sm_90 --target sm_80" + kGolden);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("rmsnorm: 4 fields checked (3 in the key)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<- eps = 1e-06"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0f358637BD"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": 0 violations, 0 warnings"), std::string::npos) << r.out;
  // Only rmsnorm's golden files are read for the golden proof.
  EXPECT_NE(r.out.find("golden "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("rope_neox"), std::string::npos) << r.out;
  // Deterministic: the same bytes twice, with threads.
  CmdResult again = run("lint-keys rmsnorm --target sm_90 --target sm_80 -j 2" + kGolden);
  EXPECT_EQ(again.out, r.out);
}

TEST(LintKeysCli, UnknownKernelOrTargetIsExit2ListingWhatIsValid) {
  CmdResult r = run("lint-keys no_such_kernel");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("ptxkit: error:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rmsnorm"), std::string::npos) << r.out; // the list of valid kernels
  CmdResult t = run("lint-keys rmsnorm --target sm_1");
  EXPECT_EQ(t.exit_code, 2) << t.out;
  CmdResult g = run("lint-keys rmsnorm --golden-dir /nonexistent/ptxkit-golden");
  EXPECT_EQ(g.exit_code, 2) << g.out;
}

TEST(LintKeysCli, TestKernelsAreNotInTheLibrary) {
  CmdResult r = run("lint-keys test_rmsnorm_eps_exempt");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

} // namespace
