// rule_reduction_broadcast_test.cpp: rule `reduction-broadcast` (the lane-0-only reduction
// result). Lines ending in `// [[reduction-broadcast]]` must be flagged and every other line must
// stay quiet; each case opens with a comment saying what it tests. Then nvcc's output for the same
// shapes, CUB's WarpReduce included (tests/verifier/inputs/reduction_nvcc_warp.*).
#include "analysis_planted_util.h"
#include "analysis_test_util.h"

#include <map>

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "reduction-broadcast";

// A kernel: %f1 = x[tid], %r1 = %laneid, %r2 = %tid.x, %rd2 = &x[tid]; then `body`.
std::string warp_kernel(const std::string& name, const std::string& body) {
  return ".visible .entry " + name +
         "(.param .u64 p)\n{\n"
         "\t.reg .pred %p<8>;\n\t.reg .b32 %r<16>;\n\t.reg .f32 %f<32>;\n\t.reg .b64 %rd<4>;\n"
         "\t.shared .align 4 .f32 total;\n"
         "\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %laneid;\n\tmov.u32 %r2, %tid.x;\n"
         "\tmul.wide.u32 %rd3, %r2, 4;\n\tadd.s64 %rd2, %rd1, %rd3;\n"
         "\tld.global.f32 %f1, [%rd2];\n" +
         body + "\tret;\n}\n";
}

// x += shfl.down(x, 16) ... x += shfl.down(x, 1): the sum is in %f11, complete in lane 0 only.
const std::string kDownTree =
    "\tshfl.sync.down.b32 %f2, %f1, 16, 31, -1;\n\tadd.f32 %f3, %f1, %f2;\n"
    "\tshfl.sync.down.b32 %f4, %f3, 8, 31, -1;\n\tadd.f32 %f5, %f3, %f4;\n"
    "\tshfl.sync.down.b32 %f6, %f5, 4, 31, -1;\n\tadd.f32 %f7, %f5, %f6;\n"
    "\tshfl.sync.down.b32 %f8, %f7, 2, 31, -1;\n\tadd.f32 %f9, %f7, %f8;\n"
    "\tshfl.sync.down.b32 %f10, %f9, 1, 31, -1;\n\tadd.f32 %f11, %f9, %f10;\n";

