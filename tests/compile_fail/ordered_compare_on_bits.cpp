// compile_fail/ordered_compare_on_bits.cpp: an ordered comparison (lt) on a .b32 value.
//
// PTX: .b types compare with eq/ne only; the sign must be chosen with a .u or .s type.
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: \.b types compare with eq/ne only
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  Reg<B32> x = b.bitcast<B32>(b.tid_x());
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.setp(cmp::lt, x, x);
#else
  (void)b.setp(cmp::ne, x, x);
#endif
  b.ret();
}
