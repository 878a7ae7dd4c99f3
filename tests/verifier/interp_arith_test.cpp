// interp_arith_test.cpp: the interpreter's integer semantics, instruction by instruction, against
// the values the PTX ISA (chapter 9.7) gives. Each case runs one thread of a small kernel to its
// end and reads the registers.
//
// Expectations marked "GPU:" are the ones where the ISA's text is easy to misread (signed
// division of negatives, the high half of a signed product, shifts by the register width or
// more, saturating conversions, bit-field extraction, byte permutes, the borrow of sub.cc): a
// device test should run the same instructions on hardware and compare.
#include "interp_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

TEST(InterpArith, AddSubWrapAround) {
  auto t = run_thread(R"(
	mov.u32 %r1, 0xffffffff;
	add.u32 %r2, %r1, 1;
	mov.u32 %r3, 0x7fffffff;
	add.s32 %r4, %r3, 1;
	add.sat.s32 %r5, %r3, 1;
	sub.u32 %r6, 0, 1;
	mov.u16 %h1, 0xffff;
	add.u16 %h2, %h1, 2;
	mov.u64 %rd1, -1;
	add.u64 %rd2, %rd1, 1;
	mov.u32 %r7, -5;
	sub.sat.s32 %r8, 0x80000000, 1;
)");
  EXPECT_EQ(t->r.stop, interp::Stop::kExited);
  EXPECT_EQ(t->u("%r2"), 0u);
  EXPECT_EQ(t->u("%r4"), 0x80000000u);
  EXPECT_EQ(t->u("%r5"), 0x7fffffffu);
  EXPECT_EQ(t->u("%r6"), 0xffffffffu);
  EXPECT_EQ(t->u("%h2", 16), 1u);
  EXPECT_EQ(t->u("%rd2", 64), 0u);
  EXPECT_EQ(t->s("%r7"), -5);
  EXPECT_EQ(t->u("%r8"), 0x80000000u); // saturates at INT_MIN
}

// add.cc/addc and sub.cc/subc chain 64-bit arithmetic in 32-bit halves. GPU: the borrow.
TEST(InterpArith, CarryChains) {
  auto t = run_thread(R"(
	add.cc.u32 %r1, 0xffffffff, 1;
	addc.u32 %r2, 0, 0;
	sub.cc.u32 %r3, 0, 1;
	subc.u32 %r4, 5, 0;
)");
  EXPECT_EQ(t->u("%r1"), 0u);
  EXPECT_EQ(t->u("%r2"), 1u);
  EXPECT_EQ(t->u("%r3"), 0xffffffffu);
  EXPECT_EQ(t->u("%r4"), 4u);
}

// GPU: mul.hi of signed operands, mul.wide/mad.wide of negatives.
TEST(InterpArith, Multiplication) {
  auto t = run_thread(R"(
	mul.lo.u32 %r1, 0x10000, 0x10000;
	mul.hi.u32 %r2, 0xffffffff, 0xffffffff;
	mul.hi.s32 %r3, -1, -1;
	mul.hi.s32 %r4, -2, 3;
	mul.wide.s32 %rd1, -2, 3;
	mul.wide.u32 %rd2, 0xffffffff, 2;
	mad.lo.s32 %r5, -3, 4, 100;
	mad.wide.u32 %rd3, 0xffffffff, 0xffffffff, 1;
	mul.hi.u64 %rd4, 0xffffffffffffffff, 2;
	mul.lo.s16 %h1, 300, 300;
	mul24.lo.u32 %r6, 0x1000001, 3;
	mul24.hi.u32 %r7, 0xffffff, 0xffffff;
	mad.hi.u32 %r8, 0x80000000, 4, 5;
	mul.wide.s16 %r9, -2, 3;
)");
  EXPECT_EQ(t->u("%r1"), 0u);
  EXPECT_EQ(t->u("%r2"), 0xfffffffeu);
  EXPECT_EQ(t->u("%r3"), 0u);
  EXPECT_EQ(t->u("%r4"), 0xffffffffu); // -6 = 0xffffffff_fffffffa: high word all ones
  EXPECT_EQ(t->s("%rd1", 64), -6);
  EXPECT_EQ(t->u("%rd2", 64), 0x1fffffffeu);
  EXPECT_EQ(t->s("%r5"), 88);
  EXPECT_EQ(t->u("%rd3", 64), 0xfffffffe00000002u);
  EXPECT_EQ(t->u("%rd4", 64), 1u);
  EXPECT_EQ(t->u("%h1", 16), (300u * 300u) & 0xffffu);
  EXPECT_EQ(t->u("%r6"), 3u); // 24-bit operands: the 0x1000000 bit is dropped
  EXPECT_EQ(t->u("%r7"), static_cast<std::uint32_t>((0xffffffull * 0xffffffull) >> 16));
  EXPECT_EQ(t->u("%r8"), 7u);
  EXPECT_EQ(t->s("%r9"), -6);
}

