// verify_report_test.cpp: the three printers of a FileReport: text (`path:line: rule: message`
// then the instructions involved and the .loc source line), JSON exactly as docs/cli.md (plus extra
// keys), and SARIF 2.1.0 with rules, results, locations and related locations.
#include "analysis_test_util.h"
#include "ptxkit/verifier/report.h"

#include <fstream>
#include <nlohmann/json.hpp>

namespace ptxkit::verifier::testing {
namespace {

// Line 13 reads %r4 that only the guarded write on line 12 defines; line 14 never-written %r9.
const char* kText = R"PTX(.version 8.0
.target sm_90
.address_size 64
.file 1 "/nonexistent/k.cu"

.visible .entry k(.param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<10>;
	ld.param.u32 %r1, [n];
	setp.lt.u32 %p1, %r1, 4;
	@%p1 mov.u32 %r4, 1;
	.loc 1 42 7
	add.u32 %r5, %r4, %r9;
	st.global.u32 [%r1], %r5;
	ret;
}
)PTX";

// The two rules of this file's examples (the catalogue grows; these tests are about printing).
VerifyOptions two_rules() {
  VerifyOptions o;
  o.rules = {"undefined-register", "dead-value"};
  o.read_source_lines = false;
  return o;
}

FileReport report() {
  Module m = parse_or_fail(kText, "k.ptx");
  return verify_module(m, two_rules());
}

TEST(VerifyReport, TextHeadlineInstructionsAndSourceLine) {
  std::string text = format_text({report()});
  EXPECT_EQ(text, "k.ptx:14:2: warning: %r4 is read on a path where nothing defined it "
                  "[undefined-register]\n"
                  "  k.ptx:14: add.u32 %r5, %r4, %r9;\n"
                  "    source: /nonexistent/k.cu:42:7\n"
                  "  k.ptx:12: @%p1 mov.u32 %r4, 1;  ; defines %r4 only when %p1 holds\n"
                  "k.ptx:14:2: error: %r9 is read but nothing writes it before this instruction "
                  "[undefined-register]\n"
                  "  k.ptx:14: add.u32 %r5, %r4, %r9;\n"
                  "    source: /nonexistent/k.cu:42:7\n"
                  "  note: witness: thread (0,0,0) of block (0,0,0) reads %r9 at line 14, which "
                  "nothing on its path wrote\n"
                  "  note: path: line 10 -> 11 -> 12 -> 14\n")
      << text;
  std::string with_summary = format_text({report()}, true);
  EXPECT_NE(with_summary.find("k.ptx: 1 errors, 1 warnings (undefined-register fail sites="),
            std::string::npos)
      << with_summary;
}

TEST(VerifyReport, OneLineFormForLoadRefusals) {
  FileReport r = report();
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(format_one_line(r.findings[1]),
            "k.ptx:14:2: error: %r9 is read but nothing writes it before this instruction "
            "[undefined-register]");
}

TEST(VerifyReport, JsonHasTheCliMdShape) {
  auto j = nlohmann::json::parse(format_json({report()}));
  ASSERT_EQ(j["files"].size(), 1u);
  const auto& f = j["files"][0];
  EXPECT_EQ(f["path"], "k.ptx");
  ASSERT_EQ(f["findings"].size(), 2u);
  const auto& x = f["findings"][1];
  EXPECT_EQ(x["rule"], "undefined-register");
  EXPECT_EQ(x["severity"], "error");
  EXPECT_EQ(x["kernel"], "k");
  EXPECT_EQ(x["line"], 14);
  EXPECT_EQ(x["source"]["line"], 42);
  EXPECT_EQ(f["findings"][0]["severity"], "warning");
  EXPECT_EQ(f["findings"][0]["related"][0]["line"], 12);
  ASSERT_EQ(f["rules"].size(), 2u);
  EXPECT_EQ(f["rules"][0]["id"], "undefined-register");
  EXPECT_EQ(f["rules"][0]["status"], "fail");
  EXPECT_GT(f["rules"][0]["sites"].get<int>(), 0);
  EXPECT_EQ(f["rules"][1]["id"], "dead-value");
  EXPECT_EQ(f["rules"][1]["status"], "pass");
}

TEST(VerifyReport, JsonSaysNotApplicableWhenNothingWasExamined) {
  Module m = parse_or_fail(kernel("", "\tret;\n"), "e.ptx");
  auto j = nlohmann::json::parse(format_json({verify_module(m, two_rules())}));
  for (const auto& r : j["files"][0]["rules"]) {
    EXPECT_EQ(r["status"], "not-applicable") << r["id"];
    EXPECT_EQ(r["sites"], 0);
  }
  EXPECT_TRUE(j["files"][0]["findings"].empty());
}

TEST(VerifyReport, SarifIsVersion210WithRulesResultsAndRelatedLocations) {
  auto j = nlohmann::json::parse(format_sarif({report()}));
  EXPECT_EQ(j["version"], "2.1.0");
  EXPECT_NE(j["$schema"].get<std::string>().find("sarif-2.1.0"), std::string::npos);
  ASSERT_EQ(j["runs"].size(), 1u);
  const auto& run = j["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "ptxkit");
  const auto& rules = run["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0]["id"], "undefined-register");
  const auto& results = run["results"];
  ASSERT_EQ(results.size(), 2u);
  const auto& r0 = results[0];
  EXPECT_EQ(r0["ruleId"], "undefined-register");
  EXPECT_EQ(r0["ruleIndex"], 0);
  EXPECT_EQ(r0["level"], "warning");
  EXPECT_FALSE(r0["message"]["text"].get<std::string>().empty());
  const auto& loc = r0["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "k.ptx");
  EXPECT_EQ(loc["region"]["startLine"], 14);
  ASSERT_EQ(r0["relatedLocations"].size(), 1u);
  EXPECT_EQ(r0["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 12);
  EXPECT_EQ(results[1]["level"], "error");
}

// A warning resting on an assumption and an error with a witness, as the three formats show them.
FileReport assumption_and_witness() {
  FileReport r;
  r.path = "w.ptx";
  Finding warn;
  warn.rule = "barrier-divergence";
  warn.severity = Severity::kWarning;
  warn.location = {"w.ptx", 7, 2};
  warn.message = "bar.sync behind a branch";
  warn.assumptions.push_back({"blockDim.x is not a multiple of 32", "declare .reqntid"});
  Finding err = warn;
  err.severity = Severity::kError;
  err.assumptions.clear();
  Witness w;
  w.block_dim = std::array<std::uint32_t, 3>{64, 1, 1};
  w.threads.push_back({{0, 0, 0}, {0, 0, 0}, "arrives"});
  w.threads.push_back({{40, 0, 0}, {0, 0, 0}, "skips it"});
  w.values.emplace_back("n", 17);
  w.path = {{"w.ptx", 5, 2}, {"w.ptx", 7, 2}};
  err.witness = w;
  r.findings = {warn, err};
  return r;
}

TEST(VerifyReport, AssumptionsAndWitnessesInEveryFormat) {
  const std::string text = format_text({assumption_and_witness()});
  EXPECT_NE(text.find("  note: a defect only if blockDim.x is not a multiple of 32; to decide it: "
                      "declare .reqntid\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  note: witness: block shape (64,1,1); thread (0,0,0) of block (0,0,0) "
                      "arrives; thread (40,0,0) of block (0,0,0) skips it; n = 17\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  note: path: line 5 -> 7\n"), std::string::npos) << text;

  auto j = nlohmann::json::parse(format_json({assumption_and_witness()}));
  const auto& f = j["files"][0]["findings"];
  EXPECT_EQ(f[0]["assumptions"][0]["condition"], "blockDim.x is not a multiple of 32");
  EXPECT_EQ(f[0]["assumptions"][0]["decide"], "declare .reqntid");
  EXPECT_FALSE(f[0].contains("witness"));
  EXPECT_FALSE(f[1].contains("assumptions"));
  EXPECT_EQ(f[1]["witness"]["block_dim"], nlohmann::json::array({64, 1, 1}));
  EXPECT_EQ(f[1]["witness"]["threads"][1]["tid"], nlohmann::json::array({40, 0, 0}));
  EXPECT_EQ(f[1]["witness"]["values"]["n"], 17);
  EXPECT_EQ(f[1]["witness"]["path"][1]["line"], 7);

  auto sarif = nlohmann::json::parse(format_sarif({assumption_and_witness()}));
  const auto& results = sarif["runs"][0]["results"];
  EXPECT_EQ(results[0]["properties"]["assumptions"][0],
            "blockDim.x is not a multiple of 32; to decide it: declare .reqntid");
  const auto& flows = results[1]["codeFlows"][0]["threadFlows"];
  ASSERT_EQ(flows.size(), 2u); // one per thread of the witness
  EXPECT_EQ(flows[1]["locations"][1]["location"]["physicalLocation"]["region"]["startLine"], 7);
}

TEST(VerifyReport, SourceLineIsReadFromTheFileNamedByDotFile) {
  std::string dir = ::testing::TempDir();
  std::string cu = dir + "/verify_report_src.cu";
  {
    std::ofstream out(cu);
    for (int i = 1; i <= 50; ++i)
      out << "  line " << i << "\n";
  }
  std::string text = kText;
  text.replace(text.find("/nonexistent/k.cu"), 17, cu);
  Module m = parse_or_fail(text, "k.ptx");
  VerifyOptions o = two_rules();
  o.read_source_lines = true;
  FileReport r = verify_module(m, o);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].source.text, "  line 42");
  EXPECT_NE(format_text({r}).find(cu + ":42:7: line 42"), std::string::npos);
}

} // namespace
} // namespace ptxkit::verifier::testing
