// rule_partial_warp_soundness_test.cpp: rule `partial-warp-collective` on lane-varying values the
// divergence analyses used to call uniform (false negatives). Each case is a full-mask shuffle
// under a branch whose condition depends on such a value: the marked line must be reported
// (positive control), and the repaired twin, with the condition made uniform, must stay quiet
// (negative control).
#include "analysis_test_util.h"

#include <string>

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "partial-warp-collective";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// The positive control is flagged at exactly its marked lines; the twin (no markers) is quiet.
void expect_hole_and_twin(const std::string& positive, const std::string& twin) {
  ASSERT_FALSE(marked_lines(positive, kRule).empty());
  expect_marked_lines_flagged(positive, kRule);
  ASSERT_TRUE(marked_lines(twin, kRule).empty());
  FileReport r = verify_one(twin, kRule);
  EXPECT_TRUE(r.findings.empty()) << twin;
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_GT(r.rules[0].sites, 0u);
}

std::string unmarked(const std::string& text) {
  return replaced(text, "  // [[" + kRule + "]]", "");
}

TEST(RulePartialWarpSoundness, CarryFlagOfALaneVaryingAddCc) {
  // add.cc/sub.cc/mad.cc write the carry flag implicitly; addc/subc/madc read it. The carry of
  // tid.x - 16 differs between lanes, so the value addc reads it into does too.
  const std::string body = R"(	.reg .pred %p<4>;
	.reg .b32 %r<12>;
	mov.u32 %r1, %tid.x;
	add.cc.u32 %r2, %r1, -16;
	addc.u32 %r3, 0, 0;
	setp.eq.u32 %p1, %r3, 0;
	@%p1 bra $L1;
	shfl.sync.bfly.b32 %r4, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L1:
	sub.cc.u32 %r5, %r1, 16;
	subc.u32 %r6, 0, 0;
	setp.eq.u32 %p2, %r6, 0;
	@%p2 bra $L2;
	shfl.sync.bfly.b32 %r7, %r1, 2, 31, -1;  // [[partial-warp-collective]]
$L2:
	mad.lo.cc.u32 %r8, %r1, 268435456, -268435456;
	madc.lo.u32 %r9, 0, 0, 0;
	setp.eq.u32 %p3, %r9, 0;
	@%p3 bra $L3;
	shfl.sync.bfly.b32 %r10, %r1, 4, 31, -1;  // [[partial-warp-collective]]
$L3:
	ret;
)";
  std::string positive = kernel("", body);
  // Twin: the carry of a uniform value (the block index) is uniform.
  std::string twin = unmarked(replaced(positive, "%tid.x", "%ctaid.x"));
  expect_hole_and_twin(positive, twin);
}

TEST(RulePartialWarpSoundness, ShflIdxWithSegmentsOrAnOutOfRangeLane) {
  // shfl.sync.idx from a uniform source lane is uniform only when c has no segment mask and the
  // lane is within the clamp: with c = 0x101f (width 16) each half-warp reads its own lane 0;
  // with clamp 15 and lane 20 every lane keeps its own value.
  const std::string body = R"(	.reg .pred %p<4>;
	.reg .b32 %r<12>;
	mov.u32 %r1, %tid.x;
	shfl.sync.idx.b32 %r2, %r1, 0, 0x101f, -1;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra $L1;
	shfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L1:
	mov.u32 %r4, 4127;
	shfl.sync.idx.b32 %r5, %r1, 0, %r4, -1;
	setp.eq.u32 %p2, %r5, 0;
	@%p2 bra $L2;
	shfl.sync.bfly.b32 %r6, %r1, 2, 31, -1;  // [[partial-warp-collective]]
$L2:
	shfl.sync.idx.b32 %r7, %r1, 20, 15, -1;
	setp.eq.u32 %p3, %r7, 0;
	@%p3 bra $L3;
	shfl.sync.bfly.b32 %r8, %r1, 4, 31, -1;  // [[partial-warp-collective]]
$L3:
	ret;
)";
  std::string positive = kernel("", body);
  // Twin: the whole warp as one segment, a lane within the clamp.
  std::string twin = replaced(positive, "0x101f", "31");
  twin = replaced(twin, "mov.u32 %r4, 4127", "mov.u32 %r4, 31");
  twin = unmarked(replaced(twin, "%r1, 20, 15", "%r1, 5, 15"));
  expect_hole_and_twin(positive, twin);
}

TEST(RulePartialWarpSoundness, GuardedWriteKeepsAValueLiveOutOfADivergentLoop) {
  // Lanes leave the loop at different iterations, so %r5 differs between them after it; a
  // guarded write with a uniform predicate keeps that value wherever the guard fails.
  const std::string body = R"(	.reg .pred %p<4>;
	.reg .b32 %r<12>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r5, 0;
$L_loop:
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p1, %r5, %r1;
	@%p1 bra $L_loop;
	setp.eq.u32 %p2, %r2, 0;
	@%p2 mov.u32 %r5, 7;
	setp.eq.u32 %p3, %r5, 3;
	@%p3 bra $L1;
	shfl.sync.bfly.b32 %r6, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L1:
	ret;
)";
  std::string positive = kernel("", body);
  // Twin: a loop bound the same in every lane.
  std::string twin =
      unmarked(replaced(positive, "setp.lt.u32 %p1, %r5, %r1", "setp.lt.u32 %p1, %r5, %r2"));
  expect_hole_and_twin(positive, twin);
}

