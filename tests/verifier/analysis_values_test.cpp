// analysis_values_test.cpp: SSA value numbering: copy propagation, loop-header phis ("before
// this iteration's update") versus back-edge values ("after"), the in-place and Triton shapes of
// an online-softmax running max, guarded may-defs and reaching definitions.
//
// Why: softmax-rescale-saved-max and the other value-based rules are written against exactly
// these answers; each case states the shape it models.
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

std::string loop_kernel(const std::string& body) {
  return kernel(".param .u64 p", "\t.reg .pred %p<4>;\n\t.reg .b32 %r<10>;\n\t.reg .f32 %f<40>;\n"
                                 "\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n" +
                                     body);
}

TEST(AnalysisValues, MovKeepsTheValueIdentity) {
  std::string text = loop_kernel("\tld.global.f32 %f1, [%rd1];\n"
                                 "\tmov.f32 %f2, %f1;\n"
                                 "\tmov.f32 %f3, %f2;\n"
                                 "\tadd.f32 %f4, %f3, %f1;\n"
                                 "\tst.global.f32 [%rd1], %f4;\n"
                                 "\tret;\n");
  Analyzed t = analyze(text);
  const auto& vn = t.a->values;
  InstId ld = inst_at(*t.a, line_of(text, "ld.global.f32 %f1"));
  InstId add = inst_at(*t.a, line_of(text, "add.f32"));
  ValueId loaded = vn.defined_value(ld);
  EXPECT_EQ(vn.value_of(add, 1), loaded);
  EXPECT_EQ(vn.value_of(add, 2), loaded);
  EXPECT_EQ(vn.defining_instruction(loaded), ld);
  EXPECT_FALSE(vn.is_phi(loaded));
  // The register-level view still sees the mov as the definition site.
  std::uint32_t m = vn.mention_index(add, 1, 0, false);
  ReachingDefs rd = vn.reaching_defs(m);
  EXPECT_EQ(rd.sites, std::vector<InstId>{inst_at(*t.a, line_of(text, "mov.f32 %f3"))});
  EXPECT_FALSE(rd.undefined);
}

// The stale-maximum defect's in-place update (`max.f32 %f8, %f8, %f23`) with a saved copy of the
// old max.
const char* kInPlace = "\tmov.f32 %f8, 0fFF800000;\n"
                       "\tmov.u32 %r1, 0;\n"
                       "$L_loop:\n"
                       "\tld.global.f32 %f23, [%rd1];\n"
                       "\tmov.f32 %f26, %f8;\n"
                       "\tmax.f32 %f8, %f8, %f23;\n"
                       "\tsub.f32 %f27, %f26, %f8;\n"
                       "\tsub.f32 %f28, %f8, %f8;\n"
                       "\tadd.u32 %r1, %r1, 1;\n"
                       "\tsetp.lt.u32 %p1, %r1, 10;\n"
                       "\t@%p1 bra $L_loop;\n"
                       "\tst.global.f32 [%rd1], %f27;\n"
                       "\tret;\n";

TEST(AnalysisValues, InPlaceRunningMaxBeforeAndAfterTheUpdate) {
  std::string text = loop_kernel(kInPlace);
  Analyzed t = analyze(text);
  const auto& a = *t.a;
  const auto& vn = a.values;
  InstId max = inst_at(a, line_of(text, "max.f32"));
  InstId good = inst_at(a, line_of(text, "sub.f32 %f27"));
  InstId bad = inst_at(a, line_of(text, "sub.f32 %f28"));
  ValueId old_max = vn.value_of(max, 1);
  ValueId new_max = vn.defined_value(max);
  ASSERT_TRUE(vn.is_phi(old_max));
  EXPECT_EQ(vn.defining_instruction(old_max), kNoId);
  EXPECT_EQ(vn.defining_instruction(new_max), max);
  // Correct rescale: (old - new); the stale-maximum bug: (new - new).
  EXPECT_EQ(vn.value_of(good, 1), old_max);
  EXPECT_EQ(vn.value_of(good, 2), new_max);
  EXPECT_EQ(vn.value_of(bad, 1), vn.value_of(bad, 2));
  EXPECT_EQ(vn.value_of(bad, 1), new_max);
  auto lc = vn.loop_carried(old_max, a.loops);
  EXPECT_EQ(lc.updated, std::vector<ValueId>{new_max});
  ASSERT_EQ(lc.initial.size(), 1u);
  EXPECT_EQ(vn.defining_instruction(lc.initial[0]), inst_at(a, line_of(text, "0fFF800000")));
  EXPECT_EQ(vn.phi_incoming(old_max).size(), 2u);
}

// Triton's shape: the new max lands in a fresh register and a mov at the loop end carries it.
TEST(AnalysisValues, TritonShapeCarriesTheNewMaxThroughAMov) {
  std::string text = loop_kernel("\tmov.f32 %f1, 0fFF800000;\n"
                                 "\tmov.u32 %r1, 0;\n"
                                 "$L_loop:\n"
                                 "\tld.global.f32 %f2, [%rd1];\n"
                                 "\tmax.f32 %f3, %f1, %f2;\n"
                                 "\tsub.f32 %f4, %f1, %f3;\n"
                                 "\tmov.f32 %f1, %f3;\n"
                                 "\tadd.u32 %r1, %r1, 1;\n"
                                 "\tsetp.lt.u32 %p1, %r1, 10;\n"
                                 "\t@%p1 bra $L_loop;\n"
                                 "\tst.global.f32 [%rd1], %f4;\n"
                                 "\tret;\n");
  Analyzed t = analyze(text);
  const auto& a = *t.a;
  const auto& vn = a.values;
  InstId max = inst_at(a, line_of(text, "max.f32"));
  InstId sub = inst_at(a, line_of(text, "sub.f32"));
  ValueId old_max = vn.value_of(sub, 1);
  ASSERT_TRUE(vn.is_phi(old_max));
  EXPECT_EQ(vn.value_of(max, 1), old_max);
  EXPECT_EQ(vn.value_of(sub, 2), vn.defined_value(max));
  EXPECT_EQ(vn.loop_carried(old_max, a.loops).updated, std::vector<ValueId>{vn.defined_value(max)});
}

