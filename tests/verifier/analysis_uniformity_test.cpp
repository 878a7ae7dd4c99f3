// analysis_uniformity_test.cpp: lane uniformity, divergent and uniform cases side by side
// (in the manner of MLIR's test-uniformity-analysis): special registers, loads by state space,
// shuffles (idx from a uniform lane, down, a full butterfly reduction), control dependence at
// joins, and temporal divergence out of a loop with a lane-varying exit.
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

std::string uk(const std::string& body) {
  return kernel(".param .u64 p", "\t.reg .pred %p<8>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<10>;\n"
                                 "\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n" +
                                     body);
}

struct U {
  Analyzed t;
  std::string text;
  bool def_uniform(const std::string& needle, std::uint32_t element = 0) const {
    const auto& a = *t.a;
    return a.uniformity.is_uniform(
        a.values.defined_value(inst_at(a, line_of(text, needle)), 0, element));
  }
};

U run(const std::string& body) {
  U u{analyze(uk(body)), uk(body)};
  return u;
}

TEST(AnalysisUniformity, SpecialRegistersParamsAndArithmetic) {
  U u = run("\tmov.u32 %r1, %tid.x;\n"
            "\tmov.u32 %r2, %ctaid.x;\n"
            "\tadd.u32 %r3, %r2, 1;\n"
            "\tadd.u32 %r4, %r1, %r2;\n"
            "\tmov.u32 %r5, %laneid;\n"
            "\tmov.u32 %r6, %ntid.x;\n"
            "\tcvt.u64.u32 %rd2, %r3;\n"
            "\tret;\n");
  EXPECT_TRUE(u.def_uniform("ld.param.u64 %rd1"));
  EXPECT_FALSE(u.def_uniform("%tid.x"));
  EXPECT_TRUE(u.def_uniform("%ctaid.x"));
  EXPECT_TRUE(u.def_uniform("add.u32 %r3"));
  EXPECT_FALSE(u.def_uniform("add.u32 %r4"));
  EXPECT_FALSE(u.def_uniform("%laneid"));
  EXPECT_TRUE(u.def_uniform("%ntid.x"));
  EXPECT_TRUE(u.def_uniform("cvt.u64.u32"));
}

TEST(AnalysisUniformity, LoadsByStateSpace) {
  // The function writes global memory, so plain global loads of a uniform address are varying;
  // `.nc` and `.const` loads are not.
  U u = run("\tld.global.nc.f32 %f1, [%rd1];\n"
            "\tld.global.f32 %f2, [%rd1];\n"
            "\tld.const.f32 %f3, [%rd1];\n"
            "\tmov.u32 %r1, %tid.x;\n"
            "\tmul.wide.u32 %rd2, %r1, 4;\n"
            "\tadd.s64 %rd3, %rd1, %rd2;\n"
            "\tld.global.nc.f32 %f4, [%rd3];\n"
            "\tld.local.f32 %f5, [%rd1];\n"
            "\tatom.global.add.u32 %r2, [%rd1], 1;\n"
            "\tst.global.f32 [%rd1], %f1;\n"
            "\tret;\n");
  EXPECT_TRUE(u.def_uniform("ld.global.nc.f32 %f1"));
  EXPECT_FALSE(u.def_uniform("ld.global.f32 %f2"));
  EXPECT_TRUE(u.def_uniform("ld.const.f32"));
  EXPECT_FALSE(u.def_uniform("ld.global.nc.f32 %f4"));
  EXPECT_FALSE(u.def_uniform("ld.local"));
  EXPECT_FALSE(u.def_uniform("atom.global"));
}

TEST(AnalysisUniformity, SharedLoadWithoutStoresIsUniform) {
  U u = run("\tld.shared.f32 %f1, [%rd1];\n\tret;\n");
  EXPECT_TRUE(u.def_uniform("ld.shared"));
}

