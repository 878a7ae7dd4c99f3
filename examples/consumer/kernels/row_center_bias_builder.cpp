// row_center_bias_builder.cpp: the kernel as PTX on ptxkit's typed builder, and its registration.
#include "row_center_bias.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>

namespace consumer {

using namespace ptxkit::ptxgen;

namespace {

// Lane-strided loop over the row: body(i) for i = lane, lane + 32, ... < cols.
template <class Body>
void for_row(KernelBuilder& b, Reg<U32> lane, std::uint32_t cols, const char* name, Body body) {
  Var<U32> i = b.var<U32>(lane, name);
  Label loop = b.new_label(name);
  Label done = b.new_label(std::string(name) + "_done");
  b.place(loop);
  Reg<U32> at = i.read();
  b.bra_if(!b.setp(cmp::lt, at, b.baked<U32>("cols", cols)), done);
  body(at);
  i.assign(b.add(at, b.imm<U32>(32)));
  b.bra(loop);
  b.place(done);
}

} // namespace

ptxkit::Expected<GeneratedPtx> RowCenterBias::build(const Config& c, const Target& target,
                                                    const GenOptions& options) {
  KernelBuilder b(std::string(kName), target);
  b.reqntid(32 * kWarpsPerBlock);
  auto x = b.param<Ptr<Global, const F32>>("x");
  auto bias = b.param<Ptr<Global, const F32>>("bias");
  auto out = b.param<Ptr<Global, F32>>("out");

  Reg<U32> tid = b.tid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<U32> row = b.mad_lo(b.ctaid_x(), b.imm<U32>(kWarpsPerBlock), warp);
  Label done = b.new_label("done");
  // Warp-uniform exit: every shuffle below runs with all 32 lanes.
  b.bra_if(!b.setp(cmp::lt, row, b.baked<U32>("rows", c.rows)), done);
  auto x_row = x + b.mul_wide(row, b.baked<U32>("cols", c.cols));
  auto out_row = out + b.mul_wide(row, b.baked<U32>("cols", c.cols));

  Var<F32> acc = b.var<F32>(b.imm<F32>(0.0f), "acc");
  // One emitting call per statement: C++ leaves argument evaluation order unspecified, and the
  // PTX must be the same bytes whichever compiler built the tool.
  for_row(b, lane, c.cols, "sum", [&](Reg<U32> i) {
    Reg<F32> v = b.ld(x_row + i);
    acc.assign(b.add(acc.read(), v));
  });
  Reg<F32> sum = acc.read();
  for (std::uint32_t delta : {16u, 8u, 4u, 2u, 1u})
    sum = b.add(sum, b.shfl_down(sum, b.imm<U32>(delta)));
  // Only lane 0 holds the row's sum after shfl.down: broadcast it before every lane uses it.
  sum = b.shfl_idx(sum, b.imm<U32>(0));
  Reg<F32> mean = b.mul(sum, b.imm<F32>(1.0f / static_cast<float>(c.cols)));
  for_row(b, lane, c.cols, "store", [&](Reg<U32> i) {
    Reg<F32> v = b.ld(x_row + i);
    Reg<F32> centered = b.sub(v, mean);
    Reg<F32> bi = b.ld(bias + i);
    Reg<F32> y = b.add(centered, bi);
    b.st(out_row + i, y);
  });
  b.place(done);
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(RowCenterBias);

} // namespace consumer
