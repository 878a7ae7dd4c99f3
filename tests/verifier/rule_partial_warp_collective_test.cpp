// rule_partial_warp_collective_test.cpp: rule `partial-warp-collective`. Lines ending in
// `// [[partial-warp-collective]]` must be flagged, every other line must stay quiet; each case
// opens with a comment saying what it tests.
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "partial-warp-collective";

const char* kCases = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p, .param .u32 n)
{
	.reg .pred %p<8>;
	.reg .b32 %r<30>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %tid.x;
	ld.global.f32 %f1, [%rd1];
	// full-mask shuffle with the whole warp (near miss)
	shfl.sync.bfly.b32 %r4, %r3, 16, 31, -1;
	// after a uniform branch (near miss)
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra $L_u;
	vote.sync.ballot.b32 %r5, %p1, 0xffffffff;
$L_u:
	// inside a lane-varying branch, mask as an immediate and through a register
	mov.u32 %r6, -1;
	setp.lt.u32 %p2, %r3, 16;
	@!%p2 bra $L_v;
	shfl.sync.down.b32 %r7|%p3, %r3, 1, 31, 0xffffffff;  // [[partial-warp-collective]]
	redux.sync.add.u32 %r8, %r3, %r6;  // [[partial-warp-collective]]
	// a mask from activemask is the lanes that are here (near miss)
	activemask.b32 %r9;
	shfl.sync.idx.b32 %r10, %r3, 0, 31, %r9;
	// a partial constant mask names only some lanes (near miss)
	match.any.sync.b32 %r11, %r3, 0x0000ffff;
$L_v:
	// reconverged (near miss)
	vote.sync.all.pred %p4, %p2, -1;
	// a lane-varying early exit, then a full-mask shuffle
	setp.ge.u32 %p5, %r3, %r1;
	@%p5 exit;
	shfl.sync.up.b32 %r12, %r3, 1, 0, -1;  // [[partial-warp-collective]]
	bar.warp.sync -1;  // [[partial-warp-collective]]
	st.global.u32 [%rd1], %r12;
	ret;
}
)PTX";

TEST(RulePartialWarpCollective, MarkedLinesAreFlaggedAndOnlyThose) {
  expect_marked_lines_flagged(kCases, kRule);
}

TEST(RulePartialWarpCollective, MessagesAndRelatedLines) {
  FileReport r = verify_one(kCases, kRule);
  ASSERT_EQ(r.findings.size(), 4u);
  EXPECT_EQ(r.findings[0].message, "shfl.sync.down.b32 with full mask 0xffffffff under "
                                   "lane-varying control flow: only part of the warp reaches it");
  ASSERT_EQ(r.findings[0].related.size(), 2u); // the branch, and why its condition varies
  EXPECT_EQ(r.findings[0].related[0].location.line, line_of(kCases, "@!%p2 bra $L_v"));
  EXPECT_NE(r.findings[0].related[1].message.find("lane-varying because"), std::string::npos);
  EXPECT_EQ(r.findings[2].message, "shfl.sync.up.b32 with full mask 0xffffffff after a "
                                   "lane-varying exit: the exited lanes never take part");
  ASSERT_EQ(r.findings[2].related.size(), 2u); // the exit, and why its predicate varies
  EXPECT_EQ(r.findings[2].related[0].location.line, line_of(kCases, "@%p5 exit"));
  // Sites: the full-mask collectives only (7), not the computed or partial masks.
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].sites, 7u);
}

TEST(RulePartialWarpCollective, ComputedMasksOnlyIsNotApplicable) {
  const std::string body = "\t.reg .b32 %r<4>;\n\tactivemask.b32 %r1;\n\tmov.u32 %r2, %tid.x;\n"
                           "\tshfl.sync.idx.b32 %r3, %r2, 0, 31, %r1;\n\tret;\n";
  FileReport r = verify_one(kernel("", body), kRule);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kNotApplicable);
  EXPECT_EQ(r.findings.size(), 0u);
}

TEST(RulePartialWarpCollective, WarpZeroReductionIsQuiet) {
  // Every block reduce: `if (tid / 32 == 0)` keeps whole warps together (1-D block).
  const std::string body = "\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\tmov.u32 %r1, %tid.x;\n"
                           "\tshr.u32 %r2, %r1, 5;\n\tsetp.ne.u32 %p1, %r2, 0;\n"
                           "\t@%p1 bra $L_done;\n\tshfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;\n"
                           "$L_done:\n\tret;\n";
  FileReport r = verify_one(kernel("", body), kRule);
  EXPECT_EQ(r.findings.size(), 0u);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].sites, 1u);
  // The same branch on tid.x & 15 splits the warp.
  std::string split = body;
  split.replace(split.find("shr.u32 %r2, %r1, 5"), 19, "and.b32 %r2, %r1, 15");
  EXPECT_EQ(verify_one(kernel("", split), kRule).findings.size(), 1u);
}

} // namespace
} // namespace ptxkit::verifier::testing
