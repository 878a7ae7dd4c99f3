// compile_fail/var_as_operand.cpp: a Var is not an instruction operand: its value is read
// explicitly.
//
// Reading implicitly would make it unclear which value (before or after an update) is meant.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: read explicitly with var\.read\(\)
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Var<F32> acc = b.var<F32>(b.imm<F32>(0.0f), "acc");
  Reg<F32> x = b.param<F32>("x");
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.add(acc, x);
#else
  (void)b.add(acc.read(), x);
#endif
  b.ret();
}
