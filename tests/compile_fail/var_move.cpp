// compile_fail/var_move.cpp: moving a Var is rejected too: the moved-from name would still own the
// register.
//
// Decision: Var is neither copyable nor movable; it lives where b.var() created it.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: deleted
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Var<F32> acc = b.var<F32>(b.imm<F32>(0.0f), "acc");
#ifdef PTXKIT_COMPILE_FAIL
  Var<F32> other = std::move(acc);
  other.assign(b.imm<F32>(1.0f));
#else
  acc.assign(b.imm<F32>(1.0f));
#endif
  b.ret();
}
