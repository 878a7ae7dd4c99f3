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
// rows (grid.y would cap a launch at 65535).
// Buffers must be 16-byte aligned (cudaMalloc gives 256).
#include "common/block_reduce.h"
#include "common/strided_loop.h"
#include "common/warp_reduce.h"
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
  common::strided_loop(b, i, chunks, b.baked<U32>("hidden", threads), {"sumsq_loop", "sumsq_done"},
                       [&](Reg<U32> iv) {
                         auto x = b.ld_nc_v4(b.element(x_row, b.shl(iv, b.imm<U32>(2))));
                         Reg<F32> s = sumsq.read();
                         for (Reg<F32> v : x)
                           s = b.fma(v, v, s, rn);
                         sumsq.assign(s);
                       });

  // 2-3. Only lane 0 uses its warp's shfl.down sum: it parks it in warp_sums[warp]; every thread
  // then adds the warp sums in the same order, so all agree bit for bit.
  Reg<F32> s = common::warp_sum_to_lane0(b, sumsq.read());
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<Pred> is_lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  auto my_sum = b.element(warp_sums, warp);
  Reg<F32> total = common::combine_warp_slots(b, s, my_sum, is_lane0, warp_sums, warps,
                                              [&b](Reg<F32> x, Reg<F32> y) { return b.add(x, y); });

  // 4. rstd = 1 / sqrt(mean(x^2) + eps).
  Reg<F32> mean = b.div(total, b.baked<F32>("hidden", static_cast<float>(c.hidden)), rn);
  Reg<F32> rstd = b.rsqrt(b.add(mean, b.baked<F32>("eps", c.eps)), approx);

  // 5. Normalize and scale by gamma.
  Var<U32> j = b.var<U32>(tid, "j");
  common::strided_loop(b, j, chunks, b.baked<U32>("hidden", threads), {"scale_loop", "scale_done"},
                       [&](Reg<U32> jv) {
                         Reg<U32> e = b.shl(jv, b.imm<U32>(2));
                         auto x = b.ld_nc_v4(b.element(x_row, e));
                         auto g = b.ld_nc_v4(b.element(gamma, e));
                         std::array<Reg<F32>, 4> y = x;
                         for (std::size_t k = 0; k < 4; ++k)
                           y[k] = b.mul(b.mul(x[k], rstd), g[k]);
                         b.st_v4(b.element(y_row, e), y);
                       });
  b.ret();

  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(RmsNorm);

} // namespace ptxkit::kernels
