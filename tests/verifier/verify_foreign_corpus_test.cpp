// verify_foreign_corpus_test.cpp: `verify` over PTX that other projects' code compiles to
// (scripts/make-foreign-corpus.sh: CUTLASS's Ampere/Hopper/Blackwell GEMMs and attention kernels,
// NVIDIA's cuda-samples, CCCL's cuda::ptx instruction tests) and over GPUVerify's labelled CUDA
// suite.
//
// Why: every file here is correct code that ptxas accepts, so every error finding is a false
// alarm, and a lint that cries wolf on CUTLASS gets switched off. The few files the verifier
// still misjudges are listed, with their error count and the reason, in
// tests/corpus/known-false-alarms.tsv: a listed file may not get worse, an unlisted one must be
// clean, and a listed one that became clean must leave the list (so the list only shrinks).
#include "analysis_planted_util.h"
#include "analysis_test_util.h"
#include "ptx_files_test_util.h"
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/report.h"
#include "ptxkit/verifier/verify.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::verifier {
namespace {

using testing::read_whole_file;

std::vector<std::string> ptx_files(const char* dir) {
  return testing::ptx_files_in(dir);
}

// file name -> error findings still expected (tab-separated: file, count, reason).
std::map<std::string, std::uint32_t> known_false_alarms() {
  std::map<std::string, std::uint32_t> out;
  std::istringstream in(read_whole_file(PTXKIT_KNOWN_FALSE_ALARMS));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string file, count;
    std::getline(fields, file, '\t');
    std::getline(fields, count, '\t');
    out[file] = static_cast<std::uint32_t>(std::stoul(count));
  }
  return out;
}

struct Verified {
  FileReport report;
  std::uint32_t errors = 0;
  std::string error_text; // the error findings, formatted, for the failure message
};

Verified verify_file(const std::string& dir, const std::string& name,
                     std::optional<std::array<std::uint32_t, 3>> block_dim = std::nullopt) {
  std::string text = read_whole_file(dir + "/" + name);
  EXPECT_FALSE(text.empty()) << name;
  VerifyOptions o;
  o.read_source_lines = false;
  o.block_dim = block_dim;
  VerifyTextResult r = verify_text(std::move(text), name, o);
  EXPECT_FALSE(r.parse_error.has_value()) << (r.parse_error ? r.parse_error->format() : "");
  Verified v;
  v.report = r.report;
  FileReport only_errors = r.report;
  only_errors.findings.clear();
  for (const Finding& f : r.report.findings)
    if (f.severity == Severity::kError) only_errors.findings.push_back(f);
  v.errors = static_cast<std::uint32_t>(only_errors.findings.size());
  if (only_errors.findings.size() > 20) only_errors.findings.resize(20);
  v.error_text = format_text({only_errors});
  return v;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class ForeignCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(ForeignCorpus, NoErrorFindingsBeyondTheKnownFalseAlarms) {
  static const auto known = known_false_alarms();
  Verified v = verify_file(PTXKIT_FOREIGN_DIR, GetParam());
  auto it = known.find(GetParam());
  std::uint32_t allowed = it == known.end() ? 0 : it->second;
  EXPECT_LE(v.errors, allowed) << v.error_text;
  if (it != known.end()) {
    EXPECT_GT(v.errors, 0u) << GetParam()
                            << " is clean now: remove it from tests/corpus/known-false-alarms.tsv";
  }
}

INSTANTIATE_TEST_SUITE_P(Files, ForeignCorpus, ::testing::ValuesIn(ptx_files(PTXKIT_FOREIGN_DIR)),
                         test_name);

// Codebases the rules were not tuned on (scripts/make-unseen-corpus.sh: ggml's CUDA backend,
// llm.c, HeCBench). Every error is either a true defect of the compiled code, listed with its
// rule and the reason in tests/corpus/true-defects.tsv (each must still be found, with a witness
// that replays), or a known false alarm (known-false-alarms.tsv: may not grow, must leave the
// list when clean). Nothing else may draw an error.
struct ListedTrueDefect {
  std::string file, rule;
  std::uint32_t count = 0;
};

std::vector<ListedTrueDefect> listed_true_defects() {
  std::vector<ListedTrueDefect> out;
  std::istringstream in(read_whole_file(PTXKIT_TRUE_DEFECTS));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    ListedTrueDefect d;
    std::string count;
    std::getline(fields, d.file, '\t');
    std::getline(fields, d.rule, '\t');
    std::getline(fields, count, '\t');
    d.count = static_cast<std::uint32_t>(std::stoul(count));
    out.push_back(std::move(d));
  }
  return out;
}

class UnseenCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(UnseenCorpus, OnlyListedTrueDefectsAndKnownFalseAlarms) {
  static const auto known = known_false_alarms();
  static const auto defects = listed_true_defects();
  Verified v = verify_file(PTXKIT_UNSEEN_DIR, GetParam());
  std::uint32_t errors = v.errors;
  for (const ListedTrueDefect& d : defects) {
    if (d.file != GetParam()) continue;
    std::uint32_t found = 0;
    for (const Finding& f : v.report.findings) {
      if (f.severity != Severity::kError || f.rule != d.rule) continue;
      ++found;
      EXPECT_TRUE(f.witness.has_value()) << d.rule << " error without a witness:\n" << v.error_text;
    }
    EXPECT_EQ(found, d.count) << d.rule << " in " << d.file
                              << ": the listed true defect is no longer found as listed";
    errors -= std::min(errors, found);
  }
  auto it = known.find(GetParam());
  std::uint32_t allowed = it == known.end() ? 0 : it->second;
  EXPECT_LE(errors, allowed) << v.error_text;
  if (it != known.end()) {
    EXPECT_GT(errors, 0u) << GetParam()
                          << " is clean now: remove it from tests/corpus/known-false-alarms.tsv";
  }
}

INSTANTIATE_TEST_SUITE_P(Files, UnseenCorpus, ::testing::ValuesIn(ptx_files(PTXKIT_UNSEEN_DIR)),
                         test_name);

TEST(UnseenCorpusPresence, ThreeCodebasesTwoTargetsAndTheListsNameRealFiles) {
  std::vector<std::string> files = ptx_files(PTXKIT_UNSEEN_DIR);
  EXPECT_GE(files.size(), 200u);
  for (std::string_view producer : {"ggml.", "llmc.", "hecbench."}) {
    for (std::string_view target : {".sm_80.ptx", ".sm_90.ptx"}) {
      auto n = std::count_if(files.begin(), files.end(), [&](const std::string& f) {
        return f.starts_with(producer) && f.ends_with(target);
      });
      EXPECT_GE(n, 5) << producer << "*" << target;
    }
  }
  for (const ListedTrueDefect& d : listed_true_defects())
    EXPECT_NE(std::find(files.begin(), files.end(), d.file), files.end()) << d.file;
}

// Positive controls where the refinements above matter most: CUTLASS's Blackwell FMHA is clean
// only because merges its elect-one and rematerialized-parameter paths make are proven uniform;
// a tcgen05.ld (warp-collective, .sync.aligned) moved under a lane-varying branch, or a
// lane-varying exit before a vote.sync, must still be an error at that line.
TEST(ForeignCorpusPlanted, BlackwellFmhaCollectivesUnderLaneVaryingControl) {
  const std::string name = "cutlass.blackwell_fmha.sm_100a.ptx";
  const std::string text = read_whole_file(std::string(PTXKIT_FOREIGN_DIR) + "/" + name);
  ASSERT_FALSE(text.empty());
  const std::vector<std::string> lines = testing::split_lines(text);
  struct Plant {
    std::string rule, needle;
    std::vector<std::string> before; // inserted before the picked line
  };
  const std::vector<Plant> plants = {
      {"barrier-divergence",
       "tcgen05.ld.sync.aligned",
       {"\t{", "\t.reg .pred %pplant;", "\t.reg .b32 %rplant;", "\tmov.u32 %rplant, %tid.x;",
        "\tsetp.ne.u32 %pplant, %rplant, 0;", "\t@%pplant bra $L_planted;"}},
      {"partial-warp-collective",
       "vote.sync.any.pred",
       {"\t{", "\t.reg .pred %pplant;", "\t.reg .b32 %rplant;", "\tmov.u32 %rplant, %laneid;",
        "\tsetp.gt.u32 %pplant, %rplant, 15;", "\t@%pplant bra $L_planted;"}},
  };
  for (const Plant& p : plants) {
    EXPECT_EQ(testing::verify_one(text, p.rule, name).error_count(), 0u) << p.rule;
    auto it = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find(p.needle) != std::string::npos && l.find('@') == std::string::npos;
    });
    ASSERT_NE(it, lines.end()) << p.needle;
    std::vector<std::string> out(lines.begin(), it);
    out.insert(out.end(), p.before.begin(), p.before.end());
    const auto expected = static_cast<std::uint32_t>(out.size() + 1);
    out.push_back(*it);
    out.insert(out.end(), {"$L_planted:", "\t}"});
    out.insert(out.end(), it + 1, lines.end());
    FileReport r = testing::verify_one(testing::join_lines(out), p.rule, name);
    bool found = false;
    for (const Finding& f : r.findings)
      found = found || (f.severity == Severity::kError && f.location.line == expected);
    EXPECT_TRUE(found) << p.rule << ": planted before line " << (it - lines.begin()) + 1;
  }
}

