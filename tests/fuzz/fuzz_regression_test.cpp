// fuzz_regression_test.cpp: replays every input under tests/fuzz/regressions (each one crashed or
// broke the round-trip once) through the same oracle as the fuzzer.
//
// Why: a fuzzer finding is fixed once and stays fixed; this runs in every ./test.sh pass,
// including the sanitizer build, without needing clang or libFuzzer.
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/printer.h"

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
  }
  EXPECT_GE(count, 1) << "no regression inputs in " << PTXKIT_FUZZ_REGRESSIONS;
}

} // namespace
} // namespace ptxkit::verifier
