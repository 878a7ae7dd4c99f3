// layernorm_builder.cpp: LayerNorm's PTX, written on ptxgen, and its registration.
//
// One block of T threads per row (row = %ctaid.x), T = row_block::threads_for(chunks), a chunk
// being one 16-byte access (LayerNorm::chunk_width) widened to f32 (common/dtype_access.h):
//   1. load this thread's chunks of the row into registers (unrolled; a chunk some threads
//      lack is clamped into the row and zeroed, common/row_block.h);
//   2. mean = block_sum(x) / hidden           (shfl.bfly tree: every lane holds the warp sum;
//                                               warp sums through shared memory, fixed order);
//   3. var  = block_sum((x - mean)^2) / hidden (a chunk the thread lacks contributes 0, not
//                                               mean^2; its own shared slots);
//   4. rstd = rsqrt.approx(var + eps), eps a baked immediate;
//   5. out  = (x - mean) * rstd * gamma + beta from the same registers, rounded once to the dtype.
#include "common/block_reduce.h"
#include "common/dtype_access.h"
#include "common/row_block.h"
#include "layernorm.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

template <class E>
ptxkit::Expected<GeneratedPtx>
build_layernorm(const LayerNormConfig& c, const ptxgen::Target& target, const GenOptions& options) {
  const std::uint32_t width = LayerNorm::chunk_width(c);
  const std::uint32_t chunks = LayerNorm::chunks(c);
  const std::uint32_t threads = row_block::threads_for(chunks);
  const std::uint32_t warps = threads / 32;
  KernelBuilder b(std::string(LayerNorm::kName), target);
  b.reqntid(threads);
  auto in = b.param<Ptr<Global, const E>>("input");
  auto out = b.param<Ptr<Global, E>>("output");
  auto gamma = b.param<Ptr<Global, const E>>("gamma");
  auto beta = b.param<Ptr<Global, const E>>("beta");
  auto mean_slots = b.shared_array<F32>("mean_partials", warps, 4);
  auto var_slots = b.shared_array<F32>("var_partials", warps, 4);

  Reg<U32> tid = b.tid_x();
  Reg<U32> row = b.ctaid_x();
  Reg<U64> row_start = b.mul_wide(row, b.baked<U32>("hidden", c.hidden)); // 64-bit offsets
  auto x_row = in + row_start;
  auto y_row = out + row_start;
  row_block::RowChunks rc(b, tid, chunks, "hidden", width);
  auto x_thread = rc.thread_ptr(x_row);

  // 1. The row, once, into registers.
  std::vector<std::vector<Reg<F32>>> x;
  for (std::uint32_t k = 0; k < rc.count(); ++k)
    x.push_back(rc.template load_f32<E>(x_row, x_thread, k, common::LoadPath::kPlain));

  // 2. The mean.
  const Imm<F32> n = b.baked<F32>("hidden", static_cast<float>(c.hidden));
  // (One emitting call per argument list: C++ argument evaluation order is unspecified.)
  Reg<F32> s = x[0][0];
  for (std::uint32_t k = 0; k < rc.count(); ++k)
    for (std::size_t j = k == 0 ? 1 : 0; j < width; ++j)
      s = b.add(s, x[k][j]);
  Reg<F32> mean = b.div(common::block_all_sum(b, s, mean_slots, warps, tid), n, rn);

  // 3. The variance, from the deviations (a missing chunk's deviation is 0, not -mean).
  std::vector<std::vector<Reg<F32>>> d;
  for (std::uint32_t k = 0; k < rc.count(); ++k) {
    std::vector<Reg<F32>> dk = x[k];
    for (std::size_t j = 0; j < width; ++j) {
      dk[j] = b.sub(x[k][j], mean);
      if (const Reg<Pred>* ok = rc.valid(k)) dk[j] = b.selp(dk[j], b.imm<F32>(0.0f), *ok);
    }
    d.push_back(dk);
  }
  Reg<F32> ss = b.mul(d[0][0], d[0][0]);
  for (std::uint32_t k = 0; k < rc.count(); ++k)
    for (std::size_t j = k == 0 ? 1 : 0; j < width; ++j)
      ss = b.fma(d[k][j], d[k][j], ss, rn);
  Reg<F32> var = b.div(common::block_all_sum(b, ss, var_slots, warps, tid), n, rn);

  // 4. rstd = 1 / sqrt(var + eps).
  Reg<F32> rstd = b.rsqrt(b.add(var, b.baked<F32>("eps", c.eps)), approx);

  // 5. out = d * rstd * gamma + beta.
  auto g_thread = rc.thread_ptr(gamma);
  auto b_thread = rc.thread_ptr(beta);
  auto y_thread = rc.thread_ptr(y_row);
  for (std::uint32_t k = 0; k < rc.count(); ++k) {
    auto g = common::load_f32<E>(b, rc.chunk_ptr(gamma, g_thread, k), width,
                                 common::LoadPath::kReadOnly);
    auto bt =
        common::load_f32<E>(b, rc.chunk_ptr(beta, b_thread, k), width, common::LoadPath::kReadOnly);
    std::vector<Reg<F32>> y = d[k];
    for (std::size_t j = 0; j < width; ++j)
      y[j] = b.fma(b.mul(d[k][j], rstd), g[j], bt[j], rn);
    rc.template store_f32<E>(y_row, y_thread, k, y);
  }
  b.ret();
  return finish_and_print(b, options);
}

} // namespace

ptxkit::Expected<GeneratedPtx> LayerNorm::build(const Config& c, const ptxgen::Target& target,
                                                const GenOptions& options) {
  return common::with_dtype(c.dtype,
                            [&]<class E>() { return build_layernorm<E>(c, target, options); });
}

PTXKIT_REGISTER_KERNEL(LayerNorm);

} // namespace ptxkit::kernels
