// strided_loop.h: the guarded loop `for (i = start; i < bound; i += stride) body(i)`, emitted as
// a test at the top (no iteration when start >= bound) and a backward branch.
//
// The index is a Var the caller created (its name and where its initial mov goes are the
// caller's); each iteration reads it once into a snapshot, hands the snapshot to the body, and
// assigns snapshot + stride after the body, so the body may read other loop-carried Vars freely.
#pragma once

#include <ptxkit/ptxgen/ptxgen.h>
#include <string>

namespace ptxkit::kernels::common {

using namespace ptxkit::ptxgen;

// The labels of a loop: `loop` heads it, `done` follows it.
struct LoopLabels {
  std::string loop;
  std::string done;
};

// `bound` and `stride` are immediates (b.baked / b.imm) or registers; body(Reg<U32> i).
template <class Bound, class Stride, class Body>
void strided_loop(KernelBuilder& b, Var<U32>& index, const Bound& bound, const Stride& stride,
                  const LoopLabels& labels, Body body) {
  Label loop = b.new_label(labels.loop);
  Label done = b.new_label(labels.done);
  b.place(loop);
  Reg<U32> i = index.read();
  b.bra_if(!b.setp(cmp::lt, i, bound), done);
  body(i);
  index.assign(b.add(i, stride));
  b.bra(loop);
  b.place(done);
}

} // namespace ptxkit::kernels::common
