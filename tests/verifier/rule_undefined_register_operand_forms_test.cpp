// rule_undefined_register_operand_forms_test.cpp: the registers that rarer operand forms read,
// seen by the dataflow rules: the index of a register-indexed array element (`gmem[%r1]`,
// `gmem[%r1+K]`, PTX ISA 6.4.2) and a vmad source written negated (`-%r2.h0`, 9.7.20.1). Lines
// ending in `// [[rule]]` must be flagged by that rule, every other line must stay quiet.
//
// Why: these forms keep the register inside another operand (the array's elements, a flag on the
// register); a reader that missed it would call the index never read (dead-value) or let a never
// written index pass (undefined-register).
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const char* kCases = R"PTX(.version 8.0
.target sm_90
.address_size 64

.global .u32 gmem[64];

.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<40>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	// an index register never written: error, in a load, a store and a mov of the address
	ld.global.u32 %r2, gmem[%r1];  // [[undefined-register]]
	st.global.u32 gmem[%r3+4], %r2;  // [[undefined-register]]
	mov.u64 %rd2, gmem[%r4];  // [[undefined-register]]
	st.global.u64 [%rd1], %rd2;
	// written first (near miss): quiet, and the write is no dead value
	ld.global.u32 %r5, [%rd1];
	ld.global.u32 %r6, gmem[%r5+1];
	st.global.u32 [%rd1], %r6;
	// a negated vmad source never written: error; written (near miss): quiet
	vmad.s32.s32.u32 %r7, -%r8.h0, %r6.h1, %r5;  // [[undefined-register]]
	st.global.u32 [%rd1], %r7;
	ld.global.u32 %r9, [%rd1+4];
	vmad.s32.s32.u32 %r10, %r6, %r5, -%r9;
	st.global.u32 [%rd1], %r10;
	// a value only ever used as an index is still used (no dead-value); one never used is dead
	add.u32 %r11, %r5, 3;
	mov.u64 %rd3, gmem[%r11];
	st.global.u64 [%rd1], %rd3;
	add.u32 %r12, %r5, 4;  // [[dead-value]]
	ret;
}
)PTX";

TEST(RuleUndefinedRegister, IndexRegistersAndNegatedSourcesAreReads) {
  expect_marked_lines_flagged(kCases, "undefined-register");
  FileReport r = verify_one(kCases, "undefined-register");
  for (const Finding& f : r.findings)
    EXPECT_EQ(f.severity, Severity::kError) << f.message; // no write reaches at all
}

TEST(RuleDeadValue, AnIndexRegisterIsAUse) {
  expect_marked_lines_flagged(kCases, "dead-value");
}

} // namespace
} // namespace ptxkit::verifier::testing
