// module_test.cpp: loading PTX through the fake driver: JIT options, logs, refusals before
// loading, and function lookup.
//
// The JIT error path must hand the driver's log over verbatim and point at the PTX line it
// names; PTX the driver or device cannot take must be refused without calling the driver.
#include "fake_driver.h"
#include "module_p.h"
#include "ptxkit/runtime/module.h"
#include "test_ptx.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace ptxkit::runtime {
namespace {

using testing::FakeDriver;

struct Loaded {
  std::shared_ptr<FakeDriver> fake = std::make_shared<FakeDriver>();
  Context ctx = *Context::open(fake);
};

TEST(ModuleLoad, PassesLogBuffersAndCodeOptionsToTheJit) {
  Loaded l;
  JitOptions jit;
  jit.optimization_level = 3;
  jit.generate_line_info = true;
  jit.max_registers = 64;
  jit.log_verbose = true;
  auto m = load_module_text(l.ctx, testing::vector_add_ptx(), "vadd.ptx",
                            {testing::vector_add_signature()}, jit);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(l.fake->loads, 1);
  const auto& o = l.fake->last_jit_options;
  auto value_of = [&](cu::JitOption opt) -> std::optional<std::uintptr_t> {
    auto it = std::find(o.begin(), o.end(), opt);
    if (it == o.end()) return std::nullopt;
    return l.fake->last_jit_values[static_cast<std::size_t>(it - o.begin())];
  };
  EXPECT_TRUE(value_of(cu::JitOption::kInfoLogBuffer));
  EXPECT_TRUE(value_of(cu::JitOption::kErrorLogBuffer));
  EXPECT_EQ(value_of(cu::JitOption::kErrorLogBufferSizeBytes), jit.log_bytes);
  EXPECT_EQ(value_of(cu::JitOption::kInfoLogBufferSizeBytes), jit.log_bytes);
  EXPECT_EQ(value_of(cu::JitOption::kLogVerbose), 1u);
  EXPECT_EQ(value_of(cu::JitOption::kOptimizationLevel), 3u);
  EXPECT_EQ(value_of(cu::JitOption::kGenerateLineInfo), 1u);
  EXPECT_EQ(value_of(cu::JitOption::kMaxRegisters), 64u);
  EXPECT_FALSE(value_of(cu::JitOption::kGenerateDebugInfo));
  EXPECT_EQ(m->header().target.str(), "sm_90");
  EXPECT_EQ(jit.fingerprint(), "O3,lineinfo=1,debug=0,maxreg=64");
}

TEST(ModuleLoad, JitFailureCarriesTheLogVerbatimAndThePtxLine) {
  Loaded l;
  std::string ptx = testing::vector_add_ptx();
  ptx.replace(ptx.find("  add.f32 %f3"), 0, "  // FAKE-JIT-ERROR: Unknown symbol 'bogus'\n");
  auto m = load_module_text(l.ctx, ptx, "vadd.ptx", {testing::vector_add_signature()}, {});
  ASSERT_FALSE(m);
  const Error& e = m.error();
  EXPECT_EQ(e.kind, ErrorKind::kJit);
  EXPECT_EQ(e.cu_name, "CUDA_ERROR_INVALID_PTX");
  EXPECT_EQ(e.jit_log, "ptxas application ptx input, line 32; error   : Unknown symbol 'bogus'\n"
                       "ptxas fatal   : Ptx assembly aborted due to errors\n");
  ASSERT_TRUE(e.ptx_line);
  EXPECT_EQ(*e.ptx_line, 32);
  EXPECT_EQ(e.message, "JIT compilation of vadd.ptx failed: cuModuleLoadDataEx failed: "
                       "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)\n" +
                           e.jit_log +
                           "PTX line 32:   // FAKE-JIT-ERROR: Unknown symbol 'bogus'\n");
}

TEST(ModuleLoad, RefusesBeforeLoadingWhatTheDriverOrDeviceCannotTake) {
  Loaded l;
  auto newer = load_module_text(l.ctx, testing::vector_add_ptx("9.1"), "k.ptx", {}, {});
  ASSERT_FALSE(newer);
  EXPECT_EQ(newer.error().kind, ErrorKind::kDriverTooOld);
  EXPECT_NE(newer.error().message.find("needs a CUDA 13.1 or newer driver"), std::string::npos)
      << newer.error().message;
  auto blackwell =
      load_module_text(l.ctx, testing::vector_add_ptx("8.8", "sm_100a"), "k.ptx", {}, {});
  ASSERT_FALSE(blackwell);
  EXPECT_EQ(blackwell.error().kind, ErrorKind::kDeviceUnsupported);
  EXPECT_NE(blackwell.error().message.find("this device (Fake H200) is compute capability 9.0"),
            std::string::npos)
      << blackwell.error().message;
  auto headless = load_module_text(l.ctx, ".entry x() { ret; }", "k.ptx", {}, {});
  ASSERT_FALSE(headless);
  EXPECT_EQ(headless.error().message, "k.ptx: the PTX has no .version directive");
  EXPECT_EQ(l.fake->loads, 0); // none of them reached the driver
}

TEST(ModuleLoad, FunctionsCarrySignatureAndLimitsAndUnknownEntriesAreErrors) {
  Loaded l;
  l.fake->function_attributes[cu::FunctionAttribute::kNumRegs] = 40;
  l.fake->function_attributes[cu::FunctionAttribute::kMaxThreadsPerBlock] = 768;
  l.fake->function_attributes[cu::FunctionAttribute::kSharedSizeBytes] = 1024;
  auto m = load_module_text(l.ctx, testing::vector_add_ptx(), "vadd.ptx",
                            {testing::vector_add_signature()}, {});
  ASSERT_TRUE(m);
  auto f = m->function("vadd");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->signature().params.size(), 4u);
  EXPECT_EQ(f->limits().num_registers, 40u);
  EXPECT_EQ(f->limits().max_threads_per_block, 768u);
  EXPECT_EQ(f->limits().static_smem_bytes, 1024u);
  auto missing = m->function("vmul");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kBadArgument);
  EXPECT_EQ(missing.error().message, "vadd.ptx has no .entry vmul (entries: vadd)");
}

TEST(ModuleLoad, ModulesUnloadWhenTheLastHolderGoes) {
  Loaded l;
  std::optional<Function> f;
  {
    auto m = load_module_text(l.ctx, testing::vector_add_ptx(), "vadd.ptx",
                              {testing::vector_add_signature()}, {});
    ASSERT_TRUE(m);
    auto fn = m->function("vadd");
    ASSERT_TRUE(fn);
    f.emplace(std::move(*fn));
  }
  EXPECT_EQ(l.fake->unloads, 0); // the function keeps its module
  f.reset();
  EXPECT_EQ(l.fake->unloads, 1);
}

TEST(JitLog, FindsTheLineItNames) {
  EXPECT_EQ(ptx_line_named_by("ptxas application ptx input, line 57; error   : x"), 57);
  EXPECT_EQ(ptx_line_named_by("ptxas fatal   : Unresolved extern function 'f'"), std::nullopt);
  EXPECT_EQ(ptx_line_named_by("warning: inline\nptxas application ptx input, line 3; error"), 3);
  EXPECT_EQ(ptx_line_named_by("pipeline 4"), std::nullopt);
}

} // namespace
} // namespace ptxkit::runtime
