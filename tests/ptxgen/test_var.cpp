// test_var.cpp: Var<T>, the mutable loop-carried value, and the online-softmax rescale it
// keeps right.
//
// The stale-maximum defect copied a register handle (`let old_max = max_score;`), so after the
// in-place max the rescale read the same register twice: `sub.f32 %f27, %f8, %f8`. With Var the old
// value is an explicit snapshot, so the rescale subtracts two different registers.
#include "ptxkit/ptxgen/ptxgen.h"

#include <gtest/gtest.h>
#include <string>

namespace ptxkit::ptxgen {
namespace {

static_assert(!std::is_copy_constructible_v<Var<F32>>, "a Var copy would alias its register");
static_assert(!std::is_move_constructible_v<Var<F32>>);
static_assert(!std::is_copy_assignable_v<Var<F32>>);
static_assert(std::is_trivially_copyable_v<Reg<F32>>, "SSA handles copy freely");

TEST(Var, ReadIsASnapshotInAFreshRegister) {
  KernelBuilder b("k", Target::parse("sm_90").value());
  Var<F32> v = b.var<F32>(b.imm<F32>(1.0f), "v");
  Reg<F32> before = v.read();
  v.assign(b.imm<F32>(2.0f));
  Reg<F32> after = b.read(v);
  EXPECT_NE(before.id(), after.id());
  EXPECT_NE(before.id(), v.storage_id());
  b.ret();
  std::string text = print(b.finish().value()).text;
  EXPECT_NE(text.find("\tmov.f32 %f1, 0f3F800000;\n"
                      "\tmov.f32 %f2, %f1;\n"
                      "\tmov.f32 %f1, 0f40000000;\n"
                      "\tmov.f32 %f3, %f1;\n"),
            std::string::npos)
      << text;
}

TEST(Var, OnlineSoftmaxRescaleSubtractsTwoDifferentRegisters) {
  KernelBuilder b("softmax_step", Target::parse("sm_90").value());
  auto scores = b.param<Ptr<Global, const F32>>("scores");
  auto out = b.param<Ptr<Global, F32>>("out");
  Var<F32> max_score = b.var<F32>(b.imm<F32>(-1e30f), "max_score");
  Var<F32> sum = b.var<F32>(b.imm<F32>(0.0f), "sum");
  Var<U32> i = b.var<U32>(b.imm<U32>(0), "i");
  Label loop = b.new_label("loop");
  b.place(loop);
  Reg<U32> idx = i.read();
  Reg<F32> s = b.ld(scores + idx);
  Reg<F32> old_max = max_score.read(); // `let old_max = max_score;`, done right
  b.max_inplace(max_score, s);
  Reg<F32> new_max = max_score.read();
  Reg<F32> rescale = b.ex2(b.sub(old_max, new_max), approx);
  Reg<F32> p = b.ex2(b.sub(s, new_max), approx);
  sum.assign(b.fma(sum.read(), rescale, p, rn));
  Reg<U32> next = b.add(idx, b.imm<U32>(1));
  i.assign(next);
  b.bra_if(b.setp(cmp::lt, next, b.imm<U32>(64)), loop);
  b.st(out, sum.read());
  b.ret();
  std::string text = print(b.finish().value()).text;
  // Every `sub.f32 d, a, b;` must read two different registers (std::regex is avoided: g++ 12
  // warns inside it under the sanitizer build).
  int subs = 0;
  for (std::size_t at = text.find("sub.f32 "); at != std::string::npos;
       at = text.find("sub.f32 ", at + 1)) {
    std::string line = text.substr(at, text.find(';', at) - at);
    std::size_t c1 = line.find(", ");
    std::size_t c2 = line.find(", ", c1 + 2);
    ASSERT_NE(c2, std::string::npos) << line;
    std::string a = line.substr(c1 + 2, c2 - c1 - 2);
    std::string b2 = line.substr(c2 + 2);
    EXPECT_NE(a, b2) << "aliased rescale: " << line;
    EXPECT_EQ(a.rfind("%f", 0), 0u) << line;
    ++subs;
  }
  EXPECT_EQ(subs, 2);
  // Both snapshots are reads of the Var's register into distinct fresh registers.
  EXPECT_NE(old_max.id(), new_max.id());
}

} // namespace
} // namespace ptxkit::ptxgen