TEST(AnalysisUniformity, ShufflesAndButterflyReduction) {
  U u = run("\tmov.u32 %r1, %tid.x;\n"
            "\tshfl.sync.down.b32 %r2, %r1, 16, 31, -1;\n"
            "\tshfl.sync.idx.b32 %r3, %r1, 0, 31, -1;\n"
            "\tshfl.sync.idx.b32 %r4, %r1, %r1, 31, -1;\n"
            "\tshfl.sync.bfly.b32 %r10, %r1, 16, 31, -1;\n"
            "\tadd.u32 %r11, %r1, %r10;\n"
            "\tshfl.sync.bfly.b32 %r12, %r11, 8, 31, -1;\n"
            "\tadd.u32 %r13, %r11, %r12;\n"
            "\tshfl.sync.bfly.b32 %r14, %r13, 4, 31, -1;\n"
            "\tadd.u32 %r15, %r13, %r14;\n"
            "\tshfl.sync.bfly.b32 %r16, %r15, 2, 31, -1;\n"
            "\tadd.u32 %r17, %r15, %r16;\n"
            "\tshfl.sync.bfly.b32 %r18, %r17, 1, 31, -1;\n"
            "\tadd.u32 %r19, %r17, %r18;\n"
            "\tshfl.sync.down.b32 %r20, %r19, 1, 31, -1;\n"
            "\tadd.u32 %r21, %r1, %r20;\n"
            "\tvote.sync.ballot.b32 %r22, %p1, -1;\n"
            "\tredux.sync.add.u32 %r23, %r1, -1;\n"
            "\tret;\n");
  EXPECT_FALSE(u.def_uniform("shfl.sync.down.b32 %r2"));
  EXPECT_TRUE(u.def_uniform("shfl.sync.idx.b32 %r3"));
  EXPECT_FALSE(u.def_uniform("shfl.sync.idx.b32 %r4"));
  EXPECT_FALSE(u.def_uniform("add.u32 %r17")); // four of five butterfly steps
  EXPECT_TRUE(u.def_uniform("add.u32 %r19"));  // complete: every lane holds the sum
  EXPECT_FALSE(u.def_uniform("add.u32 %r21"));
  EXPECT_TRUE(u.def_uniform("vote.sync"));
  EXPECT_TRUE(u.def_uniform("redux.sync"));
}

TEST(AnalysisUniformity, MergeAfterDivergentBranchIsVaryingAfterUniformBranchIsNot) {
  const std::string body = "\tmov.u32 %r1, %tid.x;\n"
                           "\tmov.u32 %r2, %ctaid.x;\n"
                           "\tmov.u32 %r3, 0;\n"
                           "\tsetp.lt.u32 %p1, %r1, 16;\n"
                           "\t@%p1 bra $L_a;\n"
                           "\tmov.u32 %r3, 1;\n"
                           "$L_a:\n"
                           "\tadd.u32 %r4, %r3, 1;\n"
                           "\tmov.u32 %r5, 0;\n"
                           "\tsetp.lt.u32 %p2, %r2, 16;\n"
                           "\t@%p2 bra $L_b;\n"
                           "\tmov.u32 %r5, 1;\n"
                           "$L_b:\n"
                           "\tadd.u32 %r6, %r5, 1;\n"
                           "\tret;\n";
  U u = run(body);
  const auto& a = *u.t.a;
  EXPECT_FALSE(u.def_uniform("add.u32 %r4"));
  EXPECT_TRUE(u.def_uniform("add.u32 %r6"));
  BlockId then_a = a.cfg.block_of(inst_at(a, line_of(u.text, "mov.u32 %r3, 1")));
  BlockId join_a = a.cfg.block_of(inst_at(a, line_of(u.text, "add.u32 %r4")));
  BlockId then_b = a.cfg.block_of(inst_at(a, line_of(u.text, "mov.u32 %r5, 1")));
  EXPECT_TRUE(a.uniformity.divergent_terminator(a.cfg.entry()));
  EXPECT_TRUE(a.uniformity.partial_warp(then_a));
  EXPECT_FALSE(a.uniformity.partial_warp(join_a));
  EXPECT_FALSE(a.uniformity.divergent_terminator(join_a));
  EXPECT_FALSE(a.uniformity.partial_warp(then_b));
  EXPECT_FALSE(a.uniformity.after_divergent_exit(then_b));
}

