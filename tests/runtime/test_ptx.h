// test_ptx.h: small hand-written PTX modules and their signatures, shared by the runtime tests.
//
// The runtime tests exercise loading and launching, not the parser, so each module comes with
// the KernelSignature the parser would derive from its `.entry`.
#pragma once

#include "ptxkit/runtime/launch.h"

#include <string>

namespace ptxkit::runtime::testing {

// out[i] = a[i] + b[i] for i < n; one thread per element, at most 256 threads a block.
inline std::string vector_add_ptx(const char* version = "9.0", const char* target = "sm_90") {
  return std::string(".version ") + version + "\n.target " + target +
         "\n.address_size 64\n\n"
         ".visible .entry vadd(\n"
         "  .param .u64 vadd_a, .param .u64 vadd_b, .param .u64 vadd_out, .param .u32 vadd_n)\n"
         "  .maxntid 256, 1, 1\n"
         "{\n"
         "  .reg .pred %p<2>;\n"
         "  .reg .b32 %r<6>;\n"
         "  .reg .f32 %f<4>;\n"
         "  .reg .b64 %rd<11>;\n"
         "  ld.param.u64 %rd1, [vadd_a];\n"
         "  ld.param.u64 %rd2, [vadd_b];\n"
         "  ld.param.u64 %rd3, [vadd_out];\n"
         "  ld.param.u32 %r2, [vadd_n];\n"
         "  mov.u32 %r3, %ctaid.x;\n"
         "  mov.u32 %r4, %ntid.x;\n"
         "  mov.u32 %r5, %tid.x;\n"
         "  mad.lo.s32 %r1, %r3, %r4, %r5;\n"
         "  setp.ge.u32 %p1, %r1, %r2;\n"
         "  @%p1 bra DONE;\n"
         "  cvta.to.global.u64 %rd4, %rd1;\n"
         "  cvta.to.global.u64 %rd5, %rd2;\n"
         "  cvta.to.global.u64 %rd6, %rd3;\n"
         "  mul.wide.u32 %rd7, %r1, 4;\n"
         "  add.s64 %rd8, %rd4, %rd7;\n"
         "  add.s64 %rd9, %rd5, %rd7;\n"
         "  add.s64 %rd10, %rd6, %rd7;\n"
         "  ld.global.f32 %f1, [%rd8];\n"
         "  ld.global.f32 %f2, [%rd9];\n"
         "  add.f32 %f3, %f1, %f2;\n"
         "  st.global.f32 [%rd10], %f3;\n"
         "DONE:\n"
         "  ret;\n"
         "}\n";
}

inline KernelSignature vector_add_signature() {
  KernelSignature s;
  s.name = "vadd";
  s.params = {{"vadd_a", ".u64", 8, 8},
              {"vadd_b", ".u64", 8, 8},
              {"vadd_out", ".u64", 8, 8},
              {"vadd_n", ".u32", 4, 4}};
  s.maxntid = Dim3{256, 1, 1};
  return s;
}

// A kernel with no parameters, for launch-overhead measurements.
inline std::string empty_kernel_ptx() {
  return ".version 9.0\n.target sm_90\n.address_size 64\n\n"
         ".visible .entry empty()\n{\n  ret;\n}\n";
}

inline KernelSignature empty_kernel_signature() {
  KernelSignature s;
  s.name = "empty";
  return s;
}

} // namespace ptxkit::runtime::testing
