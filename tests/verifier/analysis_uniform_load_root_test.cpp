// analysis_uniform_load_root_test.cpp: a global load from a warp-uniform address is uniform when no
// store in the kernel may write through the same pointer parameter -- also when the address is
// formed by `mad.wide` (base + index * size in one instruction, as Triton and LLVM emit it). Found
// on real Triton 3.6 output: a decode-attention loop whose trip count is `lens[blockIdx.x]` was
// reported as 101 partial-warp-collective errors before pointer roots went through `mad`.
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

// lens (param 0) is only read; out (param 1) is written. `%r5` = lens[ctaid.x] (index `idx`) bounds
// a loop with a full-mask shuffle.
std::string loop_bounded_by_load(const std::string& index, const std::string& store_base) {
  return kernel(".param .u64 lens, .param .u64 out",
                "\t.reg .pred %p<4>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<8>;\n"
                "\tld.param.u64 %rd1, [lens];\n"
                "\tld.param.u64 %rd2, [out];\n"
                "\tmov.u32 %r1, %ctaid.x;\n"
                "\tmov.u32 %r2, %tid.x;\n"
                "\tmad.wide.u32 %rd3, " +
                    index +
                    ", 4, %rd1;\n"
                    "\tld.global.u32 %r5, [%rd3];\n"
                    "\tmov.u32 %r6, 0;\n"
                    "\tmov.u32 %r7, 0;\n"
                    "$L_loop:\n"
                    "\tsetp.ge.s32 %p1, %r6, %r5;\n"
                    "\t@%p1 bra $L_done;\n"
                    "\tshfl.sync.bfly.b32 %r8, %r2, 16, 31, -1;\n"
                    "\tadd.s32 %r7, %r7, %r8;\n"
                    "\tadd.s32 %r6, %r6, 1;\n"
                    "\tbra $L_loop;\n"
                    "$L_done:\n"
                    "\tmad.wide.u32 %rd4, %r2, 4, " +
                    store_base +
                    ";\n"
                    "\tst.global.u32 [%rd4], %r7;\n"
                    "\tret;\n");
}

bool load_uniform(const std::string& text) {
  Analyzed t = analyze(text);
  const auto& a = *t.a;
  return a.uniformity.is_uniform(
      a.values.defined_value(inst_at(a, line_of(text, "ld.global.u32 %r5")), 0));
}

TEST(AnalysisUniformLoadRoot, UniformAddressThroughMadWideOfAReadOnlyParameter) {
  const std::string clean = loop_bounded_by_load("%r1", "%rd2");
  EXPECT_TRUE(load_uniform(clean));
  EXPECT_EQ(verify_one(clean, "partial-warp-collective", "k.ptx").error_count(), 0u);
}

TEST(AnalysisUniformLoadRoot, LaneVaryingIndexOrAWrittenParameterMakeTheLoadVarying) {
  // The index is %tid.x: every lane reads its own length.
  const std::string per_lane = loop_bounded_by_load("%r2", "%rd2");
  EXPECT_FALSE(load_uniform(per_lane));
  // The finding stays; the interpreter cannot replay a loop bound loaded from memory, so it is
  // a warning that names the load (an error needs a replayed witness).
  const FileReport r = verify_one(per_lane, "partial-warp-collective", "k.ptx");
  ASSERT_FALSE(r.findings.empty());
  ASSERT_FALSE(r.findings[0].assumptions.empty());
  EXPECT_NE(r.findings[0].assumptions[0].condition.find("the value loaded at line"),
            std::string::npos)
      << r.findings[0].assumptions[0].condition;
  // The kernel also stores through `lens`: to the lane-level analysis another lane may have
  // changed the word in between. The warp-divergence refinement the rules use assumes race
  // freedom (a lane writing the word another lane reads without synchronizing is a race), so
  // a load from a warp-uniform address is uniform there and the rule stays quiet.
  const std::string written = loop_bounded_by_load("%r1", "%rd1");
  EXPECT_FALSE(load_uniform(written));
  EXPECT_EQ(verify_one(written, "partial-warp-collective", "k.ptx").error_count(), 0u);
}

} // namespace
} // namespace ptxkit::verifier::testing
