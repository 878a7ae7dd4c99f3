// verify_load_test.cpp: verify_for_load(), the only factory of VerifiedPtx: clean PTX yields a
// VerifiedPtx carrying exactly the verified text and its module; a parse error or any error
// finding yields a LoadRefusal listing the diagnostics; warnings do not refuse.
#include "analysis_test_util.h"
#include "ptxkit/verifier/verified_ptx.h"

namespace ptxkit::verifier::testing {
namespace {

TEST(VerifyLoad, CleanPtxIsVerified) {
  // Each thread stores its index to its own word (p[tid] = tid: no two threads share a word).
  std::string ptx = kernel(".param .u64 p",
                           "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n"
                           "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n"
                           "\tadd.u64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;\n\tret;\n");
  auto v = verify_for_load(ptx, "clean.ptx");
  ASSERT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  EXPECT_EQ(v->text(), ptx);
  EXPECT_EQ(v->name(), "clean.ptx");
  ASSERT_NE(v->module().find_function("k"), nullptr);
  EXPECT_GE(v->summary().rules_run, 2u);
  EXPECT_GT(v->summary().sites_checked, 0u);
  EXPECT_TRUE(v->summary().warnings.empty());
}

TEST(VerifyLoad, ErrorFindingsRefuse) {
  std::string ptx =
      kernel(".param .u64 p", "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n\tld.param.u64 %rd1, [p];\n"
                              "\tst.global.u32 [%rd1], %r2;\n\tret;\n");
  auto v = verify_for_load(ptx, "bad.ptx");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message, "1 verifier error in bad.ptx");
  ASSERT_EQ(v.error().diagnostics.size(), 1u);
  EXPECT_EQ(v.error().diagnostics[0],
            "bad.ptx:10:2: error: %r2 is read but nothing writes it before this instruction "
            "[undefined-register]");
}

TEST(VerifyLoad, WarningsDoNotRefuse) {
  std::string ptx = kernel("", "\t.reg .b32 %r<3>;\n\tmov.u32 %r1, %tid.x;\n\tret;\n");
  auto v = verify_for_load(ptx, "warn.ptx");
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(v->summary().warnings.size(), 1u);
  EXPECT_NE(v->summary().warnings[0].find(": warning: "), std::string::npos);
  EXPECT_TRUE(v->summary().warnings[0].ends_with(" [dead-value]")) << v->summary().warnings[0];
}

TEST(VerifyLoad, ParseErrorsRefuse) {
  auto v = verify_for_load(".version 8.0\n.target sm_90\nbogus;\n", "junk.ptx");
  ASSERT_FALSE(v.ok());
  ASSERT_EQ(v.error().diagnostics.size(), 1u);
  EXPECT_EQ(v.error().diagnostics[0].rfind("junk.ptx:3:", 0), 0u) << v.error().diagnostics[0];
}

} // namespace
} // namespace ptxkit::verifier::testing