TEST(AnalysisUniformity, LaneVaryingExitAndTemporalDivergence) {
  const std::string body = "\tmov.u32 %r1, %tid.x;\n"
                           "\tmov.u32 %r2, 0;\n"
                           "$L_loop:\n"
                           "\tadd.u32 %r2, %r2, 1;\n"
                           "\tsetp.lt.u32 %p1, %r2, %r1;\n"
                           "\t@%p1 bra $L_loop;\n"
                           "\tst.global.u32 [%rd1], %r2;\n"
                           "\tsetp.eq.u32 %p2, %r1, 0;\n"
                           "\t@%p2 exit;\n"
                           "\tst.global.u32 [%rd1+4], %r1;\n"
                           "\tret;\n";
  U u = run(body);
  const auto& a = *u.t.a;
  InstId add = inst_at(a, line_of(u.text, "add.u32 %r2"));
  InstId st = inst_at(a, line_of(u.text, "st.global.u32 [%rd1], %r2"));
  EXPECT_TRUE(a.uniformity.is_uniform(a.values.defined_value(add))); // same in every iteration
  EXPECT_FALSE(a.uniformity.operand_uniform(st, 1)); // lanes left at different trips
  EXPECT_TRUE(a.uniformity.operand_uniform(st, 0));
  EXPECT_TRUE(a.uniformity.loop_divergent(0));
  InstId last = inst_at(a, line_of(u.text, "[%rd1+4]"));
  EXPECT_TRUE(a.uniformity.after_divergent_exit(a.cfg.block_of(last)));
  EXPECT_FALSE(a.uniformity.after_divergent_exit(a.cfg.block_of(st)));
}

} // namespace
} // namespace ptxkit::verifier::testing

namespace ptxkit::verifier::testing {
namespace {

TEST(AnalysisUniformity, CallReturnValuesAreVaryingKernelParametersAreNot) {
  const std::string text = R"PTX(.version 8.0
.target sm_90
.address_size 64

.extern .func (.param .b32 ret) f
(
	.param .b32 a
)
;

.visible .entry k(.param .u32 n)
{
	.reg .b32 %r<4>;
	ld.param.u32 %r1, [n];
	{
	.param .b32 param0;
	st.param.b32 [param0], %r1;
	.param .b32 retval0;
	call.uni (retval0), f, (param0);
	ld.param.b32 %r2, [retval0];
	}
	add.u32 %r3, %r2, %r1;
	ret;
}
)PTX";
  Analyzed t = analyze(text);
  const auto& a = *t.a;
  auto uniform = [&](const char* needle) {
    return a.uniformity.is_uniform(a.values.defined_value(inst_at(a, line_of(text, needle))));
  };
  EXPECT_TRUE(uniform("ld.param.u32 %r1, [n]"));
  EXPECT_FALSE(uniform("ld.param.b32 %r2, [retval0]"));
  EXPECT_FALSE(uniform("add.u32 %r3"));
}

} // namespace
} // namespace ptxkit::verifier::testing

namespace ptxkit::verifier::testing {
namespace {

TEST(AnalysisUniformity, SidesOfADivergentBranchThatNeverReconvergeAreAfterExit) {
  const std::string body = "\tmov.u32 %r1, %tid.x;\n"
                           "\tsetp.eq.u32 %p1, %r1, 0;\n"
                           "\t@%p1 bra $L_lane0;\n"
                           "\tst.global.u32 [%rd1+4], %r1;\n"
                           "\tret;\n"
                           "$L_lane0:\n"
                           "\tst.global.u32 [%rd1], %r1;\n"
                           "\tret;\n";
  U u = run(body);
  const auto& a = *u.t.a;
  BlockId lane0 = a.cfg.block_of(inst_at(a, line_of(u.text, "st.global.u32 [%rd1], %r1")));
  BlockId others = a.cfg.block_of(inst_at(a, line_of(u.text, "[%rd1+4]")));
  EXPECT_TRUE(a.uniformity.after_divergent_exit(lane0));
  EXPECT_TRUE(a.uniformity.after_divergent_exit(others));
  EXPECT_TRUE(a.uniformity.partial_warp(lane0));
  EXPECT_FALSE(a.uniformity.after_divergent_exit(a.cfg.entry()));
}

} // namespace
} // namespace ptxkit::verifier::testing

