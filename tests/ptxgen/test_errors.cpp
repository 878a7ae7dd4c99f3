// test_errors.cpp: build-time errors reported by KernelBuilder::finish(): labels used but never
// placed or placed twice, names, target features, guards. Each error case sits beside the
// control that must build cleanly.
#include "ptxgen_test_util.h"
#include "ptxkit/ptxgen/ptxgen.h"

#include <array>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ptxkit::ptxgen {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Errors, LabelUsedButNeverPlaced) {
  KernelBuilder b("k", target("sm_90"));
  Label loop = b.new_label("loop");
  const unsigned line = __LINE__ + 1;
  b.bra(loop);
  b.ret();
  Expected<Kernel> k = b.finish();
  ASSERT_FALSE(k);
  EXPECT_TRUE(contains(k.error().message, "label 'loop' is used")) << k.error().message;
  EXPECT_TRUE(contains(k.error().message, "never placed"));
  EXPECT_TRUE(
      contains(k.error().message, std::string("test_errors.cpp:").append(std::to_string(line))));
  EXPECT_EQ(k.error().line, line);
}

TEST(Errors, LabelPlacedTwice) {
  KernelBuilder b("k", target("sm_90"));
  Label again = b.new_label("again");
  const unsigned first = __LINE__ + 1;
  b.place(again);
  b.bra(again);
  const unsigned second = __LINE__ + 1;
  b.place(again);
  Expected<Kernel> k = b.finish();
  ASSERT_FALSE(k);
  const std::string& m = k.error().message;
  EXPECT_TRUE(contains(m, "label 'again' is placed twice")) << m;
  EXPECT_TRUE(contains(m, std::string("test_errors.cpp:").append(std::to_string(first))));
  EXPECT_TRUE(contains(m, std::string("test_errors.cpp:").append(std::to_string(second))));
}

TEST(Errors, PlacedOnceAndUsedIsFine) {
  KernelBuilder b("k", target("sm_90"));
  Label top = b.new_label("loop");
  Label unused = b.new_label("unused"); // placed, never branched to: harmless
  b.place(top);
  b.place(unused);
  b.bra_if(!b.setp(cmp::eq, b.tid_x(), b.imm<U32>(0)), top);
  b.ret();
  EXPECT_TRUE(b.finish());
}

TEST(Errors, SameLabelNameTwiceGetsDistinctPtxNames) {
  KernelBuilder b("k", target("sm_90"));
  Label a = b.new_label("body");
  Label c = b.new_label("body");
  b.place(a);
  b.place(c);
  b.bra(a);
  b.bra(c);
  b.ret();
  Expected<Kernel> k = b.finish();
  ASSERT_TRUE(k);
  std::string text = print(*k).text;
  EXPECT_TRUE(contains(text, "$L__body:\n$L__body_1:\n")) << text;
}

TEST(Errors, BadAndDuplicateNames) {
  {
    KernelBuilder b("k", target("sm_90"));
    (void)b.param<U32>("n");
    (void)b.param<U32>("n");
    b.ret();
    Expected<Kernel> k = b.finish();
    ASSERT_FALSE(k);
    EXPECT_TRUE(contains(k.error().message, "duplicate parameter name 'n'"));
  }
  {
    KernelBuilder b("k", target("sm_90"));
    (void)b.shared_array<F32>("has space", 4);
    b.ret();
    Expected<Kernel> k = b.finish();
    ASSERT_FALSE(k);
    EXPECT_TRUE(contains(k.error().message, "invalid array name 'has space'"));
  }
  {
    KernelBuilder b("1bad", target("sm_90"));
    b.ret();
    EXPECT_FALSE(b.finish());
  }
}

TEST(Errors, FeatureNeedsNewerTarget) {
  // add.bf16 needs sm_90: an error on sm_80, fine on sm_90.
  for (const char* t : {"sm_80", "sm_90"}) {
    KernelBuilder b("k", target(t));
    Reg<BF16> h = b.cvt<BF16>(b.param<F32>("x"), rn);
    const unsigned line = __LINE__ + 1;
    Reg<BF16> s = b.add(h, h);
    (void)s;
    b.ret();
    Expected<Kernel> k = b.finish();
    if (std::string(t) == "sm_80") {
      ASSERT_FALSE(k);
      EXPECT_TRUE(contains(k.error().message, "needs sm_90")) << k.error().message;
      EXPECT_EQ(k.error().line, line);
    } else {
      EXPECT_TRUE(k);
    }
  }
}

TEST(Errors, Bf16ConversionsBySm) {
  // f32 <-> bf16 exist on sm_80 (PTX 7.8+); bf16 <-> integers only from sm_90.
  KernelBuilder ok("k", target("sm_80"));
  Reg<BF16> h = ok.cvt<BF16>(ok.param<F32>("x"), rn);
  (void)ok.cvt<F32>(h);
  ok.ret();
  EXPECT_TRUE(ok.finish());
  KernelBuilder bad("k", target("sm_80"));
  Reg<BF16> h2 = bad.cvt<BF16>(bad.param<F32>("x"), rn);
  (void)bad.cvt<S32>(h2, rzi);
  bad.ret();
  Expected<Kernel> k = bad.finish();
  ASSERT_FALSE(k);
  EXPECT_TRUE(contains(k.error().message, "needs sm_90")) << k.error().message;
}

