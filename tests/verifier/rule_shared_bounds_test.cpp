// rule_shared_bounds_test.cpp: rule `shared-bounds`. Lines ending in `// [[shared-bounds]]` must
// be flagged, every other line must stay quiet; each case opens with a comment saying what it
// tests.
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "shared-bounds";

const char* kCases = R"PTX(.version 8.0
.target sm_90
.address_size 64

.extern .shared .align 16 .b8 dyn[];

.visible .entry k(.param .u64 p)
.reqntid 128, 1, 1
{
	.reg .pred %p<8>;
	.reg .b32 %r<30>;
	.reg .f32 %f<20>;
	.reg .b64 %rd<30>;
	.shared .align 16 .b8 smem[512];
	.shared .align 4 .f32 tile[64];
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, smem;
	// tid in [0,127] (reqntid) times 4: [0, 508] + 4 bytes fits 512 (near miss)
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	ld.shared.f32 %f1, [%r4];
	// the last 16 bytes as a v4 (near miss)
	ld.shared.v4.f32 {%f2, %f3, %f4, %f5}, [smem+496];
	// a v4.f32 at size-8 runs 8 bytes past the end
	ld.shared.v4.f32 {%f6, %f7, %f8, %f9}, [smem+504];  // [[shared-bounds]]
	// tid*8 reaches 1016: past 512
	shl.b32 %r5, %r1, 3;
	add.s32 %r6, %r2, %r5;
	st.shared.f32 [%r6], %f1;  // [[shared-bounds]]
	// the f32 array: 64 elements, laneid*4 fits (near miss), laneid*4 + 144 does not
	mov.u32 %r7, %laneid;
	shl.b32 %r8, %r7, 2;
	mov.u32 %r9, tile;
	add.s32 %r10, %r9, %r8;
	st.shared.f32 [%r10], %f1;
	st.shared.f32 [%r10+144], %f1;  // [[shared-bounds]]
	// a negative offset
	ld.shared.f32 %f10, [%r9+-4];  // [[shared-bounds]]
	// the dynamic extern array: size unknown (not a site)
	mov.u32 %r11, dyn;
	add.s32 %r12, %r11, %r5;
	st.shared.f32 [%r12+100000], %f1;
	// a generic address from cvta.shared, out of bounds
	mov.u64 %rd2, smem;
	cvta.shared.u64 %rd3, %rd2;
	st.f32 [%rd3+512], %f1;  // [[shared-bounds]]
	// an index loaded from memory: unknown offset (not a site)
	ld.global.u32 %r13, [%rd1];
	add.s32 %r14, %r2, %r13;
	ld.shared.f32 %f11, [%r14];
	add.f32 %f12, %f2, %f6;
	add.f32 %f13, %f10, %f11;
	add.f32 %f14, %f12, %f13;
	st.global.f32 [%rd1], %f14;
	ret;
}
)PTX";

TEST(RuleSharedBounds, MarkedLinesAreFlaggedAndOnlyThose) {
  expect_marked_lines_flagged(kCases, kRule);
}

TEST(RuleSharedBounds, MessageGivesWidthRangeAndSize) {
  FileReport r = verify_one(kCases, kRule);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].message,
            "16-byte access at offset 504 of smem (512 bytes declared) ends at byte 520");
  EXPECT_EQ(r.findings[1].message,
            "4-byte access at offsets 0..1016 step 8 of smem (512 bytes declared) is out of "
            "bounds: thread (64, 0, 0) touches bytes 512..515");
  // Sites: the accesses with a known variable and range (not dyn, not the loaded index).
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].sites, 8u);
}

TEST(RuleSharedBounds, TidWithoutLaunchBoundIsNotASite) {
  const std::string body = "\t.reg .b32 %r<8>;\n\t.reg .f32 %f<2>;\n\t.shared .b8 s[16];\n"
                           "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, s;\n\tshl.b32 %r3, %r1, 2;\n"
                           "\tadd.s32 %r4, %r2, %r3;\n\tmov.f32 %f1, 0f00000000;\n"
                           "\tst.shared.f32 [%r4], %f1;\n\tret;\n";
  FileReport r = verify_one(kernel("", body), kRule);
  EXPECT_EQ(r.findings.size(), 0u);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kNotApplicable);
}

} // namespace
} // namespace ptxkit::verifier::testing