// Truncating division; the remainder has the dividend's sign. GPU: all of these.
TEST(InterpArith, DivisionAndRemainder) {
  auto t = run_thread(R"(
	div.s32 %r1, -7, 2;
	rem.s32 %r2, -7, 2;
	rem.s32 %r3, 7, -2;
	div.s32 %r4, 7, -2;
	div.u32 %r5, 0xfffffff9, 2;
	rem.u32 %r6, 0xfffffff9, 2;
	div.s64 %rd1, -9, 4;
	div.u32 %r7, 5, 0;
	div.s32 %r8, 0x80000000, -1;
	div.s16 %h1, -7, 2;
)");
  EXPECT_EQ(t->s("%r1"), -3);
  EXPECT_EQ(t->s("%r2"), -1);
  EXPECT_EQ(t->s("%r3"), 1);
  EXPECT_EQ(t->s("%r4"), -3);
  EXPECT_EQ(t->u("%r5"), 0x7ffffffcu);
  EXPECT_EQ(t->u("%r6"), 1u);
  EXPECT_EQ(t->s("%rd1", 64), -2);
  // Division by zero and INT_MIN / -1 are unspecified by the ISA: unknown, never a guess.
  EXPECT_FALSE(t->known("%r7"));
  EXPECT_FALSE(t->known("%r8"));
  EXPECT_EQ(t->s("%h1", 16), -3);
}

// Shift amounts are unsigned and clamped to the width. GPU: every shift by >= 32 here.
TEST(InterpArith, Shifts) {
  auto t = run_thread(R"(
	shl.b32 %r1, 1, 31;
	shl.b32 %r2, 1, 32;
	shl.b32 %r3, 1, 33;
	shr.u32 %r4, 0x80000000, 31;
	shr.u32 %r5, 0x80000000, 40;
	shr.s32 %r6, -8, 1;
	shr.s32 %r7, -8, 40;
	shr.s32 %r8, 8, 40;
	shr.b32 %r9, 0x80000000, 31;
	shl.b64 %rd1, 1, 63;
	shr.s64 %rd2, %rd1, 63;
	shr.s32 %r10, -8, 0xffffffff;
	shr.s16 %h1, 0x8000, 15;
	shf.l.wrap.b32 %r11, 0x80000000, 1, 1;
	shf.r.clamp.b32 %r12, 0, 0x12345678, 40;
	shf.r.wrap.b32 %r13, 0x000000ff, 0x11, 36;
)");
  EXPECT_EQ(t->u("%r1"), 0x80000000u);
  EXPECT_EQ(t->u("%r2"), 0u);
  EXPECT_EQ(t->u("%r3"), 0u);
  EXPECT_EQ(t->u("%r4"), 1u);
  EXPECT_EQ(t->u("%r5"), 0u);
  EXPECT_EQ(t->s("%r6"), -4);
  EXPECT_EQ(t->s("%r7"), -1);
  EXPECT_EQ(t->u("%r8"), 0u);
  EXPECT_EQ(t->u("%r9"), 1u);
  EXPECT_EQ(t->u("%rd1", 64), 0x8000000000000000u);
  EXPECT_EQ(t->s("%rd2", 64), -1);
  EXPECT_EQ(t->s("%r10"), -1);
  EXPECT_EQ(t->s("%h1", 16), -1);
  EXPECT_EQ(t->u("%r11"), 3u);          // (1:0x80000000) << 1, upper word
  EXPECT_EQ(t->u("%r12"), 0x12345678u); // clamped to 32: the upper word
  EXPECT_EQ(t->u("%r13"), 0x1000000fu); // 36 & 31 = 4
}

