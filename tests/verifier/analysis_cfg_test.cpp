// analysis_cfg_test.cpp: FunctionIR flattening and scoping, CFG edges (branches, guarded
// branches, brx.idx tables, ret/exit), dominators, post-dominators and natural loops.
//
// Why: every rule's facts are facts about these graphs; a wrong edge is a wrong verdict.
#include "analysis_test_util.h"

#include <sstream>

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

// B0: entry, B1: loop (self back edge), B2: test, B3: then, B4: ret.
const char* kLoop = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, 0;
$L_loop:
	add.s32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, %r1;
	@%p1 bra $L_loop;
	setp.eq.u32 %p2, %r2, 7;
	@%p2 bra $L_end;
	add.s32 %r3, %r2, 2;
$L_end:
	ret;
}
)PTX";

TEST(AnalysisCfg, BlocksAndEdgesFromLabelsAndGuardedBranches) {
  Analyzed t = analyze(kLoop);
  const Cfg& cfg = t.a->cfg;
  std::ostringstream os;
  cfg.print(os);
  EXPECT_EQ(os.str(), "B0 [0,2) -> B1\n"
                      "B1 [2,5) -> B1 B2\n"
                      "B2 [5,7) -> B4 B3\n"
                      "B3 [7,8) -> B4\n"
                      "B4 [8,9) -> exit\n");
  EXPECT_EQ(cfg.rpo().front(), 0u);
  EXPECT_EQ(cfg.block_of(inst_at(*t.a, 17)), 3u);
}

TEST(AnalysisCfg, DominatorsPostDominatorsAndLoops) {
  Analyzed t = analyze(kLoop);
  const auto& a = *t.a;
  EXPECT_EQ(a.dom.idom(1), 0u);
  EXPECT_EQ(a.dom.idom(2), 1u);
  EXPECT_EQ(a.dom.idom(3), 2u);
  EXPECT_EQ(a.dom.idom(4), 2u);
  EXPECT_TRUE(a.dom.dominates(1, 3));
  EXPECT_FALSE(a.dom.dominates(3, 4));
  EXPECT_EQ(a.pdom.idom(3), 4u);
  EXPECT_EQ(a.pdom.idom(2), 4u);
  EXPECT_EQ(a.pdom.idom(0), 1u);
  EXPECT_EQ(a.pdom.idom(4), a.cfg.size()); // the virtual exit
  ASSERT_EQ(a.loops.size(), 1u);
  EXPECT_EQ(a.loops.loop(0).header, 1u);
  EXPECT_EQ(a.loops.loop(0).blocks, std::vector<BlockId>{1});
  EXPECT_TRUE(a.loops.is_back_edge(1, 1));
  EXPECT_EQ(a.loops.loop_of(2), kNoId);
  // Dominance frontier of the loop body includes its own header.
  const auto& df = a.dom.frontier(1);
  EXPECT_NE(std::find(df.begin(), df.end(), 1u), df.end());
}

TEST(AnalysisCfg, IndirectBranchUsesItsTargetTable) {
  Analyzed t = analyze(R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k()
{
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
ts: .branchtargets $L_a, $L_b;
	brx.idx %r2, ts;
$L_a:
	ret;
$L_b:
	exit;
}
)PTX");
  const Cfg& cfg = t.a->cfg;
  ASSERT_EQ(cfg.size(), 3u);
  EXPECT_EQ(cfg.block(0).succs, (std::vector<BlockId>{1, 2}));
  EXPECT_TRUE(cfg.block(1).exits);
  EXPECT_TRUE(cfg.block(2).exits);
  EXPECT_EQ(t.a->ir.unresolved_targets(), 0u);
}

TEST(AnalysisCfg, GuardedExitFallsThroughAndNestedScopesShadowRegisters) {
  const std::string text = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k()
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	mov.u32 %r1, 1;
	{
	.reg .b32 %r<4>;
	mov.u32 %r1, 2;
	}
	setp.eq.u32 %p1, %r1, 1;
	@%p1 exit;
	add.u32 %r2, %r1, 1;
	ret;
}
)PTX";
  Analyzed t = analyze(text);
  const auto& a = *t.a;
  // Ids for %p<2> and both %r<4>, each up to the largest index the function names (%r2: 3).
  EXPECT_EQ(a.ir.num_regs(), 2u + 3u + 3u);
  // The outer %r1 read by setp is the first mov's, not the inner scope's.
  EXPECT_EQ(a.values.defining_instruction(a.values.value_of(inst_at(a, 14), 1)), inst_at(a, 9));
  ASSERT_EQ(a.cfg.size(), 2u);
  EXPECT_TRUE(a.cfg.block(0).exits);
  EXPECT_EQ(a.cfg.block(0).succs, std::vector<BlockId>{1});
}

TEST(AnalysisCfg, LabelAtEndOfBodyLeadsToExitAndUnreachableBlocksAreKept) {
  Analyzed t = analyze(R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k()
{
	.reg .b32 %r<3>;
	bra.uni $L_end;
	mov.u32 %r1, 1;
$L_end:
}
)PTX");
  const Cfg& cfg = t.a->cfg;
  ASSERT_EQ(cfg.size(), 2u);
  EXPECT_TRUE(cfg.block(0).exits);
  EXPECT_FALSE(cfg.reachable(1));
}

} // namespace
} // namespace ptxkit::verifier::testing
