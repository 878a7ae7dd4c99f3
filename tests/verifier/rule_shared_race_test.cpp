// rule_shared_race_test.cpp: marked-line cases of `shared-race` (lines marked `// [[shared-race]]`
// must be flagged, no other line may be): the positive and negative controls of each thing the
// rule models — warp syncs between lanes, atomics, 2-D blocks under .reqntid, block-stride loops,
// and the block shape given by VerifyOptions::block_dim (`ptxkit verify --block-dim`).
#include "analysis_test_util.h"

#include <array>
#include <gtest/gtest.h>
#include <optional>

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "shared-race";

std::string entry(const std::string& directives, const std::string& body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 out)" +
         directives + "\n{\n" + body + "}\n";
}

// Each thread stores its own element of `buf` (tid.x words), then reads another one.
const std::string kOwnStore = R"(	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .f32 %f<4>;
	.shared .align 4 .b8 buf[1024];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 31;
	shl.b32 %r3, %r1, 2;
	mov.u32 %r4, buf;
	add.u32 %r5, %r4, %r3;
	cvt.rn.f32.u32 %f1, %r1;
	st.shared.f32 [%r5], %f1;
	setp.ne.u32 %p1, %r2, 0;
)";

TEST(SharedRace, WarpSyncOrdersLanesOfOneWarp) {
  // The previous lane's element, after a full-mask bar.warp.sync: ordered.
  expect_marked_lines_flagged(entry(" .reqntid 64", kOwnStore + R"(	bar.warp.sync -1;
	@%p1 ld.shared.f32 %f2, [%r5+-4];
	ret;
)"),
                              kRule);
  // Without the warp sync the lanes are not ordered (no lock-step under the PTX memory model).
  expect_marked_lines_flagged(
      entry(" .reqntid 64", kOwnStore + R"(	@%p1 ld.shared.f32 %f2, [%r5+-4]; // [[shared-race]]
	ret;
)"),
      kRule);
  // A warp sync does not order threads of different warps: the element 32 threads on.
  expect_marked_lines_flagged(entry(" .reqntid 64", kOwnStore + R"(	bar.warp.sync -1;
	setp.lt.u32 %p2, %r1, 32;
	@%p2 ld.shared.f32 %f2, [%r5+128]; // [[shared-race]]
	ret;
)"),
                              kRule);
}

TEST(SharedRace, AtomicsDoNotRaceWithAtomics) {
  const std::string counter = R"(	.reg .b32 %r<8>;
	.shared .align 4 .b8 cnt[4];
	mov.u32 %r1, cnt;
	atom.shared.add.u32 %r2, [%r1], 1;
	red.shared.add.u32 [%r1], 2;
)";
  expect_marked_lines_flagged(entry(" .reqntid 128", counter + "\tbar.sync 0;\n"
                                                               "\tld.shared.u32 %r3, [%r1];\n"
                                                               "\tret;\n"),
                              kRule);
  // A plain read of the counter in the same interval races with the other threads' atomics.
  expect_marked_lines_flagged(
      entry(" .reqntid 128", counter + "\tld.shared.u32 %r3, [%r1]; // [[shared-race]]\n"
                                       "\tret;\n"),
      kRule);
}

// A 16x16 tile indexed [tid.y][tid.x]; the transposed read [tid.x][tid.y] needs a barrier.
std::string tile_kernel(const std::string& directives, bool barrier) {
  return entry(directives, std::string(R"(	.reg .b32 %r<16>;
	.reg .f32 %f<4>;
	.shared .align 4 .b8 tile[1024];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	shl.b32 %r3, %r2, 4;
	add.u32 %r4, %r3, %r1;
	shl.b32 %r5, %r4, 2;
	mov.u32 %r6, tile;
	add.u32 %r7, %r6, %r5;
	cvt.rn.f32.u32 %f1, %r4;
	st.shared.f32 [%r7], %f1;
	ld.shared.f32 %f2, [%r7];
	shl.b32 %r8, %r1, 4;
	add.u32 %r9, %r8, %r2;
	shl.b32 %r10, %r9, 2;
	add.u32 %r11, %r6, %r10;
)") +
                               (barrier ? "\tbar.sync 0;\n\tld.shared.f32 %f3, [%r11];\n"
                                        : "\tld.shared.f32 %f3, [%r11]; // [[shared-race]]\n") +
                               "\tret;\n");
}