// cvt between integer types: sign extension of signed sources, truncation, .sat. GPU: .sat.
TEST(InterpArith, Conversions) {
  auto t = run_thread(R"(
	mov.u32 %r1, -1;
	cvt.s64.s32 %rd1, %r1;
	cvt.u64.u32 %rd2, %r1;
	cvt.u64.s32 %rd3, %r1;
	mov.u64 %rd4, 0x123456789;
	cvt.u32.u64 %r2, %rd4;
	mov.u32 %r3, 0x80;
	cvt.s32.s8 %r4, %r3;
	cvt.u32.u8 %r5, %r3;
	cvt.sat.u8.s32 %r6, 300;
	cvt.sat.u8.s32 %r7, -5;
	cvt.sat.s8.s32 %r8, -300;
	cvt.u16.u32 %h1, 0x12345;
	cvt.sat.s32.u32 %r9, 0xffffffff;
	cvt.sat.u32.s64 %r10, %rd1;
	cvt.s32.u16 %r11, 0xffff;
)");
  EXPECT_EQ(t->s("%rd1", 64), -1);
  EXPECT_EQ(t->u("%rd2", 64), 0xffffffffu);
  EXPECT_EQ(t->s("%rd3", 64), -1); // a signed source is sign-extended whatever the destination
  EXPECT_EQ(t->u("%r2"), 0x23456789u);
  EXPECT_EQ(t->s("%r4"), -128);
  EXPECT_EQ(t->u("%r5"), 0x80u);
  EXPECT_EQ(t->u("%r6", 8), 255u);
  EXPECT_EQ(t->u("%r7", 8), 0u);
  EXPECT_EQ(t->s("%r8", 8), -128);
  EXPECT_EQ(t->u("%h1", 16), 0x2345u);
  EXPECT_EQ(t->u("%r9"), 0x7fffffffu);
  EXPECT_EQ(t->u("%r10"), 0u);
  EXPECT_EQ(t->u("%r11"), 0xffffu);
}

// setp: signed and unsigned orders of the same bits; the combining forms; a pair.
TEST(InterpArith, ComparisonsSignedVsUnsigned) {
  auto t = run_thread(R"(
	mov.u32 %r1, -1;
	setp.lt.s32 %p1, %r1, 0;
	setp.lt.u32 %p2, %r1, 0;
	setp.lo.u32 %p3, 0, %r1;
	setp.hs.u32 %p4, %r1, %r1;
	setp.gt.s32 %p5|%p6, %r1, 0;
	setp.le.and.s32 %p7, %r1, 0, %p2;
	selp.u32 %r2, 10, 20, %p1;
	selp.u32 %r3, 10, 20, %p2;
	setp.ne.or.u32 %p0, %r1, %r1, !%p2;
	selp.u32 %r4, 1, 0, %p0;
	setp.ge.xor.s16 %p2, 0x8000, 0, %p1;
	selp.u32 %r5, 1, 0, %p2;
	set.lt.u32.s32 %r6, %r1, 0;
	set.hi.f32.u32 %r7, %r1, 0;
	slct.u32.s32 %r8, 1, 2, %r1;
	setp.ls.u64 %p3, 5, 5;
	selp.u32 %r9, 1, 0, %p3;
)");
  EXPECT_EQ(t->u("%p1", 1), 1u);
  EXPECT_EQ(t->u("%p2", 1), 1u); // rewritten below: see %r5
  EXPECT_EQ(t->u("%p4", 1), 1u);
  EXPECT_EQ(t->u("%p5", 1), 0u);
  EXPECT_EQ(t->u("%p6", 1), 1u);
  EXPECT_EQ(t->u("%p7", 1), 0u); // true and false
  EXPECT_EQ(t->u("%r2"), 10u);
  EXPECT_EQ(t->u("%r3"), 20u); // -1 as u32 is not below 0
  EXPECT_EQ(t->u("%r4"), 1u);  // false or !false
  EXPECT_EQ(t->u("%r5"), 1u);  // (-32768 >= 0) xor true
  EXPECT_EQ(t->u("%r6"), 0xffffffffu);
  EXPECT_EQ(t->u("%r7"), 0x3f800000u); // 1.0f
  EXPECT_EQ(t->u("%r8"), 2u);
  EXPECT_EQ(t->u("%r9"), 1u);
}

