// rmsnorm_builder.cpp: RMSNorm's PTX, written on ptxgen, and its registration.
//
// One block of T = min(256, chunks rounded up to a warp) threads per row (row = %ctaid.x), a chunk
// being one 16-byte access (RmsNorm::chunk_width), loaded as f32 registers (dtype_access.h):
//   1. each thread sums x^2 over its chunks i = tid, tid+T, ... < chunks (ld.global.nc);
//   2. shfl.down reduction inside each warp; lane 0 alone holds its warp's sum and stores it to
//      warp_sums[warp] (only lane 0 reads the reduced value, so no broadcast is needed);
//   3. bar.sync, then every thread adds the T/32 warp sums in the same fixed order;
//   4. rstd = rsqrt.approx(sum / hidden + eps), with eps a baked immediate;
//   5. out = x * rstd * gamma over the same chunks, rounded once to the dtype.
// Rows of up to RmsNorm::kMaxRegisterElems elements per thread (every reference shape) keep their
// chunks in registers from step 1 to step 5 (common/row_block.h: unrolled, gamma loaded with x so
// its latency overlaps the reduction), so x is read from memory once; longer rows loop over their
// chunks twice. Both orders sum a thread's squares chunk by chunk, so the result is the same.
// hidden % 4 == 0 is validated before this runs, so the chunks cover each row exactly.
// T follows the row: at hidden 896 f32 (224 chunks) a 256-thread block would leave a warp idle in
// every row and fit one block fewer per SM (measured on the H200: 88.5% of copy bandwidth at
// 65536 x 896 with 256 threads). The row index is %ctaid.x, so one launch takes up to 2^31 - 1
// rows (grid.y would cap a launch at 65535).
// Buffers must be 16-byte aligned (cudaMalloc gives 256).
#include "common/block_reduce.h"
#include "common/dtype_access.h"
#include "common/row_block.h"
#include "common/strided_loop.h"
#include "common/warp_reduce.h"
#include "rmsnorm.h"

#include <bit>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;
using common::LoadPath;

// Steps 2-4: rstd from this thread's sum of squares. Only lane 0 uses its warp's shfl.down sum:
// it parks it in warp_sums[warp]; every thread then adds the warp sums in the same order, so all
// agree bit for bit.
Reg<F32> block_rstd(KernelBuilder& b, const RmsNormConfig& c, Reg<U32> tid, Reg<F32> sumsq,
                    Ptr<Shared, F32> warp_sums, std::uint32_t warps) {
  Reg<F32> s = common::warp_sum_to_lane0(b, sumsq);
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<Pred> is_lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  auto my_sum = b.element(warp_sums, warp);
  Reg<F32> total = common::combine_warp_slots(b, s, my_sum, is_lane0, warp_sums, warps,
                                              [&b](Reg<F32> x, Reg<F32> y) { return b.add(x, y); });
  Reg<F32> mean = b.div(total, b.baked<F32>("hidden", static_cast<float>(c.hidden)), rn);
  return b.rsqrt(b.add(mean, b.baked<F32>("eps", c.eps)), approx);
}

// The row in registers: x and gamma loaded once, unrolled.
template <class E, class Rstd>
void normalize_in_registers(KernelBuilder& b, const RmsNormConfig& c, Reg<U32> tid,
                            Ptr<Global, const E> x_row, Ptr<Global, E> y_row,
                            Ptr<Global, const E> gamma, Rstd rstd_of) {
  const std::uint32_t width = RmsNorm::chunk_width(c);
  row_block::RowChunks rc(b, tid, c.hidden / width, "hidden", width);
  auto x_thread = rc.thread_ptr(x_row);
  auto g_thread = rc.thread_ptr(gamma);
  std::vector<std::vector<Reg<F32>>> xs, gs;
  std::vector<Reg<F32>> squares;
  for (std::uint32_t k = 0; k < rc.count(); ++k) {
    xs.push_back(rc.template load_f32<E>(x_row, x_thread, k, LoadPath::kReadOnly));
    gs.push_back(
        common::load_f32<E>(b, rc.chunk_ptr(gamma, g_thread, k), width, LoadPath::kReadOnly));
    for (Reg<F32> v : xs.back())
      squares.push_back(squares.empty() ? b.mul(v, v) : b.fma(v, v, squares.back(), rn));
  }
  Reg<F32> rstd = rstd_of(squares.back());
  auto y_thread = rc.thread_ptr(y_row);
  for (std::uint32_t k = 0; k < rc.count(); ++k) {
    std::vector<Reg<F32>> y = xs[k];
    for (std::size_t j = 0; j < y.size(); ++j)
      y[j] = b.mul(b.mul(xs[k][j], rstd), gs[k][j]);
    rc.template store_f32<E>(y_row, y_thread, k, y);
  }
}

