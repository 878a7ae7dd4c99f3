// fused_residual_rmsnorm_builder.cpp: the fused residual add + RMSNorm as PTX on ptxgen, and its
// registration.
//
// One block of T threads per row (row = %ctaid.x), T = row_block::threads_for(chunks), a chunk
// being one 16-byte access (FusedResidualRmsNorm::chunk_width) widened to f32 registers
// (common/dtype_access.h):
//   1. s = x + residual for this thread's chunks, in registers (common/row_block.h: unrolled; a
//      chunk some threads lack is clamped into the row, zeroed, and its stores are predicated);
//   2. store s (the un-normalized sum, for the backward pass; rounded to the dtype, while the
//      steps below use the f32 sum);
//   3. total = block_sum(s^2)  (shfl.bfly tree, so every lane holds its warp's sum; warp sums
//      through shared memory, added in a fixed order by every thread);
//   4. rstd = rsqrt.approx(total / hidden + eps), eps a baked immediate;
//   5. out = s * rstd * gamma from the same registers.
// x and residual are read with plain ld.global (not .nc): sum may alias one of them.
#include "common/block_reduce.h"
#include "common/dtype_access.h"
#include "common/row_block.h"
#include "fused_residual_rmsnorm.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

template <class E>
ptxkit::Expected<GeneratedPtx> build_fused(const FusedResidualRmsNormConfig& c,
                                           const ptxgen::Target& target,
                                           const GenOptions& options) {
  using K = FusedResidualRmsNorm;
  const std::uint32_t width = K::chunk_width(c);
  const std::uint32_t threads = row_block::threads_for(K::chunks(c));
  const std::uint32_t warps = threads / 32;
  KernelBuilder b(std::string(K::kName), target);
  b.reqntid(threads);
  auto x = b.param<Ptr<Global, const E>>("input");
  auto residual = b.param<Ptr<Global, const E>>("residual");
  auto gamma = b.param<Ptr<Global, const E>>("gamma");
  auto sum_out = b.param<Ptr<Global, E>>("sum");
  auto out = b.param<Ptr<Global, E>>("output");
  auto slots = b.shared_array<F32>("warp_sums", warps, 4);

  Reg<U32> tid = b.tid_x();
  Reg<U32> row = b.ctaid_x();
  Reg<U64> row_start = b.mul_wide(row, b.baked<U32>("hidden", c.hidden)); // 64-bit offsets
  auto x_row = x + row_start;
  auto r_row = residual + row_start;
  auto s_row = sum_out + row_start;
  auto y_row = out + row_start;
  row_block::RowChunks rc(b, tid, K::chunks(c), "hidden", width);
  auto x_thread = rc.thread_ptr(x_row);
  auto r_thread = rc.thread_ptr(r_row);
  auto s_thread = rc.thread_ptr(s_row);

  // 1-2. The sum, in registers, stored once; its sum of squares.
  std::vector<std::vector<Reg<F32>>> s;
  std::vector<Reg<F32>> squares;
  for (std::uint32_t k = 0; k < rc.count(); ++k) {
    auto xv = rc.template load_f32<E>(x_row, x_thread, k, common::LoadPath::kPlain);
    auto rv = rc.template load_f32<E>(r_row, r_thread, k, common::LoadPath::kPlain);
    std::vector<Reg<F32>> sk = xv;
    for (std::size_t j = 0; j < sk.size(); ++j) {
      sk[j] = b.add(xv[j], rv[j]);
      squares.push_back(squares.empty() ? b.mul(sk[j], sk[j])
                                        : b.fma(sk[j], sk[j], squares.back(), rn));
    }
    rc.template store_f32<E>(s_row, s_thread, k, sk);
    s.push_back(sk);
  }
  const Reg<F32> sumsq = squares.back();

  // 3-4. rstd = 1 / sqrt(mean(sum^2) + eps); a missing chunk contributed 0 (zeroed loads).
  Reg<F32> total = common::block_all_sum(b, sumsq, slots, warps, tid);
  Reg<F32> mean = b.div(total, b.baked<F32>("hidden", static_cast<float>(c.hidden)), rn);
  Reg<F32> rstd = b.rsqrt(b.add(mean, b.baked<F32>("eps", c.eps)), approx);

  // 5. out = sum * rstd * gamma.
  auto g_thread = rc.thread_ptr(gamma);
  auto y_thread = rc.thread_ptr(y_row);
  for (std::uint32_t k = 0; k < rc.count(); ++k) {
    auto g = common::load_f32<E>(b, rc.chunk_ptr(gamma, g_thread, k), width,
                                 common::LoadPath::kReadOnly);
    std::vector<Reg<F32>> y = s[k];
    for (std::size_t j = 0; j < y.size(); ++j)
      y[j] = b.mul(b.mul(s[k][j], rstd), g[j]);
    rc.template store_f32<E>(y_row, y_thread, k, y);
  }
  b.ret();
  return finish_and_print(b, options);
}

} // namespace

ptxkit::Expected<GeneratedPtx> FusedResidualRmsNorm::build(const Config& c,
                                                           const ptxgen::Target& target,
                                                           const GenOptions& options) {
  return common::with_dtype(c.dtype, [&]<class E>() { return build_fused<E>(c, target, options); });
}

PTXKIT_REGISTER_KERNEL(FusedResidualRmsNorm);

} // namespace ptxkit::kernels
