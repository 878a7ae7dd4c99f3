// rule_state_space_mismatch_test.cpp: rule `state-space-mismatch`. Lines ending in
// `// [[state-space-mismatch]]` must be flagged, every other line must stay quiet; each case
// opens with a comment saying what it tests.
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "state-space-mismatch";

const char* kCases = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
	.reg .pred %p<8>;
	.reg .b32 %r<30>;
	.reg .f32 %f<20>;
	.reg .b64 %rd<30>;
	.shared .align 4 .b8 smem[1024];
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	// global pointer in a global load; shared window in a shared load (near misses)
	ld.global.f32 %f1, [%rd4];
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	st.shared.f32 [%r4], %f1;
	ld.shared.f32 %f2, [smem+4];
	// a generic pointer made with cvta.shared in a generic load (near miss)
	mov.u64 %rd5, smem;
	cvta.shared.u64 %rd6, %rd5;
	add.s64 %rd7, %rd6, %rd3;
	ld.f32 %f3, [%rd7];
	// and back with cvta.to.shared for a shared load (near miss)
	cvta.to.shared.u64 %rd8, %rd7;
	ld.shared.f32 %f4, [%rd8];
	// the unconverted kernel pointer in a global load (near miss: global is generic)
	ld.global.f32 %f5, [%rd1];
	// ld.shared swapped to ld.global on a shared address
	ld.global.f32 %f6, [%r4];  // [[state-space-mismatch]]
	// a shared window address in a generic access (missing cvta.shared)
	add.s64 %rd9, %rd5, %rd3;
	ld.f32 %f7, [%rd9];  // [[state-space-mismatch]]
	// a global pointer used by ld.shared
	ld.shared.f32 %f8, [%rd4];  // [[state-space-mismatch]]
	// a generic shared pointer in ld.shared without cvta.to.shared
	ld.shared.f32 %f9, [%rd7];  // [[state-space-mismatch]]
	// a generic pointer into shared converted with the wrong cvta.to
	cvta.to.global.u64 %rd10, %rd7;  // [[state-space-mismatch]]
	// a symbol of the wrong space directly in the address
	ld.global.f32 %f10, [smem+8];  // [[state-space-mismatch]]
	add.f32 %f11, %f2, %f3;
	add.f32 %f12, %f4, %f5;
	add.f32 %f13, %f6, %f7;
	add.f32 %f14, %f8, %f9;
	add.f32 %f15, %f11, %f12;
	add.f32 %f16, %f13, %f14;
	add.f32 %f17, %f15, %f16;
	add.f32 %f18, %f17, %f10;
	st.global.f32 [%rd10], %f18;
	ret;
}
)PTX";

TEST(RuleStateSpaceMismatch, MarkedLinesAreFlaggedAndOnlyThose) {
  expect_marked_lines_flagged(kCases, kRule);
}

TEST(RuleStateSpaceMismatch, MessageNamesBothSpacesAndTheOrigin) {
  FileReport r = verify_one(kCases, kRule);
  std::uint32_t line = line_of(kCases, "ld.global.f32 %f6, [%r4]");
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [&](const Finding& f) { return f.location.line == line; });
  ASSERT_NE(it, r.findings.end());
  EXPECT_EQ(it->message, "a .shared address (smem) used by a .global access");
  ASSERT_EQ(it->related.size(), 1u);
  EXPECT_EQ(it->related[0].location.line, line_of(kCases, "mov.u32 %r2, smem"));
}

TEST(RuleStateSpaceMismatch, LoadedPointersAreNotSites) {
  const std::string body = "\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n"
                           "\tld.global.u64 %rd2, [%rd1];\n\tld.shared.f32 %f1, [%rd2];\n"
                           "\tst.global.f32 [%rd1], %f1;\n\tret;\n";
  FileReport r = verify_one(kernel(".param .u64 p", body), kRule);
  EXPECT_EQ(r.findings.size(), 0u);
  ASSERT_EQ(r.rules.size(), 1u);
  // The one site is `ld.param [p]`: its address is the parameter symbol itself.
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kPass);
  EXPECT_EQ(r.rules[0].sites, 1u);
}

} // namespace
} // namespace ptxkit::verifier::testing
