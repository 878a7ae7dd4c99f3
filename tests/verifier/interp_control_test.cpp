// interp_control_test.cpp: the interpreter's control flow (guards, branches, loops, the step
// bound), its special registers and parameters, the effective address of a memory access (the
// shared layout, generic addresses through cvta), and what it does with values it does not know
// (inconclusive replays, steering toward the target).
//
// GPU: the special-register expectations (%laneid, %warpid of a 2-D block) and the guarded
// writes are worth a device test; the rest is the interpreter's own contract.
#include "interp_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

using interp::Stop;

TEST(InterpControl, GuardedWritesFollowThePredicate) {
  auto t = run_thread(R"(
	mov.u32 %r1, 1;
	mov.u32 %r2, 1;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mov.u32 %r1, 7;
	@!%p1 mov.u32 %r2, 7;
)");
  EXPECT_EQ(t->u("%r1"), 1u);
  EXPECT_EQ(t->u("%r2"), 7u);
}

// A counted loop runs to its end; the path holds every instruction executed.
TEST(InterpControl, LoopsAndThePath) {
  auto t = run_thread(R"(
	mov.u32 %r1, 0;
	mov.u32 %r2, 0;
$L_loop:
	add.u32 %r2, %r2, %r1;
	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 10;
	@%p1 bra $L_loop;
)");
  EXPECT_EQ(t->r.stop, Stop::kExited);
  EXPECT_EQ(t->u("%r2"), 45u);
  EXPECT_EQ(t->r.path.size(), 2u + 10u * 4u + 1u); // 2 movs, 10 rounds of 4, ret
}

TEST(InterpControl, AnEndlessLoopStopsAtTheStepBound) {
  interp::RunOptions opt;
  opt.max_steps = 1000;
  auto t = run_thread(R"(
$L_spin:
	add.u32 %r1, %r1, 1;
	bra.uni $L_spin;
)",
                      {}, opt);
  EXPECT_EQ(t->r.stop, Stop::kStepLimit);
  EXPECT_EQ(t->r.path.size(), 1000u);
}

TEST(InterpControl, SpecialRegistersOfTheLaunch) {
  interp::ThreadLaunch l;
  l.tid = {37, 1, 0};
  l.ntid = {64, 2, 1};
  l.ctaid = {5, 6, 7};
  l.nctaid = {8, 9, 10};
  auto t = run_thread(R"(
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %ctaid.z;
	mov.u32 %r5, %nctaid.y;
	mov.u32 %r6, %laneid;
	mov.u32 %r7, %warpid;
	mov.u32 %r8, %lanemask_lt;
	mov.u32 %r9, %clock;
)",
                      l);
  EXPECT_EQ(t->u("%r1"), 37u);
  EXPECT_EQ(t->u("%r2"), 1u);
  EXPECT_EQ(t->u("%r3"), 64u);
  EXPECT_EQ(t->u("%r4"), 7u);
  EXPECT_EQ(t->u("%r5"), 9u);
  EXPECT_EQ(t->u("%r6"), (37u + 64u) & 31u); // linear id 101
  EXPECT_EQ(t->u("%r7"), 3u);
  EXPECT_EQ(t->u("%r8"), (1u << 5) - 1);
  EXPECT_FALSE(t->known("%r9"));
}

TEST(InterpControl, ParametersByName) {
  interp::ThreadLaunch l;
  l.params["n"] = 17;
  auto t = run_thread(R"(
	ld.param.u32 %r1, [n];
	ld.param.u64 %rd1, [p];
)",
                      l);
  EXPECT_EQ(t->u("%r1"), 17u);
  EXPECT_FALSE(t->known("%rd1")); // not given
}

// A branch on a parameter that was not given: inconclusive, naming it.
TEST(InterpControl, ABranchOnAnUnknownValueIsInconclusive) {
  auto t = run_thread(R"(
	ld.param.u32 %r1, [n];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra $L_end;
	mov.u32 %r2, 1;
$L_end:
)");
  EXPECT_EQ(t->r.stop, Stop::kInconclusive);
  EXPECT_EQ(t->r.unknown_at, t->at("@%p1 bra"));
  EXPECT_EQ(t->r.unknown_from, t->at("ld.param.u32 %r1"));
  EXPECT_NE(t->in->describe_unknown(t->r.unknown_from).find("parameter n"), std::string::npos);
}

// The shared layout: a at 0 (64 bytes), b at 64; an address names the variable it falls in.
TEST(InterpControl, SharedAddressesAndTheVariableTheyFallIn) {
  interp::ThreadLaunch l;
  l.tid = {3, 0, 0};
  auto t = run_thread(R"(
	mov.u32 %r1, b;
	mov.u32 %r2, %tid.x;
	shl.b32 %r3, %r2, 2;
	add.s32 %r4, %r1, %r3;
	ld.shared.u32 %r5, [%r4+8];
)",
                      l, {}, "ld.shared.u32");
  ASSERT_EQ(t->r.stop, Stop::kReached);
  ASSERT_TRUE(t->r.access);
  const interp::EffectiveAddress& ea = *t->r.access;
  EXPECT_TRUE(ea.known);
  EXPECT_EQ(ea.space, StateSpace::kShared);
  EXPECT_TRUE(ea.in_shared);
  EXPECT_EQ(ea.shared_offset, 64u + 12u + 8u);
  ASSERT_NE(ea.var, nullptr);
  EXPECT_EQ(ea.var->name, "b");
  EXPECT_EQ(ea.var_offset, 20);
  EXPECT_EQ(ea.width, 4u);
  EXPECT_EQ(t->r.path.back(), t->at("ld.shared.u32"));
}