TEST(InterpArith, PredicateLogic) {
  auto t = run_thread(R"(
	setp.eq.u32 %p1, 1, 1;
	setp.eq.u32 %p2, 1, 0;
	and.pred %p3, %p1, %p2;
	or.pred %p4, %p1, %p2;
	xor.pred %p5, %p1, %p1;
	not.pred %p6, %p2;
	and.pred %p7, %p1, !%p2;
	mov.pred %p0, %p7;
)");
  EXPECT_EQ(t->u("%p3", 1), 0u);
  EXPECT_EQ(t->u("%p4", 1), 1u);
  EXPECT_EQ(t->u("%p5", 1), 0u);
  EXPECT_EQ(t->u("%p6", 1), 1u);
  EXPECT_EQ(t->u("%p7", 1), 1u);
  EXPECT_EQ(t->u("%p0", 1), 1u);
}

// GPU: bfe's sign fill, prmt's sign replication, lop3.
TEST(InterpArith, LogicAndBitFields) {
  auto t = run_thread(R"(
	and.b32 %r1, 0xff00ff00, 0x0ff00ff0;
	or.b32 %r2, 0xf0, 0x0f;
	xor.b32 %r3, 0xff, 0x0f;
	not.b32 %r4, 0;
	cnot.b32 %r5, 0;
	cnot.b32 %r6, 7;
	min.s32 %r7, -1, 1;
	min.u32 %r8, -1, 1;
	max.s32 %r9, -1, 1;
	abs.s32 %r10, 0x80000000;
	neg.s32 %r11, 5;
	bfe.u32 %r12, 0xf0f0, 4, 8;
	bfe.s32 %r13, 0xf0, 4, 4;
	bfe.s32 %r14, 0xf0, 4, 0;
	bfi.b32 %r15, 0xff, 0, 8, 4;
	prmt.b32 %r16, 0x33221100, 0x77665544, 0x5140;
	prmt.b32 %r17, 0x000080ff, 0, 0x4449;
	popc.b32 %r18, 0xf0f0;
	clz.b32 %r19, 0x00010000;
	brev.b32 %r20, 1;
	lop3.b32 %r21, 0xff00, 0xf0f0, 0xcccc, 0x96;
	bfind.u32 %r22, 0x00010000;
	bfind.s32 %r23, -1;
	max.relu.s32 %r24, -5, -7;
	popc.b64 %r25, -1;
	clz.b64 %r26, 1;
)");
  EXPECT_EQ(t->u("%r1"), 0x0f000f00u);
  EXPECT_EQ(t->u("%r2"), 0xffu);
  EXPECT_EQ(t->u("%r3"), 0xf0u);
  EXPECT_EQ(t->u("%r4"), 0xffffffffu);
  EXPECT_EQ(t->u("%r5"), 1u);
  EXPECT_EQ(t->u("%r6"), 0u);
  EXPECT_EQ(t->s("%r7"), -1);
  EXPECT_EQ(t->u("%r8"), 1u);
  EXPECT_EQ(t->u("%r9"), 1u);
  EXPECT_EQ(t->u("%r10"), 0x80000000u); // wraps
  EXPECT_EQ(t->s("%r11"), -5);
  EXPECT_EQ(t->u("%r12"), 0x0fu);
  EXPECT_EQ(t->s("%r13"), -1);
  EXPECT_EQ(t->u("%r14"), 0u);
  EXPECT_EQ(t->u("%r15"), 0xf00u);
  EXPECT_EQ(t->u("%r16"), 0x55114400u);
  EXPECT_EQ(t->u("%r17"), 0x000000ffu); // byte 0: byte 1 (0x80) as its sign; 1..3: b's byte 0
  EXPECT_EQ(t->u("%r18"), 8u);
  EXPECT_EQ(t->u("%r19"), 15u);
  EXPECT_EQ(t->u("%r20"), 0x80000000u);
  EXPECT_EQ(t->u("%r21"), (0xff00u ^ 0xf0f0u ^ 0xccccu));
  EXPECT_EQ(t->u("%r22"), 16u);
  EXPECT_EQ(t->u("%r23"), 0xffffffffu); // no non-sign bit
  EXPECT_EQ(t->u("%r24"), 0u);
  EXPECT_EQ(t->u("%r25"), 64u);
  EXPECT_EQ(t->u("%r26"), 63u);
}