TEST(SharedRace, TwoDimensionalBlocksUnderReqntid) {
  expect_marked_lines_flagged(tile_kernel(" .reqntid 16, 16, 1", true), kRule);
  expect_marked_lines_flagged(tile_kernel(" .reqntid 16, 16, 1", false), kRule);
  FileReport r = verify_one(tile_kernel(" .reqntid 16, 16, 1", false), kRule);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].severity, Severity::kError) << r.findings[0].message;
}

TEST(SharedRace, BlockDimOptionIsReqntid) {
  // Without a declared shape the transposed read is a warning (a block of 17 x 1 threads
  // collides differently than one of 16 x 16); --block-dim 16,16 makes it the error .reqntid
  // gives, at the same line; the declared shape wins over the option.
  const std::string text = tile_kernel("", false);
  auto run = [&](std::optional<std::array<std::uint32_t, 3>> dims, const std::string& t) {
    Module m = parse_or_fail(t);
    VerifyOptions o;
    o.rules = {kRule};
    o.read_source_lines = false;
    o.block_dim = dims;
    return verify_module(m, o);
  };
  FileReport none = run(std::nullopt, text);
  ASSERT_FALSE(none.findings.empty());
  EXPECT_EQ(none.error_count(), 0u);
  FileReport shaped = run(std::array<std::uint32_t, 3>{16, 16, 1}, text);
  EXPECT_EQ(flagged_lines(shaped, kRule), marked_lines(text, kRule));
  EXPECT_EQ(shaped.error_count(), 1u);
  // Blocks of 1 x 16: tid.x is 0, thread y reads word y, which only thread 0 (y = 0) writes.
  EXPECT_EQ(run(std::array<std::uint32_t, 3>{1, 16, 1}, text).findings.size(), 0u);
  const std::string declared = tile_kernel(" .reqntid 1, 16, 1", false);
  EXPECT_EQ(run(std::array<std::uint32_t, 3>{16, 16, 1}, declared).findings.size(), 0u);
  EXPECT_TRUE(block_dim_problem({16, 16, 1}).empty());
  EXPECT_FALSE(block_dim_problem({2048, 1, 1}).empty());
  EXPECT_FALSE(block_dim_problem({64, 64, 1}).empty());
  EXPECT_FALSE(block_dim_problem({1, 1, 0}).empty());
}

// nvcc -O3's `for (i = threadIdx.x; i < n; i += blockDim.x) a[i] = f(a[i + k]);`.
std::string stride_kernel(int k, const std::string& mark) {
  return ".version 8.0\n.target sm_80\n.address_size 64\n\n"
         ".visible .entry s(.param .u64 s_param_0, .param .u32 s_param_1)\n{\n" +
         std::string(R"(	.reg .pred %p<3>;
	.reg .f32 %f<3>;
	.reg .b32 %r<7>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd2, [s_param_0];
	ld.param.u32 %r5, [s_param_1];
	mov.u32 %r6, %tid.x;
	setp.ge.s32 %p1, %r6, %r5;
	@%p1 bra $L__BB0_3;
	mov.u32 %r2, %ntid.x;
	cvta.to.global.u64 %rd1, %rd2;
$L__BB0_2:
	mul.wide.s32 %rd3, %r6, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.f32 %f1, [%rd4+)") +
         std::to_string(4 * k) + "];\n\tadd.f32 %f2, %f1, %f1;\n\tst.global.f32 [%rd4], %f2;" +
         mark + R"(
	add.s32 %r6, %r6, %r2;
	setp.lt.s32 %p2, %r6, %r5;
	@%p2 bra $L__BB0_2;
$L__BB0_3:
	ret;
}
)";
}

TEST(SharedRace, BlockStrideLoops) {
  // Each thread's indices are tid.x + j * ntid.x: no two threads (or iterations) share one.
  expect_marked_lines_flagged(stride_kernel(0, ""), kRule);
  // Reading the next element: thread t + 1 writes what thread t reads.
  expect_marked_lines_flagged(stride_kernel(1, " // [[shared-race]]"), kRule);
}

} // namespace
} // namespace ptxkit::verifier::testing
