// analysis_register_ranges_test.cpp: `.reg` ranges at their edges. `%r<0>` declares nothing (a
// use of %r5 is undeclared, and the IR must not hand out an id past its table: the verify fuzzer
// found that read of uninitialised memory); `%q<4000000000>` is legal PTX (ptxas accepts it) and
// costs ids only for the indices the function names, up to FunctionIR::kMaxRangeIds; a register
// past that is still declared.
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

const std::string kRanges = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
                            ".visible .entry k()\n{\n"
                            "\t.reg .b32 %r<0>;\n"
                            "\t.reg .b32 %q<4000000000>;\n"
                            "\tmov.u32 %q3, 1;\n"
                            "\tmov.u32 %q3999999999, %q3;\n"
                            "\tadd.u32 %q3, %q3, %q3999999999;\n"
                            "\tmov.u32 %r5, %q3;\n"
                            "\tret;\n}\n";

TEST(AnalysisRegisterRanges, EmptyRangeDeclaresNothingAndHugeRangesCostOnlyWhatIsNamed) {
  Analyzed t = analyze(kRanges);
  const FunctionIR& ir = t.a->ir;
  EXPECT_NE(ir.resolve("%q3", 0), kNoId);
  EXPECT_EQ(ir.resolve("%r0", 0), kNoId); // %r<0>: no %r0
  EXPECT_EQ(ir.resolve("%r5", 0), kNoId);
  EXPECT_LE(ir.num_regs(), FunctionIR::kMaxRangeIds + 1); // not 4e9 ids
  EXPECT_EQ(ir.resolve("%q3999999999", 0), kNoId);        // declared, past the ids kept

  FileReport r = verify_one(kRanges, "undeclared-register", "k.ptx");
  ASSERT_EQ(r.error_count(), 1u); // %r5 only: %q3999999999 is declared
  EXPECT_EQ(r.findings[0].location.line, 12u);
  EXPECT_NE(r.findings[0].message.find("%r<0> declares no registers"), std::string::npos)
      << r.findings[0].message;
}

TEST(AnalysisRegisterRanges, ASmallRangeGetsOnlyTheIdsItsInstructionsCanName) {
  const std::string small = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
                            ".visible .entry k()\n{\n"
                            "\t.reg .b32 %r<100000>;\n"
                            "\tmov.u32 %r7, 1;\n"
                            "\tmov.u32 %r99999, %r7;\n"
                            "\tret;\n}\n";
  Analyzed t = analyze(small);
  EXPECT_NE(t.a->ir.resolve("%r99999", 0), kNoId);
  EXPECT_EQ(verify_one(small, "undeclared-register", "k.ptx").error_count(), 0u);
  // %r100000 is one past the range: undeclared.
  std::string past = small;
  past.replace(past.find("%r99999"), 7, "%r100000");
  EXPECT_EQ(verify_one(past, "undeclared-register", "k.ptx").error_count(), 1u);
}

} // namespace
} // namespace ptxkit::verifier::testing
