// test_tensor_core_tile.cpp: the bf16 tile kernel (cp.async, ldmatrix, mma.sync) assembled by
// ptxas and checked by the verifier at sm_80 and sm_90, and the instructions it must contain.
#include "ptxgen_test_util.h"
#include "tensor_core_tile.h"

#include <gtest/gtest.h>
#include <string>

namespace ptxkit::ptxgen {
namespace {

TEST(TensorCoreTile, PrintsTheCopyLoadMultiplySequence) {
  Expected<Kernel> k = testing::build_bf16_tile_mma(target("sm_80"));
  ASSERT_TRUE(k) << k.error().to_string();
  std::string text = print(*k).text;
  std::size_t at = 0;
  for (const char* line :
       {"cp.async.cg.shared.global [%r", "], 16;", "cp.async.commit_group;",
        "cp.async.wait_group 0;", "bar.sync 0;", "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r",
        "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r",
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f"}) {
    std::size_t next = text.find(line, at);
    ASSERT_NE(next, std::string::npos) << "no `" << line << "` after offset " << at << ":\n"
                                       << text;
    at = next;
  }
}

TEST(TensorCoreTile, AssemblesAndVerifiesAtSm80AndSm90) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    Expected<Kernel> k = testing::build_bf16_tile_mma(target(arch));
    ASSERT_TRUE(k) << k.error().to_string();
    std::string text = print(*k).text;
    EXPECT_EQ(verifier_errors(text, std::string("bf16_tile_mma_") + arch + ".ptx"), "");
    if (!have_ptxas()) {
      GTEST_SKIP() << "SKIPPED: ptxas not found (PTXKIT_PTXAS empty): PTX for " << arch
                   << " was built but not assembled";
    }
    PtxasResult r = run_ptxas(arch, text, "bf16_tile_mma");
    EXPECT_EQ(r.status, 0) << arch << ":\n" << r.output;
    EXPECT_EQ(r.output.find("error"), std::string::npos) << r.output;
  }
}

} // namespace
} // namespace ptxkit::ptxgen