// b - 4 falls in a (its last word); past b's end falls in no variable.
TEST(InterpControl, AddressesOutsideAVariable) {
  auto t = run_thread(R"(
	mov.u32 %r1, b;
	ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r1+-4];
)",
                      {}, {}, "ld.shared.v4");
  ASSERT_TRUE(t->r.access && t->r.access->known);
  EXPECT_EQ(t->r.access->var->name, "a");
  EXPECT_EQ(t->r.access->var_offset, 60);
  EXPECT_EQ(t->r.access->width, 16u);
  auto [var, off] = t->in->shared_variable_at(64 + 256);
  EXPECT_EQ(var, nullptr);
  EXPECT_EQ(off, 0);
}

// cvta.shared makes a generic address in the shared window; cvta.to.shared takes it back.
TEST(InterpControl, GenericAddressesThroughCvta) {
  auto t = run_thread(R"(
	mov.u64 %rd1, b;
	cvta.shared.u64 %rd2, %rd1;
	cvta.to.shared.u64 %rd3, %rd2;
	st.u32 [%rd2+4], %r1;
)",
                      {}, {}, "st.u32");
  ASSERT_TRUE(t->r.access && t->r.access->known);
  EXPECT_EQ(t->r.access->space, StateSpace::kNone);
  EXPECT_TRUE(t->r.access->in_shared);
  EXPECT_EQ(t->r.access->var->name, "b");
  EXPECT_EQ(t->r.access->var_offset, 4);
  EXPECT_EQ(t->u("%rd3", 64), 64u);
  EXPECT_EQ(t->u("%rd2", 64), interp::kSharedWindow + 64u);
}

// An address computed from a loaded value: inconclusive, naming the load.
TEST(InterpControl, AnAddressFromALoadIsInconclusive) {
  auto t = run_thread(R"(
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [%rd1];
	mov.u32 %r2, b;
	add.s32 %r3, %r2, %r1;
	st.shared.u32 [%r3], %r1;
)",
                      {}, {}, "st.shared.u32");
  EXPECT_EQ(t->r.stop, Stop::kInconclusive);
  EXPECT_EQ(t->r.unknown_from, t->at("ld.global.u32"));
  EXPECT_NE(t->in->describe_unknown(t->r.unknown_from).find("loaded"), std::string::npos);
}

// The k-th execution of an instruction in a loop.
TEST(InterpControl, TheKthOccurrenceOfTheTarget) {
  interp::RunOptions opt;
  opt.occurrence = 3;
  auto t = run_thread(R"(
	mov.u32 %r1, 0;
	mov.u32 %r2, a;
$L_loop:
	shl.b32 %r3, %r1, 3;
	add.s32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;
	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 10;
	@%p1 bra $L_loop;
)",
                      {}, opt, "st.shared.u32");
  ASSERT_EQ(t->r.stop, Stop::kReached);
  EXPECT_EQ(t->r.access->var_offset, 16);
}

// A guarded-off target does not count; a thread that never reaches it exits.
TEST(InterpControl, AGuardedOffTargetIsNotReached) {
  interp::ThreadLaunch l;
  l.tid = {5, 0, 0};
  auto t = run_thread(R"(
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 4;
	mov.u32 %r2, a;
	@%p1 st.shared.u32 [%r2], %r1;
)",
                      l, {}, "st.shared.u32");
  EXPECT_EQ(t->r.stop, Stop::kExited);
}

// Steering: an undecided `if (x) return;` before the access goes the way that reaches it, and
// the address (from %tid only) is known; without steering the replay is inconclusive.
TEST(InterpControl, SteeringPastAnUndecidedEarlyExit) {
  const std::string body = R"(
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [%rd1];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra $L_end;
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, b;
	add.s32 %r4, %r3, %r2;
	st.shared.u8 [%r4+300], %r2;
$L_end:
)";
  auto plain = run_thread(body, {}, {}, "st.shared.u8");
  EXPECT_EQ(plain->r.stop, Stop::kInconclusive);
  interp::RunOptions opt;
  opt.steer = true;
  auto steered = run_thread(body, {}, opt, "st.shared.u8");
  ASSERT_EQ(steered->r.stop, Stop::kReached);
  EXPECT_EQ(steered->r.steered.size(), 1u);
  EXPECT_TRUE(steered->r.access->known);
  EXPECT_EQ(steered->r.access->shared_offset, 64u + 300u);
}

// Steering out of a loop whose trip count is unknown: the counter the loop writes is unknown
// after it (another trip count gives another value), so an address from it is inconclusive,
// while one from %tid is not.
TEST(InterpControl, SteeringForgetsWhatTheUndecidedRegionWrites) {
  const std::string body = R"(
	ld.param.u32 %r1, [n];
	mov.u32 %r2, 0;
	mov.u32 %r5, %tid.x;
	mov.u32 %r6, b;
$L_loop:
	add.u32 %r2, %r2, 4;
	setp.lt.u32 %p1, %r2, %r1;
	@%p1 bra $L_loop;
	add.s32 %r3, %r6, %r2;
	add.s32 %r7, %r6, %r5;
	st.shared.u32 [%r3], %r2;
	st.shared.u32 [%r7], %r2;
)";
  interp::RunOptions opt;
  opt.steer = true;
  auto counter = run_thread(body, {}, opt, "st.shared.u32 [%r3]");
  EXPECT_EQ(counter->r.stop, Stop::kInconclusive);
  EXPECT_EQ(counter->r.unknown_from, counter->at("@%p1 bra"));
  auto tid = run_thread(body, {}, opt, "st.shared.u32 [%r7]");
  ASSERT_EQ(tid->r.stop, Stop::kReached);
  EXPECT_EQ(tid->r.access->var_offset, 0);
}

} // namespace
} // namespace ptxkit::verifier::testing
