// unified_diff_test.cpp: the golden-drift diff printer produces patches that `patch` applies
// exactly (random edits of random line sequences), and hunks in the `diff -u` layout.
#include "unified_diff.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

using ptxkit::cli::unified_diff;

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const std::filesystem::path& p, const std::string& s) {
  std::ofstream(p) << s;
}

TEST(UnifiedDiff, EqualTextsGiveNothing) {
  EXPECT_EQ(unified_diff("a\nb\n", "a\nb\n", "x", "y"), "");
}

TEST(UnifiedDiff, OneChangedLineHasThreeLinesOfContext) {
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  std::string after = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
  EXPECT_EQ(unified_diff(before, after, "a", "b"),
            "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n");
}

TEST(UnifiedDiff, DistantChangesMakeSeparateHunks) {
  std::string before, after;
  for (int i = 0; i < 30; ++i) {
    before += std::to_string(i) + "\n";
    after += (i == 3 || i == 25 ? "x" : std::to_string(i)) + "\n";
  }
  std::string d = unified_diff(before, after, "a", "b");
  EXPECT_NE(d.find("@@ -1,7 +1,7 @@"), std::string::npos) << d;
  EXPECT_NE(d.find("@@ -23,7 +23,7 @@"), std::string::npos) << d;
}

TEST(UnifiedDiff, AddedAndRemovedFilesDiffAgainstEmpty) {
  EXPECT_EQ(unified_diff("", "a\nb\n", "/dev/null", "f"),
            "--- /dev/null\n+++ f\n@@ -0,0 +1,2 @@\n+a\n+b\n");
  EXPECT_EQ(unified_diff("a\n", "", "f", "/dev/null"), "--- f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n");
}

TEST(UnifiedDiff, RandomEditsApplyWithPatch) {
  auto dir =
      std::filesystem::temp_directory_path() / ("ptxkit_udiff_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::mt19937 rng(1234);
  for (int round = 0; round < 40; ++round) {
    std::vector<std::string> a;
    int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i)
      a.push_back("line " + std::to_string(rng() % 12));
    std::vector<std::string> b = a;
    int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits; ++e) {
      std::size_t at = b.empty() ? 0 : rng() % (b.size() + 1);
      switch (rng() % 3) {
      case 0:
        b.insert(b.begin() + static_cast<long>(at), "new " + std::to_string(rng() % 5));
        break;
      case 1:
        if (at < b.size()) b.erase(b.begin() + static_cast<long>(at));
        break;
      default:
        if (at < b.size()) b[at] = "changed " + std::to_string(rng() % 5);
      }
    }
    std::string before, after;
    for (auto& l : a)
      before += l + "\n";
    for (auto& l : b)
      after += l + "\n";
    write(dir / "before", before);
    write(dir / "patch", unified_diff(before, after, "before", "after"));
    std::string cmd = "patch -s -o " + (dir / "out").string() + " " + (dir / "before").string() +
                      " < " + (dir / "patch").string() + " 2>&1";
    std::filesystem::remove(dir / "out");
    if (before == after) continue;
    ASSERT_EQ(std::system(cmd.c_str()), 0) << "round " << round << "\n" << read(dir / "patch");
    EXPECT_EQ(read(dir / "out"), after) << "round " << round << "\n" << read(dir / "patch");
  }
  std::filesystem::remove_all(dir);
}

} // namespace
