// interp_split_test.cpp: the interpreter's support for divergence and undefined-read witnesses:
// the barrier events it logs (RunOptions::watch), a thread stopped where it can no longer reach
// the target (stop_when_missed), the registers its path wrote (RunResult::written), and the
// replays built on them (interp/replay_split.h, replay_undefined_read): a pair of threads that
// disagree on reaching a collective is confirmed, with the parameters it chose; warps that meet
// at duplicated barriers of one id are no pair; a branch on a loaded value is inconclusive and
// named.
#include "interp_test_util.h"
#include "ptxkit/verifier/interp/replay_split.h"

namespace ptxkit::verifier::testing {
namespace {

using interp::Stop;
using interp::Verdict;
using interp::Written;

// A launch whose block shape the kernel does not state (a 1-D block of any size).
interp::ThreadLaunch any_block() {
  interp::ThreadLaunch l;
  l.block_known = false;
  l.grid_known = false;
  return l;
}

TEST(InterpSplit, WatchedBarriersAreLoggedWhenTheirGuardHolds) {
  const char* body = R"(
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	bar.sync 0;
	@%p1 bar.sync 1;
	@!%p1 bar.sync 2;
)";
  auto t = run_thread(body, {}, {}, "");
  interp::RunOptions o;
  o.watch = {t->at("bar.sync 0"), t->at("@%p1 bar.sync 1"), t->at("@!%p1 bar.sync 2")};
  interp::ThreadLaunch l;
  l.tid = {3, 0, 0};
  const interp::RunResult r = t->in->run(l, o);
  EXPECT_EQ(r.stop, Stop::kExited);
  EXPECT_EQ(r.events, (std::vector<analysis::InstId>{o.watch[0], o.watch[2]}));
}

TEST(InterpSplit, AWatchedBarrierUnderAnUnknownGuardIsInconclusive) {
  const char* body = R"(
	ld.param.u32 %r1, [n];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bar.sync 0;
)";
  auto t = run_thread(body);
  interp::RunOptions o;
  o.watch = {t->at("bar.sync 0")};
  const interp::RunResult r = t->in->run({}, o);
  EXPECT_EQ(r.stop, Stop::kInconclusive);
  EXPECT_EQ(r.unknown_at, o.watch[0]);
}

const char* kSplit = R"(
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 5;
	@%p1 bra $L_skip;
	bar.sync 0;
$L_skip:
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r2, [%rd1];
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra $L_end;
	add.s32 %r3, %r3, 1;
$L_end:
)";

TEST(InterpSplit, AThreadThatCanNoLongerReachTheTargetStopsAsMissed) {
  interp::RunOptions o;
  o.stop_when_missed = true;
  interp::ThreadLaunch l;
  l.tid = {7, 0, 0};
  auto skips = run_thread(kSplit, l, o, "bar.sync 0");
  EXPECT_EQ(skips->r.stop, Stop::kMissed); // before the branch on the loaded value
  l.tid = {2, 0, 0};
  auto arrives = run_thread(kSplit, l, o, "bar.sync 0");
  EXPECT_EQ(arrives->r.stop, Stop::kReached);
}

TEST(InterpSplit, WrittenSaysWhatThePathWrote) {
  interp::RunOptions o;
  o.steer = true;
  auto t = run_thread(kSplit, {}, o, "add.s32 %r3");
  ASSERT_EQ(t->r.stop, Stop::kReached);
  const auto reg = [&](const char* n) { return t->r.written[t->an.a->ir.resolve(n, 0)]; };
  EXPECT_EQ(reg("%r1"), Written::kYes);
  EXPECT_EQ(reg("%r3"), Written::kNever); // read at the target, written nowhere before it
  const char* guarded = R"(
	ld.param.u32 %r1, [n];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mov.u32 %r2, 1;
	add.s32 %r3, %r2, 1;
)";
  auto g = run_thread(guarded, {}, o, "add.s32 %r3");
  EXPECT_EQ(g->r.written[g->an.a->ir.resolve("%r2", 0)], Written::kMaybe);
}

TEST(InterpSplit, AnUndefinedReadReplays) {
  auto t = run_thread(kSplit);
  const analysis::InstId read = t->at("add.s32 %r3");
  const analysis::RegId r3 = t->an.a->ir.resolve("%r3", 0);
  const interp::Replay r = interp::replay_undefined_read(*t->in, {}, read, r3);
  EXPECT_EQ(r.verdict, Verdict::kConfirmed) << r.why;
  EXPECT_EQ(r.run.steered.size(), 1u); // the branch on the loaded value
  const interp::Replay w =
      interp::replay_undefined_read(*t->in, {}, read, t->an.a->ir.resolve("%r1", 0));
  EXPECT_EQ(w.verdict, Verdict::kContradicted);
  EXPECT_NE(w.why.find("writes %r1 at line"), std::string::npos) << w.why;
}

TEST(InterpSplit, LanesThatDisagreeOnABarrierAreConfirmed) {
  auto t = run_thread(kSplit);
  const interp::SplitReplay r =
      interp::replay_split(*t->in, any_block(), /*cta_wide=*/false, t->at("bar.sync 0"));
  ASSERT_EQ(r.verdict, Verdict::kConfirmed) << r.why;
  EXPECT_EQ(r.arrives->launch.tid[0], 0u);
  EXPECT_EQ(r.skips->launch.tid[0], 5u);
  EXPECT_EQ(r.occurrence, 1u);
  EXPECT_TRUE(r.chosen.empty());
  EXPECT_NE(interp::arrival_text(*t->in, *r.skips, t->at("bar.sync 0"), 1)
                .find("for code that cannot reach it without executing it"),
            std::string::npos);
}

