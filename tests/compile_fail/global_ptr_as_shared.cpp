// compile_fail/global_ptr_as_shared.cpp: state-space mismatch: a global pointer where a shared one
// is expected.
//
// There is no conversion between pointers of different spaces (cvta is explicit: to_generic).
// Compiled with -DPTXKIT_COMPILE_FAIL it must not compile; without it (the twin) it must.
// expected-error: conversion|no viable|could not convert|cannot convert
#include "ptxkit/ptxgen/ptxgen.h"

#include <utility>

using namespace ptxkit::ptxgen;

void build(KernelBuilder& b) {
  auto g = b.param<Ptr<Global, F32>>("g");
  Ptr<Shared, F32> s = b.shared_array<F32>("tile", 32);
#ifdef PTXKIT_COMPILE_FAIL
  Ptr<Shared, F32> wrong = g;
  b.st(wrong, b.imm<F32>(0.0f));
#else
  b.st(s, b.ld(g));
#endif
  b.ret();
}
