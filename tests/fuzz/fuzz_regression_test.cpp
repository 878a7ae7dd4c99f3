// fuzz_regression_test.cpp: replays every input under tests/fuzz/regressions (each one crashed or
// broke the round-trip, or the verifier, once) through the same oracles as the fuzzers: parse,
// print, re-parse, and every verifier rule with findings inside the input.
//
// Why: a fuzzer finding is fixed once and stays fixed; this runs in every ./test.sh pass,
// including the sanitizer build, without needing clang or libFuzzer.
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/printer.h"
#include "ptxkit/verifier/verify.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace ptxkit::verifier {
namespace {

TEST(FuzzRegressions, EveryRecordedInputIsHandled) {
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(PTXKIT_FUZZ_REGRESSIONS)) {
    if (!e.is_regular_file() || e.path().filename().string().starts_with(".")) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    ++count;
    auto first = parse(ss.str(), e.path().string());
    if (!first.ok()) {
      EXPECT_FALSE(first.error().message.empty()) << e.path();
      EXPECT_GE(first.error().loc.line, 1u) << e.path();
      continue;
    }
    std::string printed = print(*first);
    auto second = parse(printed, "printed");
    ASSERT_TRUE(second.ok()) << e.path() << "\n" << second.error().format() << printed;
    EXPECT_TRUE(equal_ignoring_locations(*first, *second)) << e.path() << "\n" << printed;
    EXPECT_EQ(print(*second), printed) << e.path();
    VerifyOptions options;
    options.read_source_lines = false;
    FileReport report = verify_module(*first, options);
    const std::string text = ss.str();
    const auto lines = static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n') + 1);
    for (const Finding& f : report.findings) {
      EXPECT_GE(f.location.line, 1u) << e.path() << ": " << f.message;
      EXPECT_LE(f.location.line, lines) << e.path() << ": " << f.message;
    }
  }
  EXPECT_GE(count, 1) << "no regression inputs in " << PTXKIT_FUZZ_REGRESSIONS;
}

} // namespace
} // namespace ptxkit::verifier
