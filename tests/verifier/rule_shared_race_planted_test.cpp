// rule_shared_race_planted_test.cpp: planted missing barriers for `shared-race` in real block
// reductions: ours (golden RMSNorm, LayerNorm, fused residual RMSNorm: each warp's partial sum is
// stored to shared memory, a barrier, then every thread reads all of them) and CUB's
// (DeviceReduce's BlockReduce in the corpus, checked under its .maxntid shape given as the block
// shape, as `ptxkit verify --block-dim 256` does). Each `bar.sync` that separates a shared store
// from a later shared load is deleted in turn: the rule must report an error, and its first error
// must be that load (a thread reads an element another thread wrote in the same interval). The
// unmodified kernels draw no error.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"

#include <array>
#include <gtest/gtest.h>
#include <iostream>
#include <optional>

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "shared-race";

struct Input {
  std::string path; // below the source tree, or the corpus directory for "corpus:" names
  std::optional<std::array<std::uint32_t, 3>> block_dim;
};

std::string read_input(const Input& in) {
  const std::string corpus = "corpus:";
  if (in.path.starts_with(corpus)) {
    std::ifstream f(std::string(PTXKIT_CORPUS_DIR) + "/" + in.path.substr(corpus.size()));
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  return read_source_file(in.path);
}

FileReport run(const std::string& text, const Input& in) {
  Module m = parse_or_fail(text, "planted.ptx");
  VerifyOptions o;
  o.rules = {kRule};
  o.read_source_lines = false;
  o.block_dim = in.block_dim;
  return verify_module(m, o);
}

bool has(const std::string& line, const std::string& what) {
  return line.find(what) != std::string::npos;
}

class SharedRacePlanted : public ::testing::TestWithParam<Input> {};

TEST_P(SharedRacePlanted, MissingBarrierFiresAtTheLoad) {
  const std::string text = read_input(GetParam());
  ASSERT_FALSE(text.empty()) << GetParam().path;
  EXPECT_EQ(run(text, GetParam()).error_count(), 0u) << "the unmodified kernel";
  const std::vector<std::string> lines = split_lines(text);
  std::uint32_t planted = 0;
  for (std::size_t b = 0; b < lines.size(); ++b) {
    if (!has(lines[b], "bar.sync")) continue;
    // A shared store before it (since the previous barrier) and a shared load after it.
    bool store = false;
    for (std::size_t k = b; k-- > 0 && !has(lines[k], "bar.sync");)
      store = store || has(lines[k], "st.shared");
    std::size_t load = 0;
    for (std::size_t k = b + 1; k < lines.size() && load == 0 && !has(lines[k], "bar.sync"); ++k)
      if (has(lines[k], "ld.shared")) load = k;
    if (!store || load == 0) continue;
    std::vector<std::string> mut = lines;
    mut.erase(mut.begin() + static_cast<std::ptrdiff_t>(b));
    FileReport r = run(join_lines(mut), GetParam());
    std::uint32_t first = 0;
    for (const Finding& f : r.findings)
      if (f.severity == Severity::kError && (first == 0 || f.location.line < first))
        first = f.location.line;
    // The load moved up one line with the barrier gone.
    EXPECT_EQ(first, static_cast<std::uint32_t>(load))
        << GetParam().path << ": barrier at line " << b + 1 << " deleted";
    ++planted;
  }
  EXPECT_GT(planted, 0u) << GetParam().path;
  std::cout << GetParam().path << ": " << planted << " barriers deleted, each caught\n";
}

INSTANTIATE_TEST_SUITE_P(Kernels, SharedRacePlanted,
                         ::testing::Values(Input{"golden/rmsnorm.llama.sm_90.ptx", std::nullopt},
                                           Input{"golden/layernorm.llama.sm_90.ptx", std::nullopt},
                                           Input{"golden/fused_residual_rmsnorm.llama.sm_90.ptx",
                                                 std::nullopt},
                                           Input{"corpus:cub_reduce.sm_90.lineinfo.ptx",
                                                 std::array<std::uint32_t, 3>{256, 1, 1}}),
                         [](const ::testing::TestParamInfo<Input>& info) {
                           std::string s = info.param.path;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

} // namespace
} // namespace ptxkit::verifier::testing
