// corpus_roundtrip_test.cpp: every corpus file parses, prints, re-parses to an equal tree and
// re-prints to the same bytes; together the corpus covers the sm_90/sm_100 instruction families.
//
// Why: the parser's claim is "every real PTX file", so it is tested on real compiler output
// (tests/corpus, made by scripts/make-corpus.sh), one ctest per file.
#include "ptx_files_test_util.h"
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/printer.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

namespace ptxkit::verifier {
namespace {

std::vector<std::string> corpus_files() {
  return testing::ptx_files_in(PTXKIT_CORPUS_DIR);
}

std::string read(const std::string& name) {
  return testing::read_whole_file(std::string(PTXKIT_CORPUS_DIR) + "/" + name);
}

class CorpusFile : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusFile, ParsesAndRoundTrips) {
  std::string text = read(GetParam());
  ASSERT_FALSE(text.empty()) << GetParam();
  auto a = parse_owned(std::move(text), GetParam());
  ASSERT_TRUE(a.ok()) << a.error().format();
  EXPECT_FALSE(a->functions().empty());
  std::string p1 = print(*a);
  auto b = parse(p1, GetParam() + ".fmt");
  ASSERT_TRUE(b.ok()) << b.error().format();
  EXPECT_TRUE(equal_ignoring_locations(*a, *b));
  EXPECT_EQ(print(*b), p1) << "printing is not idempotent";
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusFile, ::testing::ValuesIn(corpus_files()), test_name);

void collect(const std::vector<Statement>& stmts, std::set<std::string>& ops) {
  for (const Statement& s : stmts) {
    if (const auto* i = std::get_if<Instruction>(&s.node)) {
      std::string op(i->opcode);
      ops.insert(op);
      for (std::string_view m : i->modifiers) {
        op += '.';
        op += m;
        ops.insert(op); // every prefix: "cp", "cp.async", "cp.async.bulk", ...
      }
    } else if (const auto* b = std::get_if<Block>(&s.node)) {
      collect(b->statements, ops);
    }
  }
}

TEST(Corpus, CoversTheInstructionFamilies) {
  std::vector<std::string> files = corpus_files();
  ASSERT_GE(files.size(), 30u) << "corpus not unpacked in " << PTXKIT_CORPUS_DIR;
  std::set<std::string> ops;
  for (const std::string& f : files) {
    if (f.find(".G.") != std::string::npos) continue; // same instructions as -lineinfo
    auto m = parse_owned(read(f), f);
    ASSERT_TRUE(m.ok()) << m.error().format();
    for (const Function* fn : m->functions())
      collect(fn->body.statements, ops);
  }
  for (const char* family : {"cp.async",
                             "cp.async.bulk",
                             "cp.async.bulk.tensor",
                             "mbarrier.init",
                             "mbarrier.try_wait",
                             "mbarrier.arrive",
                             "wgmma.mma_async",
                             "wgmma.fence",
                             "mma.sync",
                             "ldmatrix",
                             "stmatrix",
                             "fence.proxy.async",
                             "elect.sync",
                             "setmaxnreg",
                             "griddepcontrol",
                             "tcgen05.alloc",
                             "tcgen05.mma",
                             "tcgen05.ld",
                             "tcgen05.commit",
                             "shfl.sync",
                             "atom",
                             "bar.sync",
                             "call",
                             "ld.global",
                             "st.shared"})
    EXPECT_TRUE(ops.count(family)) << "no " << family << " instruction in the corpus";
}

} // namespace
} // namespace ptxkit::verifier