namespace ptxkit::verifier::testing {
namespace {

TEST(AnalysisUniformity, GlobalLoadIsUniformWhenNoWriteReachesItsPointerParameter) {
  // CUB's segmented reduce reads its segment offsets at %ctaid and writes only the output.
  const std::string text =
      kernel(".param .u64 offsets, .param .u64 out", "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<12>;\n"
                                                     "\tld.param.u64 %rd1, [offsets];\n"
                                                     "\tld.param.u64 %rd2, [out];\n"
                                                     "\tcvta.to.global.u64 %rd3, %rd1;\n"
                                                     "\tmov.u32 %r1, %ctaid.x;\n"
                                                     "\tmul.wide.u32 %rd4, %r1, 4;\n"
                                                     "\tadd.s64 %rd5, %rd3, %rd4;\n"
                                                     "\tld.global.u32 %r2, [%rd5];\n"
                                                     "\tcvta.to.global.u64 %rd6, %rd2;\n"
                                                     "\tadd.s64 %rd7, %rd6, %rd4;\n"
                                                     "\tld.global.u32 %r3, [%rd7];\n"
                                                     "\tst.global.u32 [%rd7], %r2;\n"
                                                     "\tld.u32 %r4, [%rd5];\n"
                                                     "\tret;\n");
  Analyzed t = analyze(text);
  const auto& a = *t.a;
  auto uniform = [&](const char* needle) {
    return a.uniformity.is_uniform(a.values.defined_value(inst_at(a, line_of(text, needle))));
  };
  EXPECT_TRUE(uniform("ld.global.u32 %r2"));  // offsets: never written
  EXPECT_FALSE(uniform("ld.global.u32 %r3")); // out: written by this kernel
  EXPECT_TRUE(uniform("ld.u32 %r4"));         // generic, traced to offsets
}

TEST(AnalysisUniformity, AnUntraceableWriteMakesGlobalLoadsVarying) {
  const std::string text =
      kernel(".param .u64 offsets", "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<12>;\n"
                                    "\tld.param.u64 %rd1, [offsets];\n"
                                    "\tld.global.u32 %r2, [%rd1];\n"
                                    "\tld.global.u64 %rd2, [%rd1+8];\n"
                                    "\tst.global.u32 [%rd2], %r2;\n"
                                    "\tret;\n");
  Analyzed t = analyze(text);
  const auto& a = *t.a;
  EXPECT_FALSE(a.uniformity.is_uniform(
      a.values.defined_value(inst_at(a, line_of(text, "ld.global.u32 %r2")))));
}

} // namespace
} // namespace ptxkit::verifier::testing

namespace ptxkit::verifier::testing {
namespace {

TEST(AnalysisUniformity, SharedBroadcastAfterBarrierIsUniform) {
  // CUB's onesweep: thread 0 takes a tile id with an atomic, stores it to shared memory, and
  // after the barrier every thread reads it.
  const std::string body = "\t.shared .align 4 .b8 s[16];\n"
                           "\tmov.u32 %r1, %tid.x;\n"
                           "\tsetp.ne.u32 %p1, %r1, 0;\n"
                           "\t@%p1 bra $L_wait;\n"
                           "\tatom.global.add.u32 %r2, [%rd1], 1;\n"
                           "\tst.shared.u32 [s], %r2;\n"
                           "$L_wait:\n"
                           "\tbar.sync 0;\n"
                           "\tld.shared.u32 %r3, [s];\n"
                           "\tst.shared.u32 [s+4], %r1;\n"
                           "\tld.shared.u32 %r4, [s];\n"
                           "\tret;\n";
  U u = run(body);
  EXPECT_TRUE(u.def_uniform("ld.shared.u32 %r3"));
  EXPECT_FALSE(u.def_uniform("ld.shared.u32 %r4")); // a shared write since the barrier
  EXPECT_FALSE(u.def_uniform("atom.global"));
}

} // namespace
} // namespace ptxkit::verifier::testing

