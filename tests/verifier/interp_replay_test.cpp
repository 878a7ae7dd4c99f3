// interp_replay_test.cpp: the replay verdicts a rule acts on (interp/replay.h): a witness thread
// whose access falls outside the variable is confirmed; one whose access is inside, or that never
// gets there, is contradicted; one whose address reads a value the interpreter does not know is
// inconclusive and names it. Also the launch a kernel states, and the path shown with a witness.
#include "interp_test_util.h"
#include "ptxkit/verifier/interp/replay.h"

namespace ptxkit::verifier::testing {
namespace {

using interp::Verdict;

// s[tid + 1] over 64 floats (b is 256 bytes at offset 64 of the layout); thread 63 is outside.
const char* kBody = R"(
	mov.u32 %r1, %tid.x;
	setp.gt.u32 %p1, %r1, 100;
	@%p1 bra $L_end;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, b;
	add.s32 %r4, %r3, %r2;
	ld.shared.u32 %r5, [%r4+4];
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r6, [%rd1];
	add.s32 %r7, %r3, %r6;
	st.shared.u32 [%r7], %r5;
$L_end:
)";

struct Fixture {
  std::unique_ptr<Ran> t = run_thread(kBody);
  const VarDecl& b() const {
    for (const Statement& s : t->an.a->ir.function().body.statements)
      if (const auto* v = std::get_if<VarDecl>(&s.node); v && v->name == "b") return *v;
    ADD_FAILURE() << "no b";
    static const VarDecl none;
    return none;
  }
  interp::Replay replay(std::uint32_t tid, const std::string& needle) const {
    interp::ThreadLaunch l;
    l.tid = {tid, 0, 0};
    return interp::replay_shared_out_of_bounds(*t->in, l, t->at(needle), b());
  }
};

TEST(InterpReplay, AnAccessOutsideIsConfirmed) {
  Fixture f;
  const interp::Replay r = f.replay(63, "ld.shared.u32");
  EXPECT_EQ(r.verdict, Verdict::kConfirmed);
  EXPECT_EQ(interp::offset_into(*f.t->in, *r.run.access, f.b()), 256);
}

TEST(InterpReplay, AnAccessInsideContradictsTheWitness) {
  Fixture f;
  const interp::Replay r = f.replay(62, "ld.shared.u32");
  EXPECT_EQ(r.verdict, Verdict::kContradicted);
  EXPECT_NE(r.why.find("bytes 252..255 of b, inside it"), std::string::npos) << r.why;
}

TEST(InterpReplay, AThreadThatNeverGetsThereContradictsTheWitness) {
  Fixture f;
  const interp::Replay r = f.replay(101, "ld.shared.u32");
  EXPECT_EQ(r.verdict, Verdict::kContradicted);
  EXPECT_NE(r.why.find("exits"), std::string::npos) << r.why;
}

TEST(InterpReplay, AnAddressFromALoadIsInconclusiveAndNamed) {
  Fixture f;
  const interp::Replay r = f.replay(0, "st.shared.u32");
  EXPECT_EQ(r.verdict, Verdict::kInconclusive);
  EXPECT_NE(r.why.find("its address depends on the value loaded at line"), std::string::npos)
      << r.why;
}

// The path: each instruction at its first execution, ending at the access, the last `max`.
TEST(InterpReplay, WitnessPath) {
  interp::RunResult run;
  run.path = {0, 1, 2, 1, 2, 1, 2, 3};
  EXPECT_EQ(interp::witness_path(run), (std::vector<interp::InstId>{0, 1, 2, 3}));
  EXPECT_EQ(interp::witness_path(run, 2), (std::vector<interp::InstId>{2, 3}));
  run.path = {0, 1, 0, 1};
  EXPECT_EQ(interp::witness_path(run), (std::vector<interp::InstId>{0, 1}));
}

// Without .reqntid or a contract the block shape is unknown to the replay.
TEST(InterpReplay, TheStatedLaunch) {
  auto t = run_thread(kBody);
  const Function& fn = t->an.a->ir.function();
  interp::ThreadLaunch l = interp::stated_launch(fn, nullptr, {3, 0, 0}, {0, 0, 0});
  EXPECT_FALSE(l.block_known);
  EXPECT_FALSE(l.grid_known);
  KernelContract c;
  c.block = std::array<std::uint32_t, 3>{128, 1, 1};
  c.grid = std::array<std::uint32_t, 3>{4, 1, 1};
  c.scalars.push_back({"n", 9});
  l = interp::stated_launch(fn, &c, {3, 0, 0}, {1, 0, 0});
  EXPECT_TRUE(l.block_known && l.grid_known);
  EXPECT_EQ(l.ntid[0], 128u);
  EXPECT_EQ(l.params.at("n"), 9);
}

} // namespace
} // namespace ptxkit::verifier::testing