// Vectors in mov pack and unpack; a float operation is not modelled.
TEST(InterpArith, MovPackUnpackAndUnmodelled) {
  auto t = run_thread(R"(
	mov.b64 %rd1, {0x11111111, 0x22222222};
	mov.b64 {%r1, %r2}, 0x0000000300000004;
	mov.b32 %r3, 0f3F800000;
	add.f32 %r4, %r3, %r3;
	add.u32 %r5, %r4, 1;
)");
  EXPECT_EQ(t->u("%rd1", 64), 0x2222222211111111u);
  EXPECT_EQ(t->u("%r1"), 4u);
  EXPECT_EQ(t->u("%r2"), 3u);
  EXPECT_EQ(t->u("%r3"), 0x3f800000u);
  EXPECT_FALSE(t->known("%r4"));
  EXPECT_FALSE(t->known("%r5")); // unknown propagates
}

// prmt's named modes: only c's low two bits select the pattern (the bytes of {b, a} are
// 00 11 22 33 | 44 55 66 77); an unknown mode is never guessed.
TEST(InterpArith, PermuteModes) {
  auto t = run_thread(R"(
	mov.b32 %r1, 0x33221100;
	mov.b32 %r2, 0x77665544;
	prmt.b32.f4e %r3, %r1, %r2, 1;
	prmt.b32.b4e %r4, %r1, %r2, 0;
	prmt.b32.rc8 %r5, %r1, %r2, 2;
	prmt.b32.ecl %r6, %r1, %r2, 1;
	prmt.b32.ecr %r7, %r1, %r2, 2;
	prmt.b32.rc16 %r8, %r1, %r2, 1;
	prmt.b32.f4e %r9, %r1, %r2, 7;
	prmt.b32.b4e %r10, %r1, %r2, 3;
)");
  EXPECT_EQ(t->u("%r3"), 0x44332211u);
  EXPECT_EQ(t->u("%r4"), 0x55667700u);
  EXPECT_EQ(t->u("%r5"), 0x22222222u);
  EXPECT_EQ(t->u("%r6"), 0x33221111u);
  EXPECT_EQ(t->u("%r7"), 0x22221100u);
  EXPECT_EQ(t->u("%r8"), 0x33223322u);
  EXPECT_EQ(t->u("%r9"), 0x66554433u);
  EXPECT_EQ(t->u("%r10"), 0x00112233u);
}

} // namespace
} // namespace ptxkit::verifier::testing
