// verified_load_test.cpp: the public load path end to end: verify_for_load -> KernelCache ->
// Module -> Function, with signatures from the real parser and the fake driver underneath.
//
// The launch checks are only as good as the signatures they compare against, so these tests
// derive them from PTX text through the verifier's parser (.param sizes, arrays with .align,
// .reqntid/.maxntid) and prove the checks fire on them.
#include "fake_driver.h"
#include "ptxkit/runtime/kernel_cache.h"
#include "ptxkit/runtime/module.h"
#include "ptxkit/verifier/verified_ptx.h"
#include "test_ptx.h"

#include <gtest/gtest.h>

namespace ptxkit::runtime {
namespace {

using testing::FakeDriver;

verifier::VerifiedPtx verified(std::string ptx, std::string name) {
  auto v = verifier::verify_for_load(std::move(ptx), std::move(name));
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  return std::move(v).value();
}

// Array and vector params, .reqntid; the kernel body only reads the params.
constexpr const char* kReqntidPtx = R"(.version 8.7
.target sm_90
.address_size 64

.visible .entry shaped(
  .param .u64 .ptr .global .align 16 shaped_out,
  .param .align 8 .b8 shaped_cfg[24],
  .param .f32 shaped_eps,
  .param .u16 shaped_small
)
.reqntid 128, 2, 1
{
  .reg .b64 %rd<3>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [shaped_out];
  ld.param.f32 %f1, [shaped_eps];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.f32 [%rd2], %f1;
  ret;
}
)";

TEST(VerifiedLoad, SignaturesComeFromTheParsedEntry) {
  auto fake = std::make_shared<FakeDriver>();
  auto ctx = Context::open(fake);
  ASSERT_TRUE(ctx);
  const auto ptx = verified(kReqntidPtx, "shaped.ptx");
  auto m = Module::load(*ctx, ptx);
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_EQ(m->entries().size(), 1u);
  const KernelSignature& s = m->entries()[0];
  EXPECT_EQ(s.name, "shaped");
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_EQ(s.params[0].size, 8u);
  EXPECT_EQ(s.params[1].size, 24u);
  EXPECT_EQ(s.params[1].align, 8u);
  EXPECT_EQ(s.params[1].type, ".b8[24]");
  EXPECT_EQ(s.params[2].size, 4u);
  EXPECT_EQ(s.params[3].size, 2u);
  ASSERT_TRUE(s.reqntid);
  EXPECT_EQ(*s.reqntid, (Dim3{128, 2, 1}));
  EXPECT_FALSE(s.maxntid);

  auto fn = m->function("shaped");
  ASSERT_TRUE(fn);
  auto stream = Stream::create(*ctx);
  auto out = DeviceBuffer<float>::allocate(*ctx, 1);
  ASSERT_TRUE(stream && out);
  struct Cfg {
    std::uint64_t a, b, c;
  } cfg{1, 2, 3};
  const std::uint16_t small = 7;
  ASSERT_TRUE(fn->launch(*stream, {{1, 1, 1}, {128, 2, 1}, 0}, *out, cfg, 1e-6f, small));
  auto wrong_block = fn->launch(*stream, {{1, 1, 1}, {256, 1, 1}, 0}, *out, cfg, 1e-6f, small);
  ASSERT_FALSE(wrong_block);
  EXPECT_EQ(wrong_block.error().message,
            "launch of shaped: block (256,1,1) does not match .reqntid 128,2,1");
  auto wrong_cfg = fn->launch(*stream, {{1, 1, 1}, {128, 2, 1}, 0}, *out, 1.0, 1e-6f, small);
  ASSERT_FALSE(wrong_cfg);
  EXPECT_EQ(wrong_cfg.error().message,
            "launch of shaped: argument 1 is 8 bytes, but .param .b8[24] shaped_cfg is 24 bytes");
  EXPECT_EQ(fake->launches, 1);
}

TEST(VerifiedLoad, CacheLoadsVerifiedPtxOncePerKey) {
  auto fake = std::make_shared<FakeDriver>();
  auto ctx = Context::open(fake);
  ASSERT_TRUE(ctx);
  KernelCache cache(*ctx);
  const auto ptx = verified(testing::vector_add_ptx(), "vadd.ptx");
  auto a = cache.get(ptx, "vadd/v1");
  auto b = cache.get(ptx, "vadd/v1");
  ASSERT_TRUE(a && b) << (a ? "" : a.error().message);
  EXPECT_EQ(fake->loads, 1);
  EXPECT_EQ(&a->ptx(), &b->ptx());
  EXPECT_EQ(a->ptx(), ptx.text()); // what is loaded is exactly what was verified
  auto fn = a->function("vadd");
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->signature().params.size(), 4u);
  ASSERT_TRUE(fn->signature().maxntid);
  EXPECT_EQ(*fn->signature().maxntid, (Dim3{256, 1, 1}));
}

TEST(VerifiedLoad, RefusedPtxNeverBecomesLoadable) {
  // %r5 is read but nothing writes it: verify_for_load refuses, so there is nothing to load.
  std::string bad = testing::vector_add_ptx();
  bad.replace(bad.find("  mov.u32 %r5, %tid.x;\n"), 23, "");
  auto v = verifier::verify_for_load(bad, "bad.ptx");
  ASSERT_FALSE(v.ok());
  ASSERT_EQ(v.error().diagnostics.size(), 1u);
  EXPECT_NE(v.error().diagnostics[0].find("%r5 is read but nothing writes it"), std::string::npos)
      << v.error().diagnostics[0];
}

} // namespace
} // namespace ptxkit::runtime