TEST(ForeignCorpusPresence, EveryProducerIsThereAndTheListNamesRealFiles) {
  std::vector<std::string> files = ptx_files(PTXKIT_FOREIGN_DIR);
  for (std::string_view producer : {"cutlass.", "cuda-samples.", "cccl."}) {
    auto n = std::count_if(files.begin(), files.end(),
                           [&](const std::string& f) { return f.starts_with(producer); });
    EXPECT_GE(n, 8) << producer;
  }
  const std::vector<std::string> unseen = ptx_files(PTXKIT_UNSEEN_DIR);
  for (const auto& [file, count] : known_false_alarms()) {
    EXPECT_TRUE(std::find(files.begin(), files.end(), file) != files.end() ||
                std::find(unseen.begin(), unseen.end(), file) != unseen.end())
        << file;
    EXPECT_GT(count, 0u) << file;
  }
  // The sweep examines something: a Hopper warp-specialized GEMM has barriers, warp collectives
  // and registers for every rule that clears it. (Some CCCL tests compile to empty kernels on a
  // target without their instruction: those have nothing to examine.)
  Verified gemm = verify_file(PTXKIT_FOREIGN_DIR, "cutlass.hopper_ws_gemm.sm_90a.ptx");
  for (std::string_view rule : {"barrier-divergence", "partial-warp-collective",
                                "undefined-register", "dead-value", "state-space-mismatch"}) {
    auto it = std::find_if(gemm.report.rules.begin(), gemm.report.rules.end(),
                           [&](const RuleStatus& s) { return s.id == rule; });
    ASSERT_NE(it, gemm.report.rules.end()) << rule;
    EXPECT_GT(it->sites, 0u) << rule;
  }
}

// GPUVerify's suite, each kernel at -O3 and at -Xcicc -O0 (`.O0.` in the name): labels.tsv gives
// each file's label ("pass": GPUVerify proves it free of races and barrier divergence; "race",
// "other": a defect of a kind these rules do not model, or a GPUVerify-specific failure) and the
// block shape its `//--blockDim=` annotation launches it with ("64", "8,8"; "-" when none), and
// "warp-sync" when GPUVerify proved it assuming lock-step warps. Kernels labelled pass must draw
// no error, as the PTX stands, and under that block shape unless the proof needed lock-step
// warps: the PTX memory model orders no two lanes without a barrier or a warp sync, so
// `if (lane >= 1) A[tid] += A[tid - 1];` is a race there.
struct GpuVerifyLabel {
  std::string file, label, block_dim, sync;
};

