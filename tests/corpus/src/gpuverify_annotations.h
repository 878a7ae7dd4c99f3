// gpuverify_annotations.h: defines GPUVerify's specification annotations away, so that its CUDA
// test suite (github.com/mc-imperial/gpuverify, testsuite/CUDA) compiles with plain nvcc to the PTX
// the verifier sweeps. Preconditions and invariants are proof hints for GPUVerify; the code they
// annotate is unchanged without them. An assertion keeps its run-time meaning (trap when false),
// so the values it reads stay used, as in the program GPUVerify checks.
#pragma once
#define __requires(...)
#define __ensures(...)
#define __invariant(...)
#define __global_invariant(...)
#define __function_wide_invariant(...)
#define __global_requires(...)
#define __global_ensures(...)
#define __requires_fresh_array(...)
#define __implies(a, b) (!(a) || (b))
#define __assert(e)                                                                                \
  do {                                                                                             \
    if (!(e)) __trap();                                                                            \
  } while (0)
#define __assume(...) ((void)0)
#define __axiom(...)
#define __barrier_invariant(...)
#define __all(x) __all_sync(0xffffffffu, (x))
#define __any(x) __any_sync(0xffffffffu, (x))
