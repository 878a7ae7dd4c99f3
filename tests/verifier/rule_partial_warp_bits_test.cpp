// rule_partial_warp_bits_test.cpp: rule `partial-warp-collective` on loops whose exit compares a
// counter that differs between lanes only below bit k with a bound that is a multiple of 2^k
// (warp_bits.h). The H200 refusal of q4k_gemv (counter `(warp & 1) * 4 + (lane >> 3)`, step 8,
// `setp.lt.u32 %p4, %r44, 4`, shfl.sync.idx in the loop) is the negative control; each positive
// control breaks one premise of the proof and must still be reported.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "partial-warp-collective";

// The q4k_gemv loop of the H200 run (golden/q4k_gemv before commit 7defcae), reduced. Each
// placeholder is replaced by a case.
const char* kLoop = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p, .param .u32 n)
REQNTID
{
	.reg .pred %p<8>;
	.reg .b32 %r<60>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	ld.param.u32 %r30, [n];
	shl.b32 %r31, %r30, 2;
	mov.u32 %r1, %tid.x;
	LANE
	shr.u32 %r3, %r1, 5;
	shr.u32 %r4, %r2, LANESHIFT;
	and.b32 %r15, %r2, 4294967294;
	and.b32 %r18, %r3, 1;
	mad.lo.u32 %r42, %r18, WARPMUL, %r4;
	mov.u32 %r43, %r42;
	mov.f32 %f1, 0f00000000;
$L__block_loop:
	mov.u32 %r44, %r43;
	EXITTEST
	@!%p4 bra $L__block_done;
	mul.wide.u32 %rd3, %r44, 4;
	add.u64 %rd4, %rd2, %rd3;
	ld.global.nc.f32 %f2, [%rd4];
	shfl.sync.idx.b32 %f3, %f2, %r15, 31, -1;
	add.f32 %f1, %f1, %f3;
	STEP
	mov.u32 %r43, %r45;
	bra $L__block_loop;
$L__block_done:
	st.global.f32 [%rd2], %f1;
	ret;
}
)PTX";

struct LoopCase {
  std::string reqntid = ".reqntid 256, 1, 1";
  std::string lane = "and.b32 %r2, %r1, 31;";
  int lane_shift = 3;
  int warp_mul = 4;
  std::string exit_test = "setp.lt.u32 %p4, %r44, 4;";
  std::string step = "add.u32 %r45, %r44, 8;";
};

std::string loop_kernel(const LoopCase& c) {
  std::string s = kLoop;
  auto put = [&](const std::string& key, const std::string& value) {
    std::size_t at = s.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    s.replace(at, key.size(), value);
  };
  put("REQNTID", c.reqntid);
  put("LANESHIFT", std::to_string(c.lane_shift));
  put("LANE", c.lane);
  put("WARPMUL", std::to_string(c.warp_mul));
  put("EXITTEST", c.exit_test);
  put("STEP", c.step);
  return s;
}

// The shuffle is reported (positive control) or not (negative control).
void expect_flagged(const LoopCase& c, bool flagged) {
  std::string text = loop_kernel(c);
  FileReport r = verify_one(text, kRule);
  std::set<std::uint32_t> want;
  if (flagged) want.insert(line_of(text, "shfl.sync.idx"));
  EXPECT_EQ(flagged_lines(r, kRule), want) << text;
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].sites, 1u);
}

TEST(RulePartialWarpBits, H200LoopIsWarpUniform) {
  // (warp & 1) * 4 + (lane >> 3) < 4, step 8: the lanes of a warp leave together.
  expect_flagged(LoopCase{}, false);
}

