// rule_undefined_register_test.cpp: rule `undefined-register`. Lines ending in
// `// [[undefined-register]]` must be flagged, every other line must stay quiet; each case
// opens with a comment saying what it tests. Severities: error when no write reaches at all,
// warning when only some paths write (see undefined-register.h).
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "undefined-register";

const char* kCases = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p, .param .u32 n)
{
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r1, [n];
	setp.lt.u32 %p1, %r1, 4;
	// never written anywhere: error
	add.u32 %r2, %r3, 1;  // [[undefined-register]]
	// written only when %p1 holds, read unguarded: warning
	@%p1 mov.u32 %r4, 1;
	add.u32 %r5, %r4, 1;  // [[undefined-register]]
	// read under the same guard: defined (near miss)
	@%p1 add.u32 %r6, %r4, 1;
	// complementary guards write on both paths (near miss)
	@%p1 mov.u32 %r7, 1;
	@!%p1 mov.u32 %r7, 2;
	add.u32 %r8, %r7, 1;
	// written on the fall-through path only, read after the merge
	@%p1 bra $L_skip;
	mov.u32 %r9, 5;
$L_skip:
	add.u32 %r10, %r9, 1;  // [[undefined-register]]
	// both arms write (near miss)
	@%p1 bra $L_x;
	mov.u32 %r11, 1;
	bra.uni $L_y;
$L_x:
	mov.u32 %r11, 2;
$L_y:
	add.u32 %r12, %r11, 1;
	// the branch says %p1 held on the fall-through path, where the guarded write happened
	@%p1 mov.u32 %r13, 1;
	@!%p1 bra $L_w;
	add.u32 %r14, %r13, 1;
$L_w:
	// a guard predicate that was never written
	@%p5 add.u32 %r15, %r1, 1;  // [[undefined-register]]
	// a loop reading, in its first iteration, what its body writes later
	mov.u32 %r16, 0;
$L_loop:
	add.u32 %r17, %r18, %r16;  // [[undefined-register]]
	mov.u32 %r18, %r16;
	add.u32 %r16, %r16, 1;
	setp.lt.u32 %p2, %r16, %r1;
	@%p2 bra $L_loop;
	// a loop-carried value initialised before the loop (near miss)
	mov.u32 %r19, 0;
$L_loop2:
	add.u32 %r19, %r19, 1;
	setp.lt.u32 %p3, %r19, %r1;
	@%p3 bra $L_loop2;
	// vector destinations define each element (near miss)
	ld.global.v2.u32 {%r20, %r21}, [%rd1];
	add.u32 %r22, %r20, %r21;
	// an address register never written
	st.global.u32 [%rd2], %r22;  // [[undefined-register]]
	st.global.u32 [%rd1], %r2;
	// a video operand's byte selector reads its register, here never written
	vadd.s32.u32.s32 %r23, %r24.b0, %r1.h1;  // [[undefined-register]]
	// a SIMD destination mask writes the whole register (the unselected half-word comes from
	// the last source), so the read after it is defined (near miss)
	vadd2.u32.u32.u32 %r25.h0, %r1.h10, %r1.h32, %r1;
	add.u32 %r26, %r25, %r23;
	st.global.u32 [%rd1], %r26;
	ret;
}
)PTX";

TEST(RuleUndefinedRegister, MarkedLinesAreFlaggedAndOnlyThose) {
  expect_marked_lines_flagged(kCases, kRule);
}

TEST(RuleUndefinedRegister, NeverWrittenIsAnErrorPartiallyWrittenIsAWarning) {
  FileReport r = verify_one(kCases, kRule);
  std::uint32_t never = line_of(kCases, "add.u32 %r2, %r3");
  std::uint32_t partial = line_of(kCases, "add.u32 %r5, %r4");
  bool saw_never = false, saw_partial = false;
  for (const Finding& f : r.findings) {
    if (f.location.line == never) {
      saw_never = true;
      EXPECT_EQ(f.severity, Severity::kError);
      EXPECT_EQ(f.message, "%r3 is read but nothing writes it before this instruction");
      EXPECT_EQ(f.kernel, "k");
      EXPECT_EQ(f.location.col, 2u);
    }
    if (f.location.line == partial) {
      saw_partial = true;
      EXPECT_EQ(f.severity, Severity::kWarning);
      ASSERT_EQ(f.related.size(), 1u); // both sides: the guarded write
      EXPECT_EQ(f.related[0].location.line, line_of(kCases, "@%p1 mov.u32 %r4, 1"));
      EXPECT_EQ(f.related[0].message, "defines %r4 only when %p1 holds");
      EXPECT_EQ(f.related[0].instruction, "@%p1 mov.u32 %r4, 1;");
    }
  }
  EXPECT_TRUE(saw_never && saw_partial);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kFail);
  EXPECT_GT(r.rules[0].sites, 20u);
}

TEST(RuleUndefinedRegister, CleanKernelPassesWithSites) {
  const std::string text =
      kernel(".param .u64 p", "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n"
                              "\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n"
                              "\tst.global.u32 [%rd1], %r1;\n\tret;\n");
  FileReport r = verify_one(text, kRule);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kPass);
  EXPECT_EQ(r.rules[0].sites, 2u); // the two register reads of the st
}

TEST(RuleUndefinedRegister, DebugBuildsOnlyWarn) {
  const std::string text =
      kernel("", "\t.reg .b32 %r<4>;\n\tadd.u32 %r1, %r2, 1;\n\tret;\n", "sm_90, debug");
  FileReport r = verify_one(text, kRule);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].severity, Severity::kWarning);
}

} // namespace
} // namespace ptxkit::verifier::testing

namespace ptxkit::verifier::testing {
namespace {

TEST(RuleUndefinedRegister, NeverWrittenWordsThatAreOnlyMovedAreWarnings) {
  // CUB shuffles every word of a partly-initialised struct: the padding word is never written,
  // shuffled, and never used. Computing with the shuffled word is an error again.
  const std::string text = kernel(".param .u64 p", "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<3>;\n"
                                                   "\tld.param.u64 %rd1, [p];\n"
                                                   "\tshfl.sync.up.b32 %r2, %r1, 1, 0, -1;\n"
                                                   "\tmov.b32 %r3, %r2;\n"
                                                   "\tshfl.sync.up.b32 %r5, %r4, 1, 0, -1;\n"
                                                   "\tadd.u32 %r6, %r5, 1;\n"
                                                   "\tst.global.u32 [%rd1], %r6;\n"
                                                   "\tret;\n");
  FileReport r = verify_one(text, "undefined-register");
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].location.line, line_of(text, "%r2, %r1"));
  EXPECT_EQ(r.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(r.findings[1].location.line, line_of(text, "%r5, %r4"));
  EXPECT_EQ(r.findings[1].severity, Severity::kError);
}

} // namespace
} // namespace ptxkit::verifier::testing
