// verify_corpus_test.cpp: `verify` over every file of the real-PTX corpus (nvcc CUB at -O3 with
// -lineinfo and at -G, LLVM libdevice, clang, Triton-style): zero error findings, and each rule
// examined sites (a sweep that checked nothing would pass vacuously).
//
// Why: "zero false errors on real compiler output" is the verifier's quality bar; a false error
// here is a bug in a rule, to be fixed in the rule.
#include "ptx_files_test_util.h"
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/report.h"
#include "ptxkit/verifier/verify.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace ptxkit::verifier {
namespace {

std::vector<std::string> corpus_files() {
  return testing::ptx_files_in(PTXKIT_CORPUS_DIR);
}

class VerifyCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(VerifyCorpus, NoErrorFindingsAndEveryRuleExaminedSites) {
  const std::string text =
      testing::read_whole_file(std::string(PTXKIT_CORPUS_DIR) + "/" + GetParam());
  ASSERT_FALSE(text.empty());
  VerifyOptions o;
  o.read_source_lines = false;
  VerifyTextResult r = verify_text(text, GetParam(), o);
  ASSERT_FALSE(r.parse_error.has_value()) << r.parse_error->format();
  std::vector<Finding> errors;
  for (const Finding& f : r.report.findings)
    if (f.severity == Severity::kError) errors.push_back(f);
  FileReport only_errors = r.report;
  only_errors.findings = errors;
  EXPECT_EQ(errors.size(), 0u) << format_text({only_errors});
  for (const RuleStatus& s : r.report.rules) {
    if (s.id == "undefined-register" || s.id == "dead-value") {
      EXPECT_GT(s.sites, 0u) << s.id << " examined nothing in " << GetParam();
    }
  }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Corpus, VerifyCorpus, ::testing::ValuesIn(corpus_files()), test_name);

TEST(VerifyCorpusPresence, CorpusIsUnpacked) {
  EXPECT_GE(corpus_files().size(), 10u);
}

} // namespace
} // namespace ptxkit::verifier
