// compile_fail/harness/misuse_compiles.cpp: a "misuse" that is legal, to prove the harness fails.
//
// Run in fail mode, check_compile.cmake must report an error (the test is WILL_FAIL): a
// compile-fail test whose misuse compiles is a red test, not a silent green one.
// expected-error: anything
#include "ptxkit/ptxgen/ptxgen.h"

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
#ifdef PTXKIT_COMPILE_FAIL
  (void)b.add(b.tid_x(), b.tid_x()); // perfectly legal
#endif
  b.ret();
}
