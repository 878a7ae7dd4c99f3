// test_immediates.cpp: immediates print as exact bits (0f/0d for floats, 0x for b/f16 types,
// decimal for integers) and baked values keep their config field and shortest text.
#include "ptxkit/ptxgen/ptxgen.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <sstream>
#include <string>

namespace ptxkit::ptxgen {
namespace {

std::string printed(void (*body)(KernelBuilder&)) {
  KernelBuilder b("k", Target::parse("sm_90").value());
  body(b);
  b.ret();
  return print(b.finish().value()).text;
}

TEST(Immediates, ExactBits) {
  EXPECT_EQ(imm<F32>(1.0f).bits(), 0x3F800000u);
  EXPECT_EQ(imm<F32>(-0.0f).bits(), 0x80000000u);
  EXPECT_EQ(imm<F64>(1.0).bits(), 0x3FF0000000000000ull);
  EXPECT_EQ(imm<S32>(-1).bits(), 0xFFFFFFFFull);
  EXPECT_EQ(imm<S16>(-2).bits(), 0xFFFEull);
  EXPECT_EQ(imm<U64>(1ull << 40).bits(), 1ull << 40);
}

TEST(Immediates, HalfRounding) {
  EXPECT_EQ(imm<F16>(1.0f).bits(), 0x3C00u);
  EXPECT_EQ(imm<F16>(-2.0f).bits(), 0xC000u);
  EXPECT_EQ(imm<F16>(65504.0f).bits(), 0x7BFFu);
  EXPECT_EQ(imm<F16>(1e6f).bits(), 0x7C00u);                  // overflow -> inf
  EXPECT_EQ(imm<F16>(5.9604645e-8f).bits(), 0x0001u);         // smallest subnormal
  EXPECT_EQ(imm<F16>(1.0f + 1.0f / 2048.0f).bits(), 0x3C00u); // tie -> even
  EXPECT_EQ(imm<BF16>(1.0f).bits(), 0x3F80u);
  EXPECT_EQ(imm<BF16>(3.140625f).bits(), 0x4049u);
  EXPECT_EQ(imm<BF16>(std::numeric_limits<float>::infinity()).bits(), 0x7F80u);
}

TEST(Immediates, PrintedForms) {
  std::string text = printed([](KernelBuilder& b) {
    (void)b.mov(b.imm<F32>(0.5f));
    (void)b.mov(b.imm<F64>(-2.0));
    (void)b.mov(b.imm<S32>(-7));
    (void)b.mov(b.imm<U32>(4000000000u));
    (void)b.mov(b.imm<B32>(0xff));
    (void)b.mov(b.imm<F16>(1.0f));
  });
  EXPECT_NE(text.find("mov.f32 %f1, 0f3F000000;"), std::string::npos) << text;
  EXPECT_NE(text.find("mov.f64 %fd1, 0dC000000000000000;"), std::string::npos);
  EXPECT_NE(text.find("mov.s32 %r1, -7;"), std::string::npos);
  EXPECT_NE(text.find("mov.u32 %r2, 4000000000;"), std::string::npos);
  EXPECT_NE(text.find("mov.b32 %r3, 0xFF;"), std::string::npos);
  EXPECT_NE(text.find("mov.b16 %rs1, 0x3C00;"), std::string::npos);
}

TEST(Immediates, HalfImmediatesGoThroughARegister) {
  std::string text = printed([](KernelBuilder& b) {
    Reg<F16> h = b.cvt<F16>(b.param<F32>("x"), rn);
    (void)b.add(h, b.imm<F16>(2.0f));
  });
  EXPECT_NE(text.find("mov.b16 %rs2, 0x4000;\n\tadd.f16 %rs3, %rs1, %rs2;"), std::string::npos)
      << text;
}

TEST(Immediates, BakedKeepsFieldAndShortestText) {
  KernelBuilder b("k", Target::parse("sm_90").value());
  Imm<F32> eps = b.baked<F32>("eps", 1e-6f);
  Imm<F64> theta = b.baked<F64>("theta", 10000.0);
  Imm<U32> n = b.baked<U32>("hidden", 4096);
  (void)b.mov(eps);
  (void)b.mov(theta);
  (void)b.add(b.tid_x(), n);
  b.ret();
  PrintedPtx p = print(b.finish().value());
  ASSERT_EQ(p.baked.size(), 3u);
  EXPECT_EQ(p.baked[0].field, "eps");
  EXPECT_EQ(p.baked[0].value, "1e-06");
  EXPECT_EQ(p.baked[0].instruction, "mov.f32 %f1, 0f358637BD;");
  EXPECT_EQ(p.baked[1].field, "theta");
  EXPECT_EQ(p.baked[1].value, "10000");
  EXPECT_EQ(p.baked[2].field, "hidden");
  EXPECT_EQ(p.baked[2].value, "4096");
  EXPECT_EQ(p.baked[2].instruction, "add.u32 %r2, %r1, 4096;");
  EXPECT_LT(p.baked[0].ptx_line, p.baked[1].ptx_line);
  EXPECT_LT(p.baked[1].ptx_line, p.baked[2].ptx_line);
}

TEST(Immediates, BakedConstArrayElementsAreReported) {
  KernelBuilder b("k", Target::parse("sm_90").value());
  auto table = b.const_array<F32>("freqs", {b.imm<F32>(1.0f), b.baked<F32>("theta", 10000.0f)});
  b.st(b.param<Ptr<Global, F32>>("out"), b.ld(table + 1));
  b.ret();
  PrintedPtx p = print(b.finish().value());
  ASSERT_EQ(p.baked.size(), 1u);
  EXPECT_EQ(p.baked[0].field, "theta");
  EXPECT_EQ(p.baked[0].instruction, ".const .align 4 .f32 k_freqs[2] = {0f3F800000, 0f461C4000};");
  std::istringstream in(p.text);
  std::string line;
  for (unsigned n = 0; n < p.baked[0].ptx_line; ++n)
    std::getline(in, line);
  EXPECT_EQ(line, p.baked[0].instruction);
}

TEST(Immediates, StructuralImmediatesAreNotReported) {
  KernelBuilder b("k", Target::parse("sm_90").value());
  (void)b.mov(b.imm<F32>(1e-6f));
  b.ret();
  EXPECT_TRUE(print(b.finish().value()).baked.empty());
}

} // namespace
} // namespace ptxkit::ptxgen