// A chain of diamonds, each branching on a shared load whose address is the merge (phi) of the
// previous diamond: every round of WarpDivergence's fixpoint proves one more of them divergent.
std::string diamond_chain(int n, bool varying) {
  std::string s = "\t.reg .pred %p<" + std::to_string(n + 2) + ">;\n\t.reg .b32 %r<" +
                  std::to_string(4 * n + 40) + ">;\n\t.shared .align 4 .b32 smem[64];\n";
  s += varying ? "\tmov.u32 %r1, %tid.x;\n" : "\tmov.u32 %r1, %ctaid.x;\n";
  s += "\tand.b32 %r10, %r1, 1;\n\tmov.u32 %r3, smem;\n";
  for (int k = 0; k < n; ++k) {
    std::string a = "%r" + std::to_string(20 + 3 * k), b = "%r" + std::to_string(21 + 3 * k),
                c = "%r" + std::to_string(22 + 3 * k), p = "%p" + std::to_string(k + 1),
                l = "$L_d" + std::to_string(k);
    s += "\tshl.b32 " + a + ", %r10, 2;\n\tadd.u32 " + b + ", %r3, " + a + ";\n";
    s += "\tld.shared.u32 " + c + ", [" + b + "];\n\tsetp.ne.u32 " + p + ", " + c + ", 0;\n";
    s += "\tmov.u32 %r10, 0;\n\t@" + p + " bra " + l + ";\n\tmov.u32 %r10, 1;\n";
    if (k == n - 1)
      s += std::string("\tshfl.sync.bfly.b32 %r11, %r1, 1, 31, -1;") +
           (varying ? "  // [[partial-warp-collective]]" : "") + "\n";
    s += l + ":\n";
  }
  s += "\tret;\n";
  return kernel("", s);
}

TEST(RulePartialWarpSoundness, DivergenceThatTakesMoreThanSixteenRounds) {
  // WarpDivergence stopped after 16 rounds whether or not they had converged.
  expect_hole_and_twin(diamond_chain(18, true), diamond_chain(18, false));
  expect_hole_and_twin(diamond_chain(3, true), diamond_chain(3, false));
}

TEST(RulePartialWarpSoundness, LoopCarriedCycleThroughAVaryingValue) {
  // B = phi(0, C), E = B + 1, C = E + tid.x: the walk from the branch on B reaches E while B is
  // assumed uniform; E must not keep that assumption once tid.x makes the cycle vary.
  const std::string body = R"(	.reg .pred %p<8>;
	.reg .b32 %r<30>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r10, 0;
	mov.u32 %r20, 0;
$L_loop:
	setp.eq.u32 %p1, %r10, 7;
	@%p1 bra $L_a;
	st.global.u32 [%rd1], %r20;
$L_a:
	add.u32 %r11, %r10, 1;
	setp.eq.u32 %p2, %r11, 5;
	@%p2 bra $L_b;
	shfl.sync.bfly.b32 %r12, %r11, 1, 31, -1;  // [[partial-warp-collective]]
$L_b:
	add.u32 %r10, %r11, %r2;
	add.u32 %r20, %r20, 1;
	setp.lt.u32 %p3, %r20, %r1;
	@%p3 bra $L_loop;
	ret;
)";
  std::string positive = kernel(".param .u64 p, .param .u32 n", body);
  std::string twin = unmarked(replaced(positive, "%tid.x", "%ctaid.x"));
  expect_hole_and_twin(positive, twin);
}

TEST(RulePartialWarpSoundness, MbarrierWaitResultIsLaneVarying) {
  // try_wait/test_wait report what this thread observed at this moment: one poll may see the
  // phase complete in some lanes and not in others. After the usual spin loop the warp is whole.
  const std::string body = R"(	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.shared .align 8 .b64 mbar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, mbar;
	mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
	@%p1 bra $L1;
	shfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L1:
$L_wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
	@!%p2 bra $L_wait;
	shfl.sync.bfly.b32 %r4, %r1, 2, 31, -1;
	ret;
)";
  std::string positive = kernel("", body);
  // Twin: the branch on the block index instead of the poll.
  std::string twin = unmarked(replaced(positive, "@%p1 bra $L1", "@%p3 bra $L1"));
  twin = replaced(twin, "\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;\n",
                  "\tmov.u32 %r5, %ctaid.x;\n\tsetp.eq.u32 %p3, %r5, 0;\n");
  expect_hole_and_twin(positive, twin);
}

