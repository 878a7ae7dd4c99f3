// rule_undeclared_register_test.cpp: rule `undeclared-register`. Lines ending in
// `// [[undeclared-register]]` must be flagged, every other line must stay quiet; each case opens
// with a comment saying what it tests (the runtime's report: %r9 read when only %r<6> exists).
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "undeclared-register";

const char* kCases = R"PTX(.version 8.0
.target sm_90
.address_size 64

.global .align 4 .u32 %gcount;

.visible .entry k(.param .u64 p)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %fv;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	// the last register of a range, a plain name, a %-named global variable (near misses)
	mov.u32 %r5, 1;
	mov.f32 %fv, 0f00000000;
	ld.global.u32 %r4, [%gcount];
	// one past the range: %r<6> declares %r0..%r5
	add.u32 %r6, %r5, 1;  // [[undeclared-register]]
	// a read of %r9, in a store and in an address base
	st.global.u32 [%rd1], %r9;  // [[undeclared-register]]
	ld.global.u32 %r1, [%rd7];  // [[undeclared-register]]
	// an undeclared guard predicate and a vector element
	@%p3 st.global.u32 [%rd1+4], %r1;  // [[undeclared-register]]
	st.global.v2.u32 [%rd1+8], {%r1, %r8};  // [[undeclared-register]]
	// a nested scope's own declaration is visible inside it only (near miss inside)
	{
	.reg .b32 %inner;
	mov.u32 %inner, %r1;
	st.global.u32 [%rd1+16], %inner;
	}
	st.global.u32 [%rd1+20], %inner;  // [[undeclared-register]]
	ret;
}
)PTX";

TEST(RuleUndeclaredRegister, MarkedLinesAreFlaggedAndOnlyThose) {
  expect_marked_lines_flagged(kCases, kRule);
}

TEST(RuleUndeclaredRegister, MessageNamesTheDeclaredRange) {
  FileReport r = verify_one(kCases, kRule);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].message,
            "%r6 is not declared (%r<6> declares %r0..%r5): ptxas rejects the file");
  EXPECT_EQ(r.findings[0].severity, Severity::kError);
}

TEST(RuleUndeclaredRegister, DeclaredKernelPasses) {
  FileReport r = verify_one(kernel("", "\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 1;\n\tret;\n"), kRule);
  EXPECT_EQ(r.findings.size(), 0u);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kPass);
  EXPECT_EQ(r.rules[0].sites, 1u);
}

} // namespace
} // namespace ptxkit::verifier::testing