TEST(RulePartialWarpBits, BoundsThatAreMultiplesOfFour) {
  LoopCase c;
  c.exit_test = "setp.lt.u32 %p4, %r44, 1348;";
  expect_flagged(c, false);
  c.exit_test = "setp.ge.u32 %p5, %r44, 16;\n\tnot.pred %p4, %p5;";
  expect_flagged(c, false);
  // A uniform register bound with its low two bits zero (n << 2).
  c.exit_test = "setp.lo.u32 %p4, %r44, %r31;";
  expect_flagged(c, false);
  // x <= 4m - 1 is x < 4m; 4m > x swapped.
  c.exit_test = "setp.le.u32 %p4, %r44, 7;";
  expect_flagged(c, false);
  c.exit_test = "setp.gt.u32 %p4, 8, %r44;";
  expect_flagged(c, false);
  // Signed: the sign bit is in the uniform part (bits >= 2).
  c.exit_test = "setp.lt.s32 %p4, %r44, 1348;";
  expect_flagged(c, false);
  // %laneid instead of tid.x & 31.
  c.lane = "mov.u32 %r2, %laneid;";
  c.exit_test = "setp.lt.u32 %p4, %r44, 4;";
  expect_flagged(c, false);
}

TEST(RulePartialWarpBits, BoundNotAMultipleOfFour) {
  LoopCase c;
  c.exit_test = "setp.lt.u32 %p4, %r44, 6;";
  expect_flagged(c, true);
  c.exit_test = "setp.lt.u32 %p4, %r44, %r30;"; // n itself: any value
  expect_flagged(c, true);
  c.exit_test = "setp.le.u32 %p4, %r44, 4;"; // x <= 4 is x < 5
  expect_flagged(c, true);
  c.exit_test = "setp.gt.u32 %p4, 7, %r44;"; // x < 7
  expect_flagged(c, true);
  // Equality depends on the lane's own low bits.
  c.exit_test = "setp.ne.u32 %p4, %r44, 4;";
  expect_flagged(c, true);
}

TEST(RulePartialWarpBits, LaneShiftTwoCrossesBitTwo) {
  LoopCase c;
  c.lane_shift = 2; // lane >> 2 in [0, 8)
  expect_flagged(c, true);
}

TEST(RulePartialWarpBits, UniformPartNotAMultipleOfFour) {
  LoopCase c;
  c.warp_mul = 2; // (warp & 1) * 2 + (lane >> 3): the sum carries into bit 2 in some lanes
  expect_flagged(c, true);
}

TEST(RulePartialWarpBits, NonUniformStep) {
  LoopCase c;
  c.step = "add.u32 %r45, %r44, %r4;";
  expect_flagged(c, true);
  // A step that is a multiple of 8 in every lane but not the same in every lane.
  c.step = "and.b32 %r46, %r2, 1;\n\tshl.b32 %r47, %r46, 3;\n\tadd.u32 %r45, %r44, %r47;";
  expect_flagged(c, true);
  // A step chosen per lane (selp), and an update only some lanes make (a guarded add).
  c.step = "setp.lt.u32 %p6, %r2, 16;\n\tselp.b32 %r46, 8, 16, %p6;\n\tadd.u32 %r45, %r44, %r46;";
  expect_flagged(c, true);
  c.step = "mov.u32 %r45, %r44;\n\tsetp.lt.u32 %p6, %r2, 16;\n\t@%p6 add.u32 %r45, %r44, 8;";
  expect_flagged(c, true);
  // The same two with a uniform predicate (the warp index) are near misses.
  c.step = "setp.lt.u32 %p6, %r3, 4;\n\tselp.b32 %r46, 8, 16, %p6;\n\tadd.u32 %r45, %r44, %r46;";
  expect_flagged(c, false);
  c.step = "mov.u32 %r45, %r44;\n\tsetp.lt.u32 %p6, %r3, 4;\n\t@%p6 add.u32 %r45, %r44, 8;";
  expect_flagged(c, false);
}

TEST(RulePartialWarpBits, WarpsNotAlignedToTidX) {
  // A 2-D block of 48 x 2: warps are not runs of tid.x, so tid.x >> 5 differs within a warp.
  LoopCase c;
  c.reqntid = ".reqntid 48, 2, 1";
  expect_flagged(c, true);
}