TEST(RulePartialWarpSoundness, GuardedLoopStepIsNotAUniformTripCount) {
  // x = lane & 7 goes up by 8 until x >= 8: one iteration in every lane (the lanes leave
  // together) -- unless only some lanes take the step: then the others never leave.
  const std::string body = R"(	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	mov.u32 %r1, %laneid;
	and.b32 %r2, %r1, 7;
	and.b32 %r3, %r1, 1;
	setp.eq.u32 %p1, %r3, 0;
	mov.u32 %r4, %r2;
$L_loop:
	setp.lt.u32 %p2, %r4, 8;
	@!%p2 bra $L_done;
	shfl.sync.bfly.b32 %r5, %r1, 1, 31, -1;  // [[partial-warp-collective]]
	@%p1 add.u32 %r4, %r4, 8;
	bra $L_loop;
$L_done:
	ret;
)";
  std::string positive = kernel("", body);
  std::string twin = unmarked(replaced(positive, "@%p1 add.u32", "add.u32"));
  expect_hole_and_twin(positive, twin);
}

TEST(RulePartialWarpSoundness, CollectiveGuardedByALaneVaryingPredicate) {
  // `@%p shfl.sync ... -1`: the lanes whose guard fails do not execute the shuffle, though the
  // whole warp reaches its block.
  const std::string body = R"(	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;  // [[partial-warp-collective]]
	@!%p1 vote.sync.ballot.b32 %r3, %p1, -1;  // [[partial-warp-collective]]
	ret;
)";
  std::string positive = kernel("", body);
  std::string twin = unmarked(replaced(positive, "%tid.x", "%ctaid.x"));
  expect_hole_and_twin(positive, twin);
}

TEST(RulePartialWarpSoundness, VaryingAndUniformSourcesAlreadyHandled) {
  // Confirmed sound before this change, kept as regression controls: %laneid, shfl.down/up/bfly
  // results, atomics' results, a shared load through a lane-varying address after a barrier, a
  // phi at the reconvergence point of a divergent branch, a value live out of a loop that lanes
  // leave at different iterations (marked); and shfl.idx from lane 0, vote.any/ballot, a shared
  // broadcast from a uniform address after the barrier (near misses).
  const std::string body = R"(	.reg .pred %p<30>;
	.reg .b32 %r<60>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 smem[64];
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %laneid;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra $L1;
	shfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L1:
	shfl.sync.down.b32 %r4, %r1, 1, 31, -1;
	setp.eq.u32 %p2, %r4, 0;
	@%p2 bra $L2;
	shfl.sync.bfly.b32 %r5, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L2:
	shfl.sync.up.b32 %r6, %r1, 1, 0, -1;
	setp.eq.u32 %p3, %r6, 0;
	@%p3 bra $L3;
	shfl.sync.bfly.b32 %r7, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L3:
	shfl.sync.bfly.b32 %r8, %r1, 16, 31, -1;
	setp.eq.u32 %p4, %r8, 0;
	@%p4 bra $L4;
	shfl.sync.bfly.b32 %r9, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L4:
	atom.global.add.u32 %r10, [%rd1], 1;
	setp.eq.u32 %p5, %r10, 0;
	@%p5 bra $L5;
	shfl.sync.bfly.b32 %r11, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L5:
	mov.u32 %r12, smem;
	shl.b32 %r13, %r1, 2;
	add.u32 %r14, %r12, %r13;
	st.shared.u32 [%r14], %r1;
	bar.sync 0;
	ld.shared.u32 %r15, [%r14];
	ld.shared.u32 %r16, [%r12];
	setp.eq.u32 %p6, %r15, 0;
	@%p6 bra $L6;
	shfl.sync.bfly.b32 %r17, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L6:
	setp.eq.u32 %p7, %r16, 0;
	@%p7 bra $L7;
	shfl.sync.bfly.b32 %r18, %r1, 1, 31, -1;
$L7:
	setp.lt.u32 %p8, %r1, 7;
	mov.u32 %r19, 0;
	@%p8 bra $L8;
	mov.u32 %r19, 1;
$L8:
	setp.eq.u32 %p9, %r19, 0;
	@%p9 bra $L9;
	shfl.sync.bfly.b32 %r20, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L9:
	mov.u32 %r21, 0;
$L_loop:
	add.u32 %r21, %r21, 1;
	setp.lt.u32 %p10, %r21, %r2;
	@%p10 bra $L_loop;
	setp.eq.u32 %p11, %r21, 3;
	@%p11 bra $L10;
	shfl.sync.bfly.b32 %r22, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L10:
	shfl.sync.idx.b32 %r23, %r1, 0, 31, -1;
	setp.eq.u32 %p12, %r23, 0;
	@%p12 bra $L11;
	shfl.sync.bfly.b32 %r24, %r1, 1, 31, -1;
$L11:
	vote.sync.any.pred %p13, %p1, -1;
	@%p13 bra $L12;
	shfl.sync.bfly.b32 %r25, %r1, 1, 31, -1;
$L12:
	vote.sync.ballot.b32 %r26, %p1, -1;
	setp.eq.u32 %p14, %r26, 0;
	@%p14 bra $L13;
	shfl.sync.bfly.b32 %r27, %r1, 1, 31, -1;
$L13:
	ret;
)";
  expect_marked_lines_flagged(kernel(".param .u64 p", body), kRule);
}

} // namespace
} // namespace ptxkit::verifier::testing
