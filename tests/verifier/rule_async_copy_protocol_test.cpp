// rule_async_copy_protocol_test.cpp: rule `async-copy-protocol`. Lines ending in
// `// [[async-copy-protocol]]` must be flagged, every other line must stay quiet; each case opens
// with a comment saying what it tests. Then planted defects in CUTLASS's kernels (the foreign
// corpus): a wait or fence deleted makes the rule fire where the deleted instruction protected,
// and the original file stays quiet.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"
#include "ptx_files_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "async-copy-protocol";

TEST(AsyncCopyProtocol, MarkedLines) {
  const std::string body = R"PTX(	.reg .b32 %r<16>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<8>;
	.reg .pred %p<4>;
	.shared .align 16 .b8 buf[256];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [da];
	mov.u32 %r1, buf;
	mov.u32 %r2, bar;
	// cp.async, then a read of the same 4 bytes in the open group
	cp.async.ca.shared.global [%r1], [%rd1], 4;
	ld.shared.u32 %r3, [%r1];  // [[async-copy-protocol]]
	cp.async.commit_group;
	// another variable's bytes: disjoint, quiet
	st.shared.u32 [bar], %r3;
	// wait_group 0 covers it: quiet
	cp.async.wait_group 0;
	ld.shared.u32 %r4, [%r1];
	// a guarded wait: in flight on some paths only (warning)
	cp.async.ca.shared.global [%r1+8], [%rd1], 4;
	cp.async.commit_group;
	setp.eq.u32 %p1, %r4, 0;
	@%p1 cp.async.wait_all;
	ld.shared.u32 %r5, [%r1+8];  // [[async-copy-protocol]]
	cp.async.wait_all;
	// wgmma: the accumulator written by a mov before the wait (error), read after it (quiet);
	// the fence orders the stores above before wgmma's descriptor reads of shared memory
	fence.proxy.async.shared::cta;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd2, %rd2, 1, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	mov.f32 %f2, 0f00000000;  // [[async-copy-protocol]]
	wgmma.wait_group.sync.aligned 0;
	st.global.f32 [%rd1], %f1;
	// generic store, fence.proxy.async, bulk store: quiet; without the fence: flagged
	st.shared.u32 [%r1+32], %r5;
	fence.proxy.async.shared::cta;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1+32], 16;
	st.shared.u32 [%r1+48], %r5;
	cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1+48], 16;  // [[async-copy-protocol]]
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 0;
	ret;
)PTX";
  expect_marked_lines_flagged(kernel(".param .u64 p, .param .u64 da", body, "sm_90a"), kRule);
}

// Deleting line `line` (1-based, the wait or fence `what`) of a foreign-corpus file makes the rule
// report on line `at` with `severity`; the original file has no finding of the rule there.
struct Plant {
  const char* file;
  std::uint32_t line;
  const char* what;
  std::uint32_t at;
  Severity severity;
};

const Plant kPlants[] = {
    // wgmma.wait_group deleted: the accumulators are read before the wait (register-exact: error)
    {"cutlass.hopper_fp8_ws_gemm.sm_90a.ptx", 2455, "wgmma.wait_group", 2459, Severity::kError},
    {"cutlass.hopper_fp8_ws_gemm.sm_90a.ptx", 3159, "wgmma.wait_group", 3163, Severity::kError},
    // cp.async.wait_group deleted from the multistage prologue: the first fragment loads read
    // stages no wait covered (addresses computed per thread: a warning)
    {"cutlass.ampere_tf32_gemm.sm_80.ptx", 818, "cp.async.wait_group", 838, Severity::kWarning},
    // fence.proxy.async deleted from the epilogue: the TMA store reads what st.shared wrote
    {"cutlass.hopper_collective_builder_gemm.sm_90a.ptx", 41735, "fence.proxy.async", 41763,
     Severity::kWarning},
};

TEST(AsyncCopyProtocol, PlantedDefectsInCutlass) {
  for (const Plant& p : kPlants) {
    const std::string path = std::string(PTXKIT_FOREIGN_DIR) + "/" + p.file;
    const std::string text = read_whole_file(path);
    ASSERT_FALSE(text.empty()) << path;
    std::vector<std::string> lines = split_lines(text);
    ASSERT_GE(lines.size(), p.line);
    ASSERT_NE(lines[p.line - 1].find(p.what), std::string::npos) << p.file << ":" << p.line;
    FileReport original = verify_one(text, kRule, p.file);
    EXPECT_EQ(flagged_lines(original, kRule).count(p.at), 0u) << p.file;
    for (const Finding& f : original.findings)
      EXPECT_NE(f.severity, Severity::kError) << p.file << ":" << f.location.line;
    lines[p.line - 1] = "\t// planted: " + std::string(p.what) + " deleted";
    FileReport planted = verify_one(join_lines(lines), kRule, p.file);
    bool hit = false;
    for (const Finding& f : planted.findings)
      if (f.location.line == p.at && f.severity == p.severity) {
        hit = true;
        bool related = false;
        for (const auto& r : f.related)
          related = related || r.location.line < p.at;
        EXPECT_TRUE(related) << "the finding relates the asynchronous operation";
      }
    EXPECT_TRUE(hit) << p.file << ": deleting line " << p.line << " (" << p.what
                     << ") is not reported at line " << p.at;
  }
}

} // namespace
} // namespace ptxkit::verifier::testing