TEST(RulePartialWarpBits, SignedCompareWithAVaryingSignBit) {
  // (lane << 27) >> 27 (arithmetic) is negative in lanes 16..31: the sign bit varies, so the
  // signed comparison splits the warp. The logical shift gives lane < 32: always true.
  const char* text = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
	.reg .pred %p<8>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %laneid;
	shl.b32 %r2, %r1, 27;
	shr.s32 %r3, %r2, 27;
	setp.lt.s32 %p1, %r3, 0;
	@%p1 bra $L_a;
	shfl.sync.bfly.b32 %r4, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L_a:
	shr.u32 %r5, %r2, 27;
	setp.lt.u32 %p2, %r5, 32;
	@!%p2 bra $L_b;
	shfl.sync.bfly.b32 %r6, %r1, 1, 31, -1;
$L_b:
	// sign extension of a value whose sign bit varies
	cvt.s64.s32 %rd2, %r2;
	setp.lt.s64 %p3, %rd2, 0;
	@%p3 bra $L_c;
	shfl.sync.bfly.b32 %r7, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L_c:
	st.global.u32 [%rd1], %r4;
	ret;
}
)PTX";
  expect_marked_lines_flagged(text, kRule);
}

TEST(RulePartialWarpBits, MergeOfUniformValuesAfterADivergentBranch) {
  // Both incoming values are constants, but lanes took different sides: the phi at the
  // reconvergence point differs between lanes, and so does anything compared with it.
  const char* text = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
	.reg .pred %p<8>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %laneid;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra $L_a;
	mov.u32 %r2, 0;
	bra $L_j;
$L_a:
	mov.u32 %r2, 8;
$L_j:
	setp.lt.u32 %p2, %r2, 8;
	@%p2 bra $L_b;
	shfl.sync.bfly.b32 %r6, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L_b:
	st.global.u32 [%rd1], %r6;
	ret;
}
)PTX";
  expect_marked_lines_flagged(text, kRule);
}

TEST(RulePartialWarpBits, ValueLeavingALoopWithALaneVaryingExit) {
  // The counter is the same in every lane in each iteration, but lanes leave the loop at
  // different iterations: after the loop it differs between lanes.
  const char* text = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
	.reg .pred %p<8>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %laneid;
	mov.u32 %r2, 0;
$L_loop:
	add.u32 %r2, %r2, 4;
	setp.lt.u32 %p1, %r2, %r1;
	@%p1 bra $L_loop;
	setp.lt.u32 %p2, %r2, 16;
	@%p2 bra $L_b;
	shfl.sync.bfly.b32 %r6, %r1, 1, 31, -1;  // [[partial-warp-collective]]
$L_b:
	st.global.u32 [%rd1], %r6;
	ret;
}
)PTX";
  expect_marked_lines_flagged(text, kRule);
}

// The real kernel: the generated q4k_gemv before commit 7defcae with the H200 instance's kind of
// bound. Quiet as is; each planted change of one premise brings back the 32 findings (the
// shfl.sync.idx of the loop body).
TEST(RulePartialWarpBits, GeneratedQ4kGemvLoop) {
  const std::string path = "tests/verifier/inputs/q4k_gemv_h200_loop.sm_90.ptx";
  const std::string text = read_source_file(path);
  ASSERT_FALSE(text.empty());
  FileReport r = verify_one(text, kRule, path);
  EXPECT_EQ(r.findings.size(), 0u);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].sites, 72u);
  const std::pair<const char*, const char*> planted[] = {
      {"setp.lt.u32 %p4, %r44, 1348;", "setp.lt.u32 %p4, %r44, 1350;"}, // not a multiple of 4
      {"shr.u32 %r4, %r2, 3;", "shr.u32 %r4, %r2, 2;"},                 // lane >> 2 < 8
      {"mad.lo.u32 %r42, %r18, 4, %r4;", "mad.lo.u32 %r42, %r18, 2, %r4;"},
      {"add.u32 %r551, %r44, 16;", "add.u32 %r551, %r44, %r4;"}, // a lane-varying step
      {"setp.lt.u32 %p4, %r44, 1348;", "setp.ne.u32 %p4, %r44, 1348;"},
  };
  for (const auto& [from, to] : planted) {
    std::string bad = text;
    std::size_t at = bad.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    bad.replace(at, std::string(from).size(), to);
    FileReport b = verify_one(bad, kRule, path);
    EXPECT_EQ(b.findings.size(), 32u) << to;
  }
}

} // namespace
} // namespace ptxkit::verifier::testing