std::vector<GpuVerifyLabel> gpuverify_labels() {
  std::vector<GpuVerifyLabel> out;
  std::istringstream in(read_whole_file(std::string(PTXKIT_GPUVERIFY_DIR) + "/labels.tsv"));
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    GpuVerifyLabel l;
    std::getline(fields, l.file, '\t');
    std::getline(fields, l.label, '\t');
    std::getline(fields, l.block_dim, '\t');
    std::getline(fields, l.sync, '\t');
    if (!l.label.empty()) out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::string> gpuverify_pass_files() {
  std::vector<std::string> out;
  for (const GpuVerifyLabel& l : gpuverify_labels())
    if (l.label == "pass") out.push_back(l.file);
  return out;
}

// The annotation's block shape, when it is one a launch can have (GPUVerify also checks blocks
// of 2048 threads, which CUDA cannot launch) and the kernel needs no lock-step warps.
std::optional<std::array<std::uint32_t, 3>> annotated_block_dim(const std::string& file) {
  for (const GpuVerifyLabel& l : gpuverify_labels()) {
    if (l.file != file || l.block_dim.empty() || l.block_dim == "-" || l.sync == "warp-sync")
      continue;
    std::array<std::uint32_t, 3> dims{1, 1, 1};
    std::istringstream parts(l.block_dim);
    std::size_t d = 0;
    for (std::string part; d < 3 && std::getline(parts, part, ',');)
      dims[d++] = static_cast<std::uint32_t>(std::stoul(part));
    if (block_dim_problem(dims).empty()) return dims;
  }
  return std::nullopt;
}

// Pass-labelled kernels with a true defect in the compiled PTX: one GPUVerify does not look for
// (it checks races and barrier divergence only), or a race its annotations rule out that the
// compiled kernel no longer states. The rule that finds it, and why it is right.
struct TrueDefect {
  std::string_view file, rule, why;
};
constexpr TrueDefect kTrueDefects[] = {
    {"gpuverify.memcpy.arrayofstruct.O0.sm_80.ptx", "undefined-register",
     "`pair_t fresh; pairs[threadIdx.x] = fresh;` stores an uninitialized struct: -O3 deletes "
     "the stores, -O0 keeps them, of registers nothing writes"},
    {"gpuverify.annotation_tests.test_axiom.sm_80.ptx", "shared-race",
     "`if (blockIdx.x != 16 || blockIdx.y != 16) A[0] = threadIdx.x;` is race-free only under "
     "the kernel's `__axiom(blockIdx.x == 16)`, which compiles to nothing: every thread of the "
     "other blocks stores its index to A[0]"},
};

// The errors of `v` that no entry of kTrueDefects explains (each entry must still be found).
std::uint32_t unexplained_errors(const Verified& v, const std::string& file) {
  std::uint32_t errors = v.errors;
  for (const TrueDefect& d : kTrueDefects) {
    if (d.file != file) continue;
    std::uint32_t found = 0;
    for (const Finding& f : v.report.findings)
      if (f.severity == Severity::kError && f.rule == d.rule) ++found;
    EXPECT_GT(found, 0u) << d.rule << " no longer finds: " << d.why;
    errors -= found;
  }
  return errors;
}

class GpuVerifyPass : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuVerifyPass, LabelledPassDrawsNoError) {
  Verified v = verify_file(PTXKIT_GPUVERIFY_DIR, GetParam());
  EXPECT_EQ(unexplained_errors(v, GetParam()), 0u) << v.error_text;
  if (auto dims = annotated_block_dim(GetParam())) {
    Verified shaped = verify_file(PTXKIT_GPUVERIFY_DIR, GetParam(), dims);
    EXPECT_EQ(unexplained_errors(shaped, GetParam()), 0u) << "with the annotated block shape\n"
                                                          << shaped.error_text;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, GpuVerifyPass, ::testing::ValuesIn(gpuverify_pass_files()),
                         test_name);

TEST(GpuVerifyPresence, LabelsCoverTheSuite) {
  auto labels = gpuverify_labels();
  EXPECT_GE(labels.size(), 200u);
  EXPECT_GE(gpuverify_pass_files().size(), 160u);
  // Both optimization levels are there, and most kernels carry a block shape a launch can have.
  std::size_t o0 = 0, shaped = 0;
  for (const GpuVerifyLabel& l : labels) {
    o0 += l.file.find(".O0.") != std::string::npos;
    shaped += annotated_block_dim(l.file).has_value();
  }
  EXPECT_GE(o0, 100u);
  EXPECT_GE(shaped, 150u);
}

} // namespace
} // namespace ptxkit::verifier
