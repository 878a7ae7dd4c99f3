// verify_speed_test.cpp: the speed bar of issue 5: verifying the largest corpus file (parse,
// CFG, dominators, SSA, uniformity, every rule) is at least 10x faster than ptxas assembling it,
// both measured in this one run on this machine.
//
// Why a test: the ratio is a property to keep, not a number to quote once. The assertion only
// holds for optimized builds (NDEBUG): a Debug or sanitizer build reports the ratio and checks
// only that verification finished. ptxas runs once (it dominates the time); verification is
// the best of three.
#include "ptxkit/verifier/verify.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace ptxkit::verifier {
namespace {

namespace fs = std::filesystem;

TEST(VerifySpeed, LargestCorpusFileVerifiesTenTimesFasterThanPtxas) {
  fs::path largest;
  std::uintmax_t size = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(PTXKIT_CORPUS_DIR, ec))
    if (e.path().extension() == ".ptx" && e.file_size() > size) {
      size = e.file_size();
      largest = e.path();
    }
  ASSERT_FALSE(largest.empty()) << "corpus not unpacked in " << PTXKIT_CORPUS_DIR;
  std::ifstream in(largest, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();

  using clock = std::chrono::steady_clock;
  double verify_s = 1e9;
  for (int k = 0; k < 3; ++k) {
    auto t0 = clock::now();
    VerifyOptions o;
    o.read_source_lines = false;
    VerifyTextResult r = verify_text(text, largest.string(), o);
    double s = std::chrono::duration<double>(clock::now() - t0).count();
    ASSERT_FALSE(r.parse_error.has_value());
    EXPECT_EQ(r.report.error_count(), 0u);
    verify_s = std::min(verify_s, s);
  }

  std::string ptxas = PTXKIT_PTXAS;
  if (ptxas.empty() || !fs::exists(ptxas)) {
    std::cout << "[ speed ] " << largest.filename() << " (" << size << " bytes): verify "
              << verify_s << " s; ptxas not available, no ratio\n";
    return;
  }
  // The arch from `.target sm_XX[, debug]`.
  std::string arch = "sm_90";
  if (auto p = text.find(".target sm_"); p != std::string::npos) {
    auto e = text.find_first_of(", \n", p + 8);
    arch = text.substr(p + 8, e - (p + 8));
  }
  fs::path out = fs::path(::testing::TempDir()) / "verify_speed.cubin";
  std::string cmd = ptxas + " -arch=" + arch + " -o " + out.string() + " " + largest.string() +
                    " > /dev/null 2>&1";
  auto t0 = clock::now();
  int rc = std::system(cmd.c_str());
  double ptxas_s = std::chrono::duration<double>(clock::now() - t0).count();
  ASSERT_EQ(rc, 0) << cmd;
  double ratio = ptxas_s / verify_s;
  std::cout << "[ speed ] " << largest.filename() << " (" << size << " bytes): verify " << verify_s
            << " s, ptxas -arch=" << arch << " " << ptxas_s << " s, ratio " << ratio << "x\n";
#ifdef NDEBUG
  EXPECT_GE(ratio, 10.0);
#endif
}

} // namespace
} // namespace ptxkit::verifier