// A row too long for registers: the chunk loop runs twice, reading x in each.
template <class E, class Rstd>
void normalize_looping(KernelBuilder& b, const RmsNormConfig& c, Reg<U32> tid,
                       Ptr<Global, const E> x_row, Ptr<Global, E> y_row, Ptr<Global, const E> gamma,
                       Rstd rstd_of) {
  const std::uint32_t width = RmsNorm::chunk_width(c);
  const Imm<U32> chunks = b.baked<U32>("hidden", c.hidden / width);
  const Imm<U32> stride = b.baked<U32>("hidden", RmsNorm::threads_for(c));
  const Imm<U32> shift = b.imm<U32>(static_cast<std::uint32_t>(std::countr_zero(width)));
  Var<F32> sumsq = b.var<F32>(b.imm<F32>(0.0f), "sumsq");
  Var<U32> i = b.var<U32>(tid, "i");
  common::strided_loop(b, i, chunks, stride, {"sumsq_loop", "sumsq_done"}, [&](Reg<U32> iv) {
    auto x = common::load_f32<E>(b, b.element(x_row, b.shl(iv, shift)), width, LoadPath::kReadOnly);
    Reg<F32> s = sumsq.read();
    for (Reg<F32> v : x)
      s = b.fma(v, v, s, rn);
    sumsq.assign(s);
  });
  Reg<F32> rstd = rstd_of(sumsq.read());
  Var<U32> j = b.var<U32>(tid, "j");
  common::strided_loop(b, j, chunks, stride, {"scale_loop", "scale_done"}, [&](Reg<U32> jv) {
    Reg<U32> e = b.shl(jv, shift);
    auto x = common::load_f32<E>(b, b.element(x_row, e), width, LoadPath::kReadOnly);
    auto g = common::load_f32<E>(b, b.element(gamma, e), width, LoadPath::kReadOnly);
    for (std::size_t k = 0; k < x.size(); ++k)
      x[k] = b.mul(b.mul(x[k], rstd), g[k]);
    common::store_f32<E>(b, b.element(y_row, e), x);
  });
}

template <class E>
ptxkit::Expected<GeneratedPtx> build_rmsnorm(const RmsNormConfig& c, const ptxgen::Target& target,
                                             const GenOptions& options) {
  const std::uint32_t threads = RmsNorm::threads_for(c);
  const std::uint32_t warps = threads / 32;
  KernelBuilder b(std::string(RmsNorm::kName), target);
  b.reqntid(threads);
  auto in = b.param<Ptr<Global, const E>>("input");
  auto out = b.param<Ptr<Global, E>>("output");
  auto gamma = b.param<Ptr<Global, const E>>("gamma");
  auto warp_sums = b.shared_array<F32>("warp_sums", warps, 4);

  Reg<U32> tid = b.tid_x();
  Reg<U32> row = b.ctaid_x();
  // 64-bit: rows * hidden may exceed 2^32.
  Reg<U64> row_start = b.mul_wide(row, b.baked<U32>("hidden", c.hidden));
  auto x_row = b.element(in, row_start);
  auto y_row = b.element(out, row_start);
  auto rstd_of = [&](Reg<F32> sumsq) { return block_rstd(b, c, tid, sumsq, warp_sums, warps); };
  if (RmsNorm::row_in_registers(c))
    normalize_in_registers<E>(b, c, tid, x_row, y_row, gamma, rstd_of);
  else
    normalize_looping<E>(b, c, tid, x_row, y_row, gamma, rstd_of);
  b.ret();
  return finish_and_print(b, options);
}

} // namespace

ptxkit::Expected<GeneratedPtx> RmsNorm::build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
  return common::with_dtype(c.dtype,
                            [&]<class E>() { return build_rmsnorm<E>(c, target, options); });
}

PTXKIT_REGISTER_KERNEL(RmsNorm);

} // namespace ptxkit::kernels
