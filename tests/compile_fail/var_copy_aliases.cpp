// compile_fail/var_copy_aliases.cpp: the stale-maximum defect: copying a loop-carried Var
// (`let old_max = max_score;`).
//
// Copying would alias the mutable register, so the rescale would subtract a register from itself;
// the copy constructor is deleted and the snapshot is an explicit read().
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: deleted
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Var<F32> max_score = b.var<F32>(b.imm<F32>(-1e30f), "max_score");
  Reg<F32> s = b.param<F32>("s");
#ifdef PTXKIT_COMPILE_FAIL
  Var<F32> old_max = max_score;
  b.max_inplace(max_score, s);
  (void)b.sub(old_max.read(), max_score.read());
#else
  Reg<F32> old_max = max_score.read();
  b.max_inplace(max_score, s);
  (void)b.sub(old_max, max_score.read());
#endif
  b.ret();
}
