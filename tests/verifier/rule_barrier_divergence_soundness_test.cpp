// rule_barrier_divergence_soundness_test.cpp: rule `barrier-divergence` on CTA-wide barriers under
// conditions that are the same in every lane of a warp but differ between the warps of a block
// (false negatives of the thread-level divergence, which used the warp-level uniformity). Each
// positive control must be reported at its marked line; its repaired twin, with the condition
// made uniform over the block, must stay quiet.
#include "analysis_test_util.h"

#include <string>

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "barrier-divergence";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string unmarked(const std::string& text) {
  return replaced(text, "  // [[" + kRule + "]]", "");
}

void expect_hole_and_twin(const std::string& positive, const std::string& twin) {
  ASSERT_FALSE(marked_lines(positive, kRule).empty());
  expect_marked_lines_flagged(positive, kRule);
  ASSERT_TRUE(marked_lines(twin, kRule).empty());
  FileReport r = verify_one(twin, kRule);
  EXPECT_TRUE(r.findings.empty()) << twin;
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_GT(r.rules[0].sites, 0u);
}

// `from` (a warp-uniform, block-varying source) replaced by %ctaid.x in the twin.
void expect_case(const std::string& params, const std::string& body, const std::string& from,
                 const std::string& to) {
  std::string positive = kernel(params, body);
  expect_hole_and_twin(positive, unmarked(replaced(positive, from, to)));
}

TEST(RuleBarrierDivergenceSoundness, PhiAfterABranchThatKeepsWarpsWhole) {
  // if (tid < 32) x = 0; else x = 1; if (x == 0) __syncthreads(); -- x differs between warps.
  expect_case("", R"(	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	mov.u32 %r2, 0;
	@%p1 bra $L1;
	mov.u32 %r2, 1;
$L1:
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra $L2;
	bar.sync 0;  // [[barrier-divergence]]
$L2:
	ret;
)",
              "%tid.x", "%ctaid.x");
}

TEST(RuleBarrierDivergenceSoundness, WarpIdBranch) {
  // %warpid is the same in a warp, not in a block.
  expect_case("", R"(	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	mov.u32 %r1, %warpid;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra $L1;
	bar.sync 0;  // [[barrier-divergence]]
$L1:
	ret;
)",
              "%warpid", "%nwarpid");
}

TEST(RuleBarrierDivergenceSoundness, ValueLiveOutOfALoopWarpsLeaveAtDifferentIterations) {
  // for (i = 0; ++i < warp;) {} -- after the loop i differs between warps.
  expect_case("", R"(	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	mov.u32 %r3, 0;
$L_loop:
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r2;
	@%p1 bra $L_loop;
	setp.eq.u32 %p2, %r3, 1;
	@%p2 bra $L1;
	bar.sync 0;  // [[barrier-divergence]]
$L1:
	ret;
)",
              "shr.u32 %r2, %r1, 5", "mov.u32 %r2, %ctaid.x");
}

TEST(RuleBarrierDivergenceSoundness, VoteOfAnAtomicsResult) {
  // vote.any is the same in every lane of a warp; over an atomic's result it differs between
  // warps.
  expect_case(".param .u64 p", R"(	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	atom.global.add.u32 %r1, [%rd1], 1;
	setp.eq.u32 %p1, %r1, 0;
	vote.sync.any.pred %p2, %p1, -1;
	@%p2 bra $L1;
	bar.sync 0;  // [[barrier-divergence]]
$L1:
	ret;
)",
              "atom.global.add.u32 %r1, [%rd1], 1", "ld.global.nc.u32 %r1, [%rd1]");
}

TEST(RuleBarrierDivergenceSoundness, BarRedWithoutACountIsCtaWide) {
  // bar.red without a thread count waits for every thread of the CTA; with a count of 32 it is
  // a named barrier for warp 0 alone (near miss).
  expect_case("", R"(	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@!%p1 bra $L1;
	bar.red.popc.u32 %r2, 0, %p1;  // [[barrier-divergence]]
	bar.red.and.pred %p2, 0, %p1;  // [[barrier-divergence]]
$L1:
	ret;
)",
              ", 0, %p1", ", 1, 32, %p1");
}

TEST(RuleBarrierDivergenceSoundness, CarryOfTheWarpIndex) {
  // addc reads the carry of warp - 1: 0 in warp 0, 1 in the others.
  expect_case("", R"(	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	add.cc.u32 %r3, %r2, -1;
	addc.u32 %r4, 0, 0;
	setp.eq.u32 %p1, %r4, 0;
	@%p1 bra $L1;
	bar.sync 0;  // [[barrier-divergence]]
$L1:
	ret;
)",
              "shr.u32 %r2, %r1, 5", "mov.u32 %r2, %ctaid.x");
}

TEST(RuleBarrierDivergenceSoundness, BarrierGuardedByAThreadVaryingPredicate) {
  // `@%p bar.sync 0`: the threads whose guard fails never arrive. A non-aligned barrier.sync may
  // be reached by them at another instruction (near miss).
  expect_case("", R"(	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bar.sync 0;  // [[barrier-divergence]]
	@%p1 barrier.sync 1;
	@!%p1 barrier.sync 1;
	ret;
)",
              "%tid.x", "%ctaid.x");
}

TEST(RuleBarrierDivergenceSoundness, LoopCarriedCycleThroughTheWarpIndex) {
  // B = phi(0, C), E = B + 1, C = E + warp: the thread-index dependence walk from the branch on
  // B reached E while B was provisionally independent of tid, and cached that for E.
  expect_case(".param .u64 p, .param .u32 n", R"(	.reg .pred %p<8>;
	.reg .b32 %r<30>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	shr.u32 %r3, %r2, 5;
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
	bar.sync 0;  // [[barrier-divergence]]
$L_b:
	add.u32 %r10, %r11, %r3;
	add.u32 %r20, %r20, 1;
	setp.lt.u32 %p3, %r20, %r1;
	@%p3 bra $L_loop;
	ret;
)",
              "shr.u32 %r3, %r2, 5", "mov.u32 %r3, %ctaid.x");
}

} // namespace
} // namespace ptxkit::verifier::testing