std::string cases() {
  return ".version 8.0\n.target sm_90\n.address_size 64\n\n" +
         // The lane-0-only sum normalises every lane's element (the division is the first use).
         warp_kernel("no_broadcast",
                     kDownTree + "\tdiv.rn.f32 %f12, %f1, %f11;  // [[reduction-broadcast]]\n"
                                 "\tst.global.f32 [%rd2], %f12;\n") +
         // The fix (near miss): shfl.sync.idx from lane 0 first.
         warp_kernel("idx_broadcast", kDownTree + "\tshfl.sync.idx.b32 %f12, %f11, 0, 31, -1;\n"
                                                  "\tdiv.rn.f32 %f13, %f1, %f12;\n"
                                                  "\tst.global.f32 [%rd2], %f13;\n") +
         // Stores guarded to lane 0 (near miss), by predicate and by branch; a guard that lets
         // lanes 0, 8, 16, 24 through is not enough for a 32-lane tree.
         warp_kernel("lane_guards",
                     kDownTree +
                         "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 st.global.f32 [%rd1], %f11;\n"
                         "\tand.b32 %r3, %r2, 31;\n\tsetp.ne.s32 %p2, %r3, 0;\n"
                         "\t@%p2 bra $L_skip;\n\tst.global.f32 [%rd1+4], %f11;\n"
                         "$L_skip:\n\tand.b32 %r4, %r2, 7;\n\tsetp.eq.u32 %p3, %r4, 0;\n"
                         "\t@%p3 st.global.f32 [%rd1+8], %f11;  // [[reduction-broadcast]]\n") +
         // Shared-memory broadcast (near miss): lane 0 writes, bar.sync, every lane reads.
         warp_kernel("shared_broadcast",
                     kDownTree + "\tsetp.lt.u32 %p1, %r2, 1;\n\t@%p1 st.shared.f32 [total], %f11;\n"
                                 "\tbar.sync 0;\n\tld.shared.f32 %f12, [total];\n"
                                 "\tdiv.rn.f32 %f13, %f1, %f12;\n\tst.global.f32 [%rd2], %f13;\n") +
         // A butterfly reduction is complete in every lane (near miss).
         warp_kernel("butterfly",
                     "\tshfl.sync.bfly.b32 %f2, %f1, 16, 31, -1;\n\tadd.f32 %f3, %f1, %f2;\n"
                     "\tshfl.sync.bfly.b32 %f4, %f3, 8, 31, -1;\n\tadd.f32 %f5, %f3, %f4;\n"
                     "\tshfl.sync.bfly.b32 %f6, %f5, 4, 31, -1;\n\tadd.f32 %f7, %f5, %f6;\n"
                     "\tshfl.sync.bfly.b32 %f8, %f7, 2, 31, -1;\n\tadd.f32 %f9, %f7, %f8;\n"
                     "\tshfl.sync.bfly.b32 %f10, %f9, 1, 31, -1;\n\tadd.f32 %f11, %f9, %f10;\n"
                     "\tdiv.rn.f32 %f12, %f1, %f11;\n\tst.global.f32 [%rd2], %f12;\n") +
         // CUB's step `shfl.down r|p; @p add r, r, x` (offsets 1..16, in registers): every lane
         // adds its partial sum to the total.
         warp_kernel(
             "cub_steps_atomic",
             "\tmov.u32 %r5, 1;\n\tmov.u32 %r6, 31;\n\tmov.u32 %r7, -1;\n"
             "\tshfl.sync.down.b32 %f2|%p1, %f1, %r5, %r6, %r7;\n"
             "\t@%p1 add.f32 %f2, %f2, %f1;\n"
             "\tshfl.sync.down.b32 %f3|%p2, %f2, 2, %r6, %r7;\n\t@%p2 add.f32 %f3, %f3, %f2;\n"
             "\tshfl.sync.down.b32 %f4|%p3, %f3, 4, %r6, %r7;\n\t@%p3 add.f32 %f4, %f4, %f3;\n"
             "\tshfl.sync.down.b32 %f5|%p4, %f4, 8, %r6, %r7;\n\t@%p4 add.f32 %f5, %f5, %f4;\n"
             "\tshfl.sync.down.b32 %f6|%p5, %f5, 16, %r6, %r7;\n\t@%p5 add.f32 %f6, %f6, %f5;\n"
             "\tmov.f32 %f7, %f6;\n"
             "\tred.global.add.f32 [%rd1], %f7;  // [[reduction-broadcast]]\n") +
         // An inclusive scan with shfl.up (offsets 1, 2, 4, ...) is valid in every lane.
         warp_kernel("up_scan",
                     "\tshfl.sync.up.b32 %f2|%p1, %f1, 1, 0, -1;\n\t@%p1 add.f32 %f1, %f1, %f2;\n"
                     "\tshfl.sync.up.b32 %f3|%p2, %f1, 2, 0, -1;\n\t@%p2 add.f32 %f1, %f1, %f3;\n"
                     "\tshfl.sync.up.b32 %f4|%p3, %f1, 4, 0, -1;\n\t@%p3 add.f32 %f1, %f1, %f4;\n"
                     "\tst.global.f32 [%rd2], %f1;\n") +
         // 8-lane segments (c = 0x181f): lane 0 of each segment owns its sum (near miss), and
         // feeding a per-lane accumulator through a loop without a broadcast is a finding.
         warp_kernel("segments_and_loop",
                     "\tshfl.sync.down.b32 %f2, %f1, 4, 6175, -1;\n\tadd.f32 %f3, %f1, %f2;\n"
                     "\tshfl.sync.down.b32 %f4, %f3, 2, 6175, -1;\n\tadd.f32 %f5, %f3, %f4;\n"
                     "\tshfl.sync.down.b32 %f6, %f5, 1, 6175, -1;\n\tadd.f32 %f7, %f5, %f6;\n"
                     "\trem.u32 %r3, %r1, 8;\n\tsetp.eq.u32 %p1, %r3, 0;\n"
                     "\t@%p1 st.global.f32 [%rd1], %f7;\n"
                     "\tmov.f32 %f20, 0f00000000;\n\tmov.u32 %r4, 0;\n$L_acc:\n" +
                         kDownTree +
                         "\tfma.rn.f32 %f20, %f11, %f1, %f20;  // [[reduction-broadcast]]\n"
                         "\tadd.u32 %r4, %r4, 1;\n\tsetp.lt.u32 %p2, %r4, 4;\n\t@%p2 bra $L_acc;\n"
                         "\tst.global.f32 [%rd2], %f20;\n") +
         // A spill to the thread's own stack is no use in another lane (near miss).
         warp_kernel("local_spill", "\t.local .align 4 .b8 depot[4];\n" + kDownTree +
                                        "\tst.local.f32 [depot], %f11;\n");
}