TEST(AnalysisValues, LoopInvariantRegisterKeepsItsIdentityAroundTheLoop) {
  std::string text = loop_kernel("\tmov.u32 %r5, 3;\n"
                                 "\tmov.u32 %r1, 0;\n"
                                 "$L_loop:\n"
                                 "\tmov.u32 %r5, %r5;\n"
                                 "\tadd.u32 %r1, %r1, %r5;\n"
                                 "\tsetp.lt.u32 %p1, %r1, 10;\n"
                                 "\t@%p1 bra $L_loop;\n"
                                 "\tret;\n");
  Analyzed t = analyze(text);
  const auto& vn = t.a->values;
  InstId add = inst_at(*t.a, line_of(text, "add.u32 %r1"));
  EXPECT_EQ(vn.value_of(add, 2), vn.defined_value(inst_at(*t.a, line_of(text, "mov.u32 %r5, 3"))));
  EXPECT_TRUE(vn.is_phi(vn.value_of(add, 1)));
}

TEST(AnalysisValues, GuardedWritesAreMayDefs) {
  std::string text = loop_kernel("\tsetp.eq.u64 %p1, %rd1, 0;\n"
                                 "\tmov.u32 %r1, 1;\n"
                                 "\t@%p1 mov.u32 %r1, 2;\n"
                                 "\tadd.u32 %r2, %r1, 1;\n"
                                 "\t@%p1 mov.u32 %r3, 5;\n"
                                 "\tadd.u32 %r4, %r3, 1;\n"
                                 "\t@%p1 add.u32 %r5, %r3, 1;\n"
                                 "\t@%p1 mov.u32 %r6, 1;\n"
                                 "\t@!%p1 mov.u32 %r6, 2;\n"
                                 "\tadd.u32 %r7, %r6, 1;\n"
                                 "\tret;\n");
  Analyzed t = analyze(text);
  const auto& a = *t.a;
  const auto& vn = a.values;
  auto rd = [&](const char* needle, std::uint32_t operand) {
    InstId i = inst_at(a, line_of(text, needle));
    return vn.reaching_defs(vn.mention_index(i, operand, 0, false));
  };
  ReachingDefs r1 = rd("add.u32 %r2", 1);
  EXPECT_EQ(r1.sites, (std::vector<InstId>{inst_at(a, line_of(text, "mov.u32 %r1, 1")),
                                           inst_at(a, line_of(text, "@%p1 mov.u32 %r1, 2"))}));
  EXPECT_FALSE(r1.undefined);
  ReachingDefs r3 = rd("add.u32 %r4", 1);
  EXPECT_EQ(r3.sites.size(), 1u);
  EXPECT_TRUE(r3.undefined);
  // Read under the same guard: only the guarded write reaches.
  ReachingDefs r5 = rd("add.u32 %r5", 1);
  EXPECT_EQ(r5.sites.size(), 1u);
  EXPECT_FALSE(r5.undefined);
  // Complementary guards define on both paths.
  ReachingDefs r6 = rd("add.u32 %r7", 1);
  EXPECT_EQ(r6.sites.size(), 2u);
  EXPECT_FALSE(r6.undefined);
  EXPECT_NE(vn.guard_value(inst_at(a, line_of(text, "@%p1 mov.u32 %r1, 2"))), kNoId);
}

TEST(AnalysisValues, VectorAndPairDestinationsEachGetAValue) {
  std::string text = loop_kernel("\tld.global.v2.f32 {%f1, %f2}, [%rd1];\n"
                                 "\tsetp.lt.f32 %p1|%p2, %f1, %f2;\n"
                                 "\tselp.f32 %f3, %f1, %f2, %p2;\n"
                                 "\tst.global.f32 [%rd1], %f3;\n"
                                 "\tret;\n");
  Analyzed t = analyze(text);
  const auto& a = *t.a;
  const auto& vn = a.values;
  InstId ld = inst_at(a, line_of(text, "ld.global.v2"));
  InstId setp = inst_at(a, line_of(text, "setp"));
  InstId selp = inst_at(a, line_of(text, "selp"));
  EXPECT_EQ(vn.value_of(selp, 1), vn.defined_value(ld, 0, 0));
  EXPECT_EQ(vn.value_of(selp, 2), vn.defined_value(ld, 0, 1));
  EXPECT_NE(vn.defined_value(ld, 0, 0), vn.defined_value(ld, 0, 1));
  EXPECT_EQ(vn.value_of(selp, 3), vn.defined_value(setp, 0, 1));
  EXPECT_EQ(vn.uses(vn.defined_value(setp, 0, 0)).size(), 0u);
}

} // namespace
} // namespace ptxkit::verifier::testing