namespace ptxkit::verifier::testing {
namespace {

TEST(AnalysisUniformity, WarpLevelFunctionsOfTidXAreUniform) {
  const std::string body = "\tmov.u32 %r1, %tid.x;\n"
                           "\tshr.u32 %r2, %r1, 5;\n"
                           "\tshr.u32 %r3, %r1, 4;\n"
                           "\tand.b32 %r4, %r1, -32;\n"
                           "\tand.b32 %r5, %r1, 31;\n"
                           "\tsetp.gt.u32 %p1, %r1, 31;\n"
                           "\tsetp.lt.u32 %p2, %r1, 64;\n"
                           "\tsetp.lt.u32 %p3, %r1, 16;\n"
                           "\tsetp.eq.u32 %p4, %r5, 0;\n"
                           "\tret;\n";
  U u = run(body);
  EXPECT_TRUE(u.def_uniform("shr.u32 %r2"));
  EXPECT_FALSE(u.def_uniform("shr.u32 %r3"));
  EXPECT_TRUE(u.def_uniform("and.b32 %r4"));
  EXPECT_FALSE(u.def_uniform("and.b32 %r5"));
  EXPECT_TRUE(u.def_uniform("setp.gt.u32 %p1"));
  EXPECT_TRUE(u.def_uniform("setp.lt.u32 %p2"));
  EXPECT_FALSE(u.def_uniform("setp.lt.u32 %p3"));
  EXPECT_FALSE(u.def_uniform("setp.eq.u32 %p4"));
  // A 2-D block whose rows are 48 threads wide puts two rows in one warp: no longer uniform.
  std::string wide = uk(body);
  wide.replace(wide.find("\n{"), 2, "\n.reqntid 48, 4, 1\n{");
  Analyzed t = analyze(wide);
  EXPECT_FALSE(t.a->uniformity.is_uniform(
      t.a->values.defined_value(inst_at(*t.a, line_of(wide, "shr.u32 %r2")))));
}

} // namespace
} // namespace ptxkit::verifier::testing

namespace ptxkit::verifier::testing {
namespace {

TEST(AnalysisUniformity, BlockScopeTreatsWarpLevelResultsAsVarying) {
  const std::string body = "\t.shared .align 4 .b8 s[16];\n"
                           "\tmov.u32 %r1, %tid.x;\n"
                           "\tsetp.lt.u32 %p1, %r1, 32;\n"
                           "\tvote.sync.ballot.b32 %r2, %p1, -1;\n"
                           "\tmov.u32 %r3, %warpid;\n"
                           "\tmov.u32 %r4, %ctaid.x;\n"
                           "\tbar.red.popc.u32 %r5, 0, %p1;\n"
                           "\tst.shared.u32 [s], %r1;\n"
                           "\tbar.sync 0;\n"
                           "\tld.shared.u32 %r6, [s];\n"
                           "\t@%p1 bra $L_w0;\n"
                           "\tadd.u32 %r7, %r4, 1;\n"
                           "$L_w0:\n"
                           "\tret;\n";
  U u = run(body);
  const auto& a = *u.t.a;
  auto block_uniform = [&](const char* needle) {
    return a.block_uniformity.is_uniform(
        a.values.defined_value(inst_at(a, line_of(u.text, needle))));
  };
  EXPECT_EQ(a.block_uniformity.scope(), UniformityScope::kBlock);
  EXPECT_TRUE(u.def_uniform("setp.lt.u32 %p1")); // warp-uniform: only warp 0
  EXPECT_FALSE(block_uniform("setp.lt.u32 %p1"));
  EXPECT_TRUE(u.def_uniform("vote.sync"));
  EXPECT_FALSE(block_uniform("vote.sync"));
  EXPECT_TRUE(u.def_uniform("%warpid"));
  EXPECT_FALSE(block_uniform("%warpid"));
  EXPECT_TRUE(block_uniform("%ctaid.x"));
  EXPECT_TRUE(block_uniform("bar.red"));
  EXPECT_TRUE(block_uniform("ld.shared.u32 %r6"));
  BlockId then_block = a.cfg.block_of(inst_at(a, line_of(u.text, "add.u32 %r7")));
  EXPECT_FALSE(a.uniformity.partial_warp(then_block));
  EXPECT_TRUE(a.block_uniformity.partial_warp(then_block));
}

} // namespace
} // namespace ptxkit::verifier::testing
