// test_loc.cpp: every .loc line names the user's C++ line, never a line of ptxgen's own headers.
//
// Instructions emitted by operators (`p + i` with a register index) are the risk: an operator
// has no trailing `Loc loc = Loc::current()`, so a location taken inside the operator's body
// would name builder.h. These tests pin the user's line for every index type and state space.
#include "every_instruction.h"
#include "ptxgen_test_util.h"
#include "ptxkit/ptxgen/ptxgen.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <string>

namespace ptxkit::ptxgen {
namespace {

// The `.file` entries of a printed module, as printed ("N \"path\"" without the directive).
std::set<std::string> file_entries(const std::string& ptx) {
  std::set<std::string> out;
  std::istringstream in(ptx);
  for (std::string l; std::getline(in, l);) {
    if (l.rfind(".file ", 0) == 0) out.insert(l.substr(6));
  }
  return out;
}

// The C++ lines the `.loc` directives name (file 1 only: the tests below use one file).
std::set<unsigned> loc_lines(const std::string& ptx) {
  std::set<unsigned> out;
  std::istringstream in(ptx);
  for (std::string l; std::getline(in, l);) {
    unsigned file = 0;
    unsigned line = 0;
    if (std::sscanf(l.c_str(), "\t.loc %u %u", &file, &line) == 2 && file == 1) out.insert(line);
  }
  return out;
}

TEST(Loc, RegisterIndexIsAttributedToTheIndexingLine) {
  KernelBuilder b("index_loc", target("sm_90"));
  auto out = b.param<Ptr<Global, F32>>("out");
  Ptr<Shared, F32> tile = b.shared_array<F32>("tile", 64);
  Reg<U32> i = b.tid_x();
  Reg<U64> wide = b.cvt<U64>(i);
  Reg<S32> signed_i = b.bitcast<S32>(i);
  Reg<F32> one = b.mov(imm<F32>(1.0f));
  const unsigned first = __LINE__ + 1;
  Ptr<Global, F32> g32 = out + i;
  Ptr<Global, F32> g64 = out + wide;
  Ptr<Global, F32> gs32 = out + signed_i;
  Ptr<Shared, F32> s32 = tile + i;
  Ptr<Shared, F32> ss32 = tile + signed_i;
  const unsigned last = __LINE__ - 1;
  b.st(g32, one);
  b.st(g64, one);
  b.st(gs32, one);
  b.st(s32, one);
  b.st(ss32, one);
  b.ret();
  const std::string ptx = print(b.finish().value(), PrintOptions{true, ""}).text;

  EXPECT_EQ(file_entries(ptx), std::set<std::string>{"1 \"tests/ptxgen/test_loc.cpp\""}) << ptx;
  const std::set<unsigned> lines = loc_lines(ptx);
  for (unsigned line = first; line <= last; ++line)
    EXPECT_EQ(lines.count(line), 1u) << "no instruction attributed to line " << line << "\n" << ptx;
}

// A kernel that uses every instruction family: its provenance names only the test's own source.
TEST(Loc, EveryInstructionIsAttributedToTheBuilderSource) {
  Expected<Kernel> k = testing::build_every_instruction_kernel(target("sm_90"));
  ASSERT_TRUE(k);
  const std::string ptx = print(*k, PrintOptions{true, ""}).text;
  EXPECT_EQ(file_entries(ptx), std::set<std::string>{"1 \"tests/ptxgen/every_instruction.cpp\""})
      << ptx;
}

} // namespace
} // namespace ptxkit::ptxgen
