// The example of docs/builder.md (included there byte for byte), compiled and run by
// ptxgen_tests: y = alpha * x + y over n floats, alpha baked into the PTX.
#include "ptxkit/ptxgen/ptxgen.h"
using namespace ptxkit::ptxgen;

ptxkit::Expected<Kernel> axpy(Target t, float alpha) {
  KernelBuilder b("axpy", t);
  b.reqntid(256);
  auto x = b.param<Ptr<Global, const F32>>("x");
  auto y = b.param<Ptr<Global, F32>>("y");
  Reg<U32> n = b.param<U32>("n");
  Reg<U32> tid = b.tid_x();
  Reg<U32> cta = b.ctaid_x();
  Reg<U32> i = b.mad_lo(cta, b.imm<U32>(256), tid);
  Label done = b.new_label("done");
  b.bra_if(b.setp(cmp::ge, i, n), done);
  Reg<F32> xv = b.ld(x + i);
  Reg<F32> yv = b.ld(y + i);
  Reg<F32> r = b.fma(b.baked<F32>("alpha", alpha), xv, yv, rn);
  b.st(y + i, r);
  b.place(done);
  b.ret();
  return b.finish();
}