TEST(RuleReductionBroadcast, MarkedLinesAreFlaggedAndOnlyThose) {
  expect_marked_lines_flagged(cases(), kRule);
}

TEST(RuleReductionBroadcast, SitesAndRelatedLocations) {
  const std::string text = cases();
  FileReport r = verify_one(text, kRule);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kFail);
  // Down trees: kDownTree in 6 kernels, the CUB steps, the segmented tree; 1 butterfly; the
  // up scan is no tree.
  EXPECT_EQ(r.rules[0].sites, 9u);
  std::uint32_t div = line_of(text, "div.rn.f32 %f12, %f1, %f11;");
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [&](const Finding& f) { return f.location.line == div; });
  ASSERT_NE(it, r.findings.end());
  EXPECT_EQ(it->kernel, "no_broadcast");
  ASSERT_EQ(it->related.size(), 2u);
  EXPECT_EQ(it->related[0].instruction, "add.f32 %f11, %f9, %f10;");
  EXPECT_EQ(it->related[1].instruction, "st.global.f32 [%rd2], %f12;");
  EXPECT_NE(it->message.find("lane 0"), std::string::npos) << it->message;
}

TEST(RuleReductionBroadcast, NoShuffleIsNotApplicable) {
  FileReport r = verify_one(".version 8.0\n.target sm_90\n.address_size 64\n" +
                                warp_kernel("plain", "\tst.global.f32 [%rd2], %f1;\n"),
                            kRule);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kNotApplicable);
  EXPECT_EQ(r.rules[0].sites, 0u);
}

// nvcc -O3 (CUB's WarpReduce included): findings only in the *_bad kernels, at least one each.
TEST(RuleReductionBroadcast, NvccKernels) {
  const std::string path = "tests/verifier/inputs/reduction_nvcc_warp.sm_90.ptx";
  const std::string text = read_source_file(path);
  ASSERT_FALSE(text.empty());
  FileReport r = verify_one(text, kRule, path);
  std::map<std::string, int> per_kernel;
  for (const Finding& f : r.findings)
    ++per_kernel[f.kernel];
  std::set<std::string> bad;
  for (const auto& [k, n] : per_kernel) {
    EXPECT_NE(k.find("_bad"), std::string::npos) << k << ": " << n << " findings";
    bad.insert(k);
  }
  EXPECT_EQ(bad.size(), 3u); // every_lane_bad, atomic_every_lane_bad, accumulator_bad
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_GE(r.rules[0].sites, 8u);
  // every_lane_bad: the division by the sum is the first use in every lane.
  for (const Finding& f : r.findings) {
    if (f.kernel.find("every_lane_bad") != std::string::npos &&
        f.kernel.find("atomic") == std::string::npos) {
      EXPECT_EQ(f.instruction.rfind("div.rn.f32", 0), 0u) << f.instruction;
    }
  }
}

} // namespace
} // namespace ptxkit::verifier::testing
