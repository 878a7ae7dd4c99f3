// compile_fail/harness/wrong_diagnostic.cpp: a misuse rejected for another reason than claimed.
//
// Run in fail mode, check_compile.cmake must report an error (the test is WILL_FAIL): failing to
// compile is not enough, the diagnostic must name the rule the case is about.
// expected-error: ex2 requires \.approx
#include "ptxkit/ptxgen/ptxgen.h"

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.add(b.param<F32>("x"), b.tid_x()); // fails, but for the operand types
#endif
  b.ret();
}