TEST(InterpSplit, AnUnstatedParameterIsChosen) {
  const char* body = R"(
	ld.param.u32 %r2, [n];
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra $L_skip;
	bar.sync 0;
$L_skip:
)";
  auto t = run_thread(body);
  const interp::SplitReplay r =
      interp::replay_split(*t->in, any_block(), false, t->at("bar.sync 0"));
  ASSERT_EQ(r.verdict, Verdict::kConfirmed) << r.why;
  ASSERT_EQ(r.chosen.size(), 1u);
  EXPECT_EQ(r.chosen[0], (std::pair<std::string, std::int64_t>{"n", 1}));
}

TEST(InterpSplit, ALoopPassMoreIsAnOccurrence) {
  // for (i = tid; i < 40; i += 32) bar.sync: lanes 0..7 pass twice, the others once.
  const char* body = R"(
	mov.u32 %r1, %tid.x;
$L_head:
	setp.ge.u32 %p1, %r1, 40;
	@%p1 bra $L_out;
	bar.sync 0;
	add.s32 %r1, %r1, 32;
	bra $L_head;
$L_out:
)";
  auto t = run_thread(body);
  const interp::SplitReplay r =
      interp::replay_split(*t->in, any_block(), false, t->at("bar.sync 0"));
  ASSERT_EQ(r.verdict, Verdict::kConfirmed) << r.why;
  EXPECT_EQ(r.occurrence, 2u);
  EXPECT_LT(r.arrives->launch.tid[0], 8u);
  EXPECT_GE(r.skips->launch.tid[0], 8u);
}

TEST(InterpSplit, ABranchOnALoadedValueIsInconclusiveAndNamed) {
  const char* body = R"(
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [p];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.u32 %r2, [%rd3];
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra $L_skip;
	bar.sync 0;
$L_skip:
)";
  auto t = run_thread(body);
  const interp::SplitReplay r =
      interp::replay_split(*t->in, any_block(), false, t->at("bar.sync 0"));
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.why.find("the value loaded at line"), std::string::npos) << r.why;
}

// A loop whose bound is loaded (the replay steers it) around a barrier that lane 0 alone executes:
// lane 1 keeps looping, so the counts decide nothing; the lanes split at the same execution of
// the branch on %tid.x, which both decide.
TEST(InterpSplit, LanesSplittingAtOneExecutionOfADecidedBranchAreConfirmed) {
  const char* body = R"(
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r2, [%rd1];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, 0;
$L_head:
	setp.ge.u32 %p1, %r3, %r2;
	@%p1 bra $L_out;
	setp.ne.u32 %p2, %r1, 0;
	@%p2 bra $L_latch;
	bar.sync 0;
$L_latch:
	add.s32 %r3, %r3, 1;
	bra $L_head;
$L_out:
)";
  auto t = run_thread(body);
  const interp::SplitReplay r =
      interp::replay_split(*t->in, any_block(), false, t->at("bar.sync 0"));
  ASSERT_EQ(r.verdict, Verdict::kConfirmed) << r.why;
  EXPECT_TRUE(r.steered);
  EXPECT_EQ(r.arrives->launch.tid[0], 0u);
  EXPECT_EQ(r.skips->launch.tid[0], 1u);
  EXPECT_NE(r.skips->split_at, analysis::kNoId);
}

// Warps split on the warp index: both sides arrive at barrier 0 once (nvcc's duplicated
// __syncthreads()): no pair, even across warps. With a second barrier on one side only
// (kExtra), warps 0 and 1 disagree by their barrier ids.
const char* kWarpSides = R"(
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra $L_first;
	bar.sync 0;
	bra $L_join;
$L_first:
	bar.sync 0; // first
$L_join:
)";
const char* kExtra = "	bar.sync 0; // first\n	bar.sync 0; // extra\n";

interp::SplitReplay split_across_warps(const std::string& body) {
  auto t = run_thread(body);
  interp::ThreadLaunch base;
  base.ntid = {64, 1, 1};
  interp::SplitOptions opt;
  for (analysis::InstId i = 0; i < t->an.a->ir.size(); ++i)
    if (t->an.a->ir.inst(i).op == isa::Opcode::kBar) opt.watch.push_back(i);
  return interp::replay_split(*t->in, base, true, t->at("// first"), opt);
}

TEST(InterpSplit, WarpsMeetingAtDuplicatedBarriersAreNoPair) {
  const interp::SplitReplay r = split_across_warps(kWarpSides);
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.why.find("no two of the threads replayed disagree"), std::string::npos) << r.why;
}

TEST(InterpSplit, WarpsArrivingAtDifferentBarrierCountsAreConfirmed) {
  std::string body = kWarpSides;
  const std::string first = "	bar.sync 0; // first\n";
  body.replace(body.find(first), first.size(), kExtra);
  const interp::SplitReplay r = split_across_warps(body);
  ASSERT_EQ(r.verdict, Verdict::kConfirmed) << r.why;
  EXPECT_TRUE(r.across_warps);
  EXPECT_LT(r.arrives->launch.tid[0], 32u);
  EXPECT_GE(r.skips->launch.tid[0], 32u);
}

} // namespace
} // namespace ptxkit::verifier::testing
