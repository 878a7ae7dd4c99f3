// rule_barrier_divergence_test.cpp: rule `barrier-divergence`. Lines ending in
// `// [[barrier-divergence]]` must be flagged, every other line must stay quiet; each case opens
// with a comment saying what it tests (positive controls and near misses side by side).
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "barrier-divergence";

// Positive and negative controls in one kernel: uniform branches first, then the divergent ones.
const char* kCases = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p, .param .u32 n)
{
	.reg .pred %p<8>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %tid.x;
	// a barrier at the top level (near miss)
	bar.sync 0;
	// a barrier after a branch on ctaid and a parameter: uniform (near miss)
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra $L_skip;
	bar.sync 0;
	barrier.sync.aligned 1;
$L_skip:
	// a loop whose trip count is a parameter: uniform (near miss)
	mov.u32 %r4, 0;
$L_loop:
	bar.sync 0;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p2, %r4, %r1;
	@%p2 bra $L_loop;
	// a CTA barrier under `if (tid < 32)`: warp 0 only; a warp-wide mma there is fine (near miss)
	setp.lt.u32 %p3, %r3, 32;
	@!%p3 bra $L_after;
	bar.sync 0;  // [[barrier-divergence]]
	mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11}, {%r5, %r6, %r7, %r8};
$L_after:
	// a warp-wide mma under `if (tid < 16)`: half a warp
	setp.lt.u32 %p5, %r3, 16;
	@!%p5 bra $L_half;
	mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11}, {%r5, %r6, %r7, %r8};  // [[barrier-divergence]]
$L_half:
	// after the reconvergence point again (near miss)
	bar.sync 0;
	// a non-aligned barrier.sync may be reached divergently (near miss)
	@%p3 bra $L_na;
	barrier.sync 2;
$L_na:
	// a lane-varying early exit, then a barrier
	setp.ge.u32 %p4, %r3, %r1;
	@%p4 ret;
	st.global.u32 [%rd1], %r3;
	bar.sync 0;  // [[barrier-divergence]]
	barrier.sync 3;  // [[barrier-divergence]]
	ret;
}
)PTX";

TEST(RuleBarrierDivergence, MarkedLinesAreFlaggedAndOnlyThose) {
  expect_marked_lines_flagged(kCases, kRule);
}

TEST(RuleBarrierDivergence, FindingNamesTheDivergentBranchOrExit) {
  FileReport r = verify_one(kCases, kRule);
  ASSERT_EQ(r.findings.size(), 4u);
  // findings: bar.sync (tid < 32), mma (tid < 16), bar.sync and barrier.sync after the exit
  const Finding& under = r.findings[0];
  EXPECT_EQ(under.message,
            "bar.sync under lane-varying control flow: only part of the warp reaches it");
  // The branch, then where its condition's difference between lanes comes from.
  ASSERT_EQ(under.related.size(), 2u);
  EXPECT_EQ(under.related[0].location.line, line_of(kCases, "@!%p3 bra $L_after"));
  EXPECT_EQ(under.related[1].message.rfind("lane-varying because: reads %tid.x", 0), 0u)
      << under.related[1].message;
  // Threads that skip it to exit: the warning every layout of an early exit gets, resting on
  // CUDA's rule (PTX releases the barrier for exited threads).
  const Finding& after = r.findings[2];
  EXPECT_EQ(after.message, "bar.sync that some threads skip to exit: GPUs release the barrier for "
                           "exited threads, but CUDA requires every thread of the block to reach "
                           "it (exit after it)");
  EXPECT_EQ(after.severity, Severity::kWarning);
  ASSERT_EQ(after.assumptions.size(), 1u);
  ASSERT_EQ(after.related.size(), 2u); // the exit, and why its predicate varies
  EXPECT_EQ(after.related[0].location.line, line_of(kCases, "@%p4 ret"));
  EXPECT_EQ(after.related[0].message, "some lanes exit here");
}

TEST(RuleBarrierDivergence, UniformEarlyExitIsQuiet) {
  // CUB's pattern: blocks past the end of the input return before the block-wide barrier.
  const std::string body = "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [n];\n"
                           "\tmov.u32 %r2, %ctaid.x;\n\tsetp.ge.u32 %p1, %r2, %r1;\n"
                           "\t@%p1 exit;\n\tbar.sync 0;\n\tret;\n";
  FileReport r = verify_one(kernel(".param .u32 n", body), kRule);
  EXPECT_EQ(r.findings.size(), 0u);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kPass);
  EXPECT_EQ(r.rules[0].sites, 1u);
}

TEST(RuleBarrierDivergence, NoCollectiveIsNotApplicable) {
  FileReport r = verify_one(kernel("", "\tret;\n"), kRule);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kNotApplicable);
}

} // namespace
} // namespace ptxkit::verifier::testing
