// rule_partial_warp_launch_shape_test.cpp: `partial-warp-collective` on the warp index nvcc code
// computes as (ctaid.x * ntid.x + tid.x) >> 5. It is the same in every lane only when ntid.x is a
// multiple of 32: with .reqntid saying so the shuffle is proved safe (quiet), with a declared
// shape that breaks it (48 x 2) it is an error, and with no launch bound at all it is a warning
// that asks for one. A branch that varies whatever the shape stays an error without a bound.
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

// Warp `w` of the grid sums row w; whole warps past `rows` leave before the butterfly.
std::string warp_per_row(const std::string& directives, const std::string& branch_value) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n\n"
         ".visible .entry warp_per_row(.param .u64 y, .param .u32 rows)\n" +
         directives +
         "{\n"
         "\t.reg .pred %p<4>;\n\t.reg .b32 %r<20>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<6>;\n"
         "\tld.param.u64 %rd1, [y];\n"
         "\tld.param.u32 %r1, [rows];\n"
         "\tmov.u32 %r2, %ctaid.x;\n"
         "\tmov.u32 %r3, %ntid.x;\n"
         "\tmov.u32 %r4, %tid.x;\n"
         "\tmad.lo.s32 %r5, %r2, %r3, %r4;\n"
         "\tshr.s32 %r6, %r5, 5;\n"
         "\tand.b32 %r7, %r4, 1;\n"
         "\tsetp.ge.s32 %p1, " +
         branch_value +
         ", %r1;\n"
         "\t@%p1 bra $L_done;\n"
         "\tcvt.rn.f32.s32 %f1, %r4;\n"
         "\tshfl.sync.bfly.b32 %f2, %f1, 16, 31, -1;\n"
         "\tadd.f32 %f3, %f1, %f2;\n"
         "\tmul.wide.s32 %rd2, %r6, 4;\n"
         "\tadd.s64 %rd3, %rd1, %rd2;\n"
         "\tst.global.f32 [%rd3], %f3;\n"
         "$L_done:\n"
         "\tret;\n"
         "}\n";
}

struct Counts {
  std::size_t errors = 0, warnings = 0, sites = 0;
  std::string text;
};

Counts check(const std::string& ptx) {
  FileReport r = verify_one(ptx, "partial-warp-collective", "k.ptx");
  Counts c;
  for (const Finding& f : r.findings) {
    (f.severity == Severity::kError ? c.errors : c.warnings) += 1;
    c.text += f.message + "\n";
    for (const Assumption& a : f.assumptions)
      c.text += "  assuming " + a.condition + "; " + a.decide + "\n";
  }
  for (const RuleStatus& s : r.rules)
    if (s.id == "partial-warp-collective") c.sites = s.sites;
  return c;
}

TEST(RulePartialWarpLaunchShape, WarpIndexIsProvedByReqntidAndAWarningWithoutABound) {
  Counts proved = check(warp_per_row(".reqntid 128, 1, 1\n", "%r6"));
  EXPECT_EQ(proved.errors + proved.warnings, 0u) << proved.text;
  EXPECT_EQ(proved.sites, 1u);

  Counts unknown = check(warp_per_row("", "%r6"));
  EXPECT_EQ(unknown.errors, 0u) << unknown.text;
  ASSERT_EQ(unknown.warnings, 1u) << unknown.text;
  EXPECT_NE(unknown.text.find("multiple of 32"), std::string::npos) << unknown.text;
  EXPECT_NE(unknown.text.find(".reqntid"), std::string::npos) << unknown.text;
}

TEST(RulePartialWarpLaunchShape, ADeclaredShapeThatSplitsWarpsOrALaneVaryingBranchIsAnError) {
  // 48 x 2 threads: warp 0 holds tid.x 0..31 of row 0, warp 1 holds tid.x 32..47 of row 0 and
  // 0..15 of row 1, whose global x indices differ by more than 32.
  Counts split = check(warp_per_row(".reqntid 48, 2, 1\n", "%r6"));
  EXPECT_EQ(split.errors, 1u) << split.text;
  // .maxntid bounds the thread count, not the shape (nvcc writes __launch_bounds__(256) as
  // `.maxntid 256, 1, 1` for any launch shape): the same warning as without a bound.
  Counts bounded = check(warp_per_row(".maxntid 256, 1, 1\n", "%r6"));
  EXPECT_EQ(bounded.errors, 0u) << bounded.text;
  EXPECT_EQ(bounded.warnings, 1u) << bounded.text;
  // tid.x & 1 differs between neighbouring lanes under any launch shape.
  Counts lanes = check(warp_per_row("", "%r7"));
  EXPECT_EQ(lanes.errors, 1u) << lanes.text;
  EXPECT_EQ(lanes.warnings, 0u) << lanes.text;
}

} // namespace
} // namespace ptxkit::verifier::testing