TEST(Errors, BulkCopyAndTransactionBarrierNeedSm90) {
  // cp.async.bulk, mbarrier.arrive.expect_tx, mbarrier.try_wait and fence.proxy.async are sm_90
  // forms of instructions sm_80 has (cp, mbarrier, fence): each is an error at its own line on
  // sm_80, and the same kernel builds on sm_90. mbarrier.init is fine on both.
  for (const char* t : {"sm_80", "sm_90"}) {
    KernelBuilder b("k", target(t));
    auto src = b.param<Ptr<Global, const F32>>("src");
    Ptr<Shared, F32> dst = b.shared_array<F32>("dst", 64, 16);
    Ptr<Shared, B64> bar = b.shared_array<B64>("bar", 1, 8);
    b.mbarrier_init(bar, b.imm<U32>(1));
    const unsigned first = __LINE__ + 1;
    b.fence_proxy_async_shared();
    b.mbarrier_arrive_expect_tx(bar, b.imm<U32>(256), sink);
    b.cp_async_bulk(dst, src, b.imm<U32>(256), bar);
    (void)b.mbarrier_try_wait_parity(bar, b.imm<U32>(0));
    b.ret();
    Expected<Kernel> k = b.finish();
    if (std::string(t) == "sm_90") {
      EXPECT_TRUE(k) << k.error().to_string();
      continue;
    }
    ASSERT_FALSE(k);
    const std::vector<Error>& errors = b.errors();
    ASSERT_EQ(errors.size(), 4u);
    const char* forms[] = {"fence.proxy.async", "mbarrier.arrive.expect_tx", "cp.async.bulk",
                           "mbarrier.try_wait"};
    for (unsigned i = 0; i < 4; ++i) {
      EXPECT_TRUE(contains(errors[i].message, std::string(forms[i]) + " needs sm_90"))
          << errors[i].message;
      EXPECT_EQ(errors[i].line, first + i);
    }
  }
}

TEST(Errors, AsyncCopiesAndMmaBuildOnSm80) {
  // cp.async, ldmatrix, mma.sync m16n8k16 (f16, bf16), m16n8k32 (s8) and the sm_80 mbarrier
  // operations: no error on the oldest supported target.
  KernelBuilder b("k", target("sm_80"));
  auto src = b.param<Ptr<Global, const F16>>("src");
  Ptr<Shared, F16> tile = b.shared_array<F16>("tile", 256, 16);
  Ptr<Shared, BF16> btile = b.shared_array<BF16>("btile", 256, 16);
  Ptr<Shared, B64> bar = b.shared_array<B64>("bar", 1, 8);
  b.cp_async<16>(tile, src, cache::cg);
  b.cp_async_wait_all();
  auto a = b.ldmatrix<4>(tile);
  auto bf = b.ldmatrix_trans<2>(tile);
  Reg<F32> z = b.mov(b.imm<F32>(0.0f));
  (void)b.mma_m16n8k16(a, bf, {z, z, z, z});
  (void)b.mma_m16n8k16(b.ldmatrix<4>(btile), b.ldmatrix<2>(btile), {z, z, z, z});
  Reg<S32> zi = b.mov(b.imm<S32>(0));
  std::array<Reg<S32>, 4> ia = {zi, zi, zi, zi};
  (void)b.mma_m16n8k32(ia, std::array<Reg<S32>, 2>{zi, zi}, ia);
  b.mbarrier_init(bar, b.imm<U32>(32));
  b.mbarrier_arrive(bar, sink);
  (void)b.mbarrier_test_wait_parity(bar, b.imm<U32>(0));
  b.ret();
  Expected<Kernel> k = b.finish();
  EXPECT_TRUE(k) << k.error().to_string();
}

TEST(Errors, BulkCopySizeIsAMultipleOf16) {
  KernelBuilder b("k", target("sm_90"));
  auto src = b.param<Ptr<Global, const F32>>("src");
  Ptr<Shared, F32> dst = b.shared_array<F32>("dst", 64, 16);
  Ptr<Shared, B64> bar = b.shared_array<B64>("bar", 1, 8);
  const unsigned line = __LINE__ + 1;
  b.cp_async_bulk(dst, src, b.imm<U32>(100), bar);
  b.ret();
  Expected<Kernel> k = b.finish();
  ASSERT_FALSE(k);
  EXPECT_TRUE(contains(k.error().message, "positive multiple of 16 bytes (size 100)"))
      << k.error().message;
  EXPECT_EQ(k.error().line, line);
}

TEST(Errors, NestedGuardsAreRejected) {
  KernelBuilder b("k", target("sm_90"));
  Reg<Pred> p = b.setp(cmp::eq, b.tid_x(), b.imm<U32>(0));
  Label l = b.new_label("l");
  {
    auto g = b.guard(p);
    b.bra_if(p, l); // a second guard inside the first
  }
  b.place(l);
  b.ret();
  Expected<Kernel> k = b.finish();
  ASSERT_FALSE(k);
  EXPECT_TRUE(contains(k.error().message, "nested guard"));
}

TEST(Errors, ErrorToStringHasLocation) {
  Error e{"boom", "a/b.cpp", 7, 9};
  EXPECT_EQ(e.to_string(), "a/b.cpp:7:9: boom");
  EXPECT_EQ((Error{"plain", "", 0, 0}.to_string()), "plain");
}

} // namespace
} // namespace ptxkit::ptxgen
