// rule_dead_value_test.cpp: rule `dead-value`. Lines ending in `// [[dead-value]]` must be
// flagged, every other line must stay quiet; each case opens with a comment saying what it
// tests. A dropped result (overwritten before any read while the register's next value is
// used) is an error; a value nothing reads is waste, a warning (see dead-value.cpp).
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "dead-value";

const char* kCases = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
	.reg .pred %p<8>;
	.reg .b32 %r<20>;
	.reg .f32 %f<20>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	// loads a value, then stores a constant instead: nothing reads the load (waste, a warning)
	ld.global.f32 %f1, [%rd1];  // [[dead-value]]
	mov.f32 %f2, 0f3F800000;
	st.global.f32 [%rd1], %f2;
	// a load that is used (near miss)
	ld.global.f32 %f3, [%rd1+4];
	// arithmetic nobody reads: a warning
	add.f32 %f4, %f3, %f3;  // [[dead-value]]
	// volatile loads have an effect (near miss)
	ld.volatile.global.f32 %f5, [%rd1+8];
	// a pair destination with one half used (near miss)
	setp.lt.f32 %p1|%p2, %f3, 0f00000000;
	@%p2 st.global.f32 [%rd1+12], %f3;
	// a guarded load merged with a guarded move, then used (near miss)
	@%p2 ld.global.f32 %f6, [%rd1+16];
	@!%p2 mov.f32 %f6, 0f00000000;
	st.global.f32 [%rd1+20], %f6;
	// a vector load with one element used (near miss)
	ld.global.v2.f32 {%f7, %f8}, [%rd1+24];
	st.global.f32 [%rd1+32], %f8;
	// a load overwritten before any read, the register's next value stored: a dropped result
	ld.global.f32 %f9, [%rd1+36];  // [[dead-value]]
	ld.global.f32 %f9, [%rd1+40];
	st.global.f32 [%rd1+44], %f9;
	// a loop counter read only by its own update and the exit test (near miss)
	mov.u32 %r1, 0;
$L_loop:
	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p3, %r1, 10;
	@%p3 bra $L_loop;
	// a value used only after the loop, through the loop phi (near miss)
	mov.f32 %f10, 0f00000000;
	mov.u32 %r2, 0;
$L_loop2:
	add.f32 %f10, %f10, %f3;
	add.u32 %r2, %r2, 1;
	setp.lt.u32 %p4, %r2, 10;
	@%p4 bra $L_loop2;
	st.global.f32 [%rd1+48], %f10;
	// a loop-carried sum nobody reads after the loop
	mov.f32 %f11, 0f00000000;  // [[dead-value]]
	mov.u32 %r3, 0;
$L_loop3:
	add.f32 %f11, %f11, %f3;  // [[dead-value]]
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p5, %r3, 10;
	@%p5 bra $L_loop3;
	// a SIMD video result under a destination mask, then stored: used (near miss)
	ld.global.u32 %r4, [%rd1+52];
	vadd2.u32.u32.u32 %r5.h1, %r4.h10, %r4.h32, %r4;
	st.global.u32 [%rd1+56], %r5;
	// a byte-selected video result nobody reads
	vadd.u32.u32.u32 %r6, %r4.b0, %r4.b3;  // [[dead-value]]
	ret;
}
)PTX";

TEST(RuleDeadValue, MarkedLinesAreFlaggedAndOnlyThose) {
  expect_marked_lines_flagged(kCases, kRule);
}

TEST(RuleDeadValue, DroppedResultsAreErrorsWasteIsAWarning) {
  FileReport r = verify_one(kCases, kRule);
  std::uint32_t overwritten = line_of(kCases, "ld.global.f32 %f9, [%rd1+36]");
  for (const Finding& f : r.findings)
    EXPECT_EQ(f.severity, f.location.line == overwritten ? Severity::kError : Severity::kWarning)
        << f.instruction;
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [&](const Finding& f) { return f.location.line == overwritten; });
  ASSERT_NE(it, r.findings.end());
  EXPECT_EQ(it->message, "the value loaded into %f9 is overwritten before any read, and the "
                         "register's next value is used: a dropped result (the reader meant to "
                         "get it reads another value)");
  ASSERT_EQ(it->related.size(), 1u);
  EXPECT_EQ(it->related[0].location.line, overwritten + 1);
  EXPECT_EQ(it->related[0].message, "overwrites %f9 before any read");
}

TEST(RuleDeadValue, DebugBuildsAndStackReloadsOnlyWarn) {
  const std::string body =
      "\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<4>;\n\t.local .align 4 .b8 __local_depot0[16];\n"
      "\tmov.u64 %rd2, __local_depot0;\n\tcvta.local.u64 %rd3, %rd2;\n"
      "\tld.f32 %f1, [%rd3+4];\n\tret;\n";
  FileReport opt = verify_one(kernel("", body), kRule);
  // The reload, and the address computation that only feeds it: all warnings.
  ASSERT_EQ(opt.findings.size(), 3u);
  for (const Finding& f : opt.findings)
    EXPECT_EQ(f.severity, Severity::kWarning) << f.instruction;
  EXPECT_EQ(opt.findings[2].message,
            "the value loaded into %f1 is never used: a wasted load, with no effect on any result");
  EXPECT_EQ(opt.findings[0].message, "the result %rd2 only feeds results that are never used");
  const std::string global = "\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n"
                             "\tld.global.f32 %f1, [%rd1];\n\tret;\n";
  // The dead load and the parameter load that only feeds its address.
  FileReport dbg = verify_one(kernel(".param .u64 p", global, "sm_90, debug"), kRule);
  ASSERT_EQ(dbg.findings.size(), 2u);
  for (const Finding& f : dbg.findings)
    EXPECT_EQ(f.severity, Severity::kWarning);
  // Optimized: a global load nothing reads is waste (a warning), as is the parameter read that
  // feeds only its address; the same load overwritten by a value that is stored is an error.
  FileReport rel = verify_one(kernel(".param .u64 p", global), kRule);
  ASSERT_EQ(rel.findings.size(), 2u);
  for (const Finding& f : rel.findings)
    EXPECT_EQ(f.severity, Severity::kWarning) << f.instruction;
  const std::string dropped = "\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n"
                              "\tld.global.f32 %f1, [%rd1];\n\tmov.f32 %f1, 0f3F800000;\n"
                              "\tst.global.f32 [%rd1], %f1;\n\tret;\n";
  FileReport drop = verify_one(kernel(".param .u64 p", dropped), kRule);
  ASSERT_EQ(drop.findings.size(), 1u);
  EXPECT_EQ(drop.findings[0].severity, Severity::kError) << drop.findings[0].instruction;
}

TEST(RuleDeadValue, EmptyKernelIsNotApplicable) {
  FileReport r = verify_one(kernel("", "\tret;\n"), kRule);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kNotApplicable);
  EXPECT_EQ(r.rules[0].sites, 0u);
}

} // namespace
} // namespace ptxkit::verifier::testing
