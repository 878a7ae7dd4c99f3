// rmsnorm_builder.cpp: RMSNorm's PTX, written on ptxgen, and its registration.
//
// One block of T = min(256, hidden/4 rounded up to a warp) threads per row (row = %ctaid.x):
//   1. each thread sums x^2 over its .v4 chunks i = tid, tid+T, ... < hidden/4 (ld.global.nc);
//   2. shfl.down reduction inside each warp; lane 0 alone holds its warp's sum and stores it to
//      warp_sums[warp] (only lane 0 reads the reduced value, so no broadcast is needed);
//   3. bar.sync, then every thread adds the T/32 warp sums in the same fixed order;
//   4. rstd = rsqrt.approx(sum / hidden + eps), with eps a baked immediate;
//   5. out = x * rstd * gamma over the same .v4 chunks.
// hidden % 4 == 0 is validated before this runs, so the .v4 chunks cover each row exactly.
// T follows the row: at hidden 896 (224 chunks) a 256-thread block would leave a warp idle in
// every row and fit one block fewer per SM (measured on the H200: 88.5% of copy bandwidth at
// 65536 x 896 with 256 threads). The row index is %ctaid.x, so one launch takes up to 2^31 - 1
// rows (grid.y, the seed's layout, caps a launch at 65535).
// Buffers must be 16-byte aligned (cudaMalloc gives 256).
#include "rmsnorm.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;
} // namespace

ptxkit::Expected<GeneratedPtx> RmsNorm::build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
  const std::uint32_t threads = threads_for(c.hidden);
  const std::uint32_t warps = threads / 32;
  KernelBuilder b(std::string(kName), target);
  b.reqntid(threads);
  auto in = b.param<Ptr<Global, const F32>>("input");
  auto out = b.param<Ptr<Global, F32>>("output");
  auto gamma = b.param<Ptr<Global, const F32>>("gamma");
  auto warp_sums = b.shared_array<F32>("warp_sums", warps, 4);

  const Imm<U32> hidden = b.baked<U32>("hidden", c.hidden);
  const Imm<U32> chunks = b.baked<U32>("hidden", c.hidden / 4); // .v4 chunks per row

  Reg<U32> tid = b.tid_x();
  Reg<U32> row = b.ctaid_x();
  Reg<U64> row_start = b.mul_wide(row, hidden); // 64-bit: rows * hidden may exceed 2^32
  auto x_row = b.element(in, row_start);
  auto y_row = b.element(out, row_start);

  // 1. Sum of squares over this thread's chunks.
  Var<F32> sumsq = b.var<F32>(b.imm<F32>(0.0f), "sumsq");
  Var<U32> i = b.var<U32>(tid, "i");
  Label sum_loop = b.new_label("sumsq_loop");
  Label sum_done = b.new_label("sumsq_done");
  b.place(sum_loop);
  {
    Reg<U32> iv = i.read();
    b.bra_if(!b.setp(cmp::lt, iv, chunks), sum_done);
    auto x = b.ld_nc_v4(b.element(x_row, b.shl(iv, b.imm<U32>(2))));
    Reg<F32> s = sumsq.read();
    for (Reg<F32> v : x)
      s = b.fma(v, v, s, rn);
    sumsq.assign(s);
    i.assign(b.add(iv, b.baked<U32>("hidden", threads)));
    b.bra(sum_loop);
  }
  b.place(sum_done);

  // 2. Warp reduction: after shfl.down only lane 0 holds the warp's sum, and only lane 0 uses it.
  Reg<F32> s = sumsq.read();
  for (std::uint32_t delta : {16u, 8u, 4u, 2u, 1u})
    s = b.add(s, b.shfl_down(s, b.imm<U32>(delta)));
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<Pred> is_lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  auto my_sum = b.element(warp_sums, warp);
  {
    auto only_lane0 = b.guard(is_lane0);
    b.st(my_sum, s);
  }
  b.bar_sync(0);

  // 3. Every thread adds the warp sums in the same order, so all agree bit for bit.
  Reg<F32> total = b.ld(warp_sums + 0);
  for (std::uint32_t w = 1; w < warps; ++w)
    total = b.add(total, b.ld(warp_sums + w));

  // 4. rstd = 1 / sqrt(mean(x^2) + eps).
  Reg<F32> mean = b.div(total, b.baked<F32>("hidden", static_cast<float>(c.hidden)), rn);
  Reg<F32> rstd = b.rsqrt(b.add(mean, b.baked<F32>("eps", c.eps)), approx);

  // 5. Normalize and scale by gamma.
  Var<U32> j = b.var<U32>(tid, "j");
  Label out_loop = b.new_label("scale_loop");
  Label out_done = b.new_label("scale_done");
  b.place(out_loop);
  {
    Reg<U32> jv = j.read();
    b.bra_if(!b.setp(cmp::lt, jv, chunks), out_done);
    Reg<U32> e = b.shl(jv, b.imm<U32>(2));
    auto x = b.ld_nc_v4(b.element(x_row, e));
    auto g = b.ld_nc_v4(b.element(gamma, e));
    std::array<Reg<F32>, 4> y = x;
    for (std::size_t k = 0; k < 4; ++k)
      y[k] = b.mul(b.mul(x[k], rstd), g[k]);
    b.st_v4(b.element(y_row, e), y);
    j.assign(b.add(jv, b.baked<U32>("hidden", threads)));
    b.bra(out_loop);
  }
  b.place(out_done);
  b.ret();

  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(RmsNorm);

} // namespace ptxkit::kernels
