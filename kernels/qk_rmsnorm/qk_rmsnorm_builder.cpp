// qk_rmsnorm_builder.cpp: per-head RMSNorm as PTX on ptxgen, and its registration.
//
// Block = token (%ctaid.x); head = %tid.x / L, lane = %tid.x % L with L lanes per head and w
// floats per vector (qk_rmsnorm_layout). With V = head_dim / (L w) vectors per lane:
//   1. load vectors lane + L j (j < V) of this head into registers (plain ld: out may alias x);
//   2. sumsq over them, then a shfl.bfly tree over the L lanes: every lane ends with the head's
//      full sum, so no lane uses a partial sum and no broadcast is needed;
//   3. rstd = rsqrt.approx(sumsq / head_dim + eps), eps a baked immediate;
//   4. out = x * rstd * gamma, from the same registers; lanes past the last head (when the block
//      is rounded up to a warp) loaded the last head again and store nothing.
// Offsets: the token's base is 64-bit (tokens * num_heads * head_dim may exceed 2^32); inside a
// token everything is 32-bit (at most 32 * 256 elements). Halves are widened to f32 registers on
// load and rounded once on store (common/dtype_access.h).
#include "common/dtype_access.h"
#include "common/warp_reduce.h"
#include "qk_rmsnorm.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

template <class E>
ptxkit::Expected<GeneratedPtx> build_qk_rmsnorm(const QkRmsNormConfig& c,
                                                const ptxgen::Target& target,
                                                const GenOptions& options) {
  const QkRmsNormLayout lay = qk_rmsnorm_layout(c);
  const std::uint32_t w = lay.vector_width;
  const std::uint32_t lanes = lay.lanes_per_head;
  const std::uint32_t per_lane = lay.vectors_per_lane;
  const std::int64_t stride = std::int64_t{lanes} * w; // elements between a lane's vectors
  KernelBuilder b(std::string(QkRmsNorm::kName), target);
  b.reqntid(lay.threads);
  auto in = b.param<Ptr<Global, const E>>("input");
  auto out = b.param<Ptr<Global, E>>("output");
  auto gamma = b.param<Ptr<Global, const E>>("gamma");

  Reg<U32> tid = b.tid_x();
  Reg<U32> token = b.ctaid_x();
  std::uint32_t log2_lanes = 0;
  while ((1u << log2_lanes) < lanes)
    ++log2_lanes;
  Reg<U32> lane = b.and_(tid, b.baked<U32>("head_dim", lanes - 1)); // lane within its head
  Reg<U32> head = b.shr(tid, b.baked<U32>("head_dim", log2_lanes));
  // False on the phantom lanes past the last head; empty without phantom lanes. (Not
  // std::optional: GCC 12's -O3 -Wmaybe-uninitialized misfires on an optional register handle.)
  std::vector<Reg<Pred>> real_head;
  if (lay.phantom_lanes) {
    real_head.push_back(b.setp(cmp::lt, head, b.baked<U32>("num_heads", c.num_heads)));
    head = b.min(head, b.baked<U32>("num_heads", c.num_heads - 1)); // loads stay in the token
  }
  Reg<U32> lane_elem = b.mul_lo(lane, b.baked<U32>("head_dim", w)); // first element in the head
  Reg<U64> token_start =
      b.mul_wide(token, b.baked<U32>("num_heads", c.num_heads * c.head_dim)); // 64-bit
  // The lane's first element inside its token: head * head_dim + lane * w.
  Reg<U32> in_token = b.mad_lo(head, b.baked<U32>("head_dim", c.head_dim), lane_elem);
  auto x_token = in + token_start;
  auto y_token = out + token_start;
  auto x_lane = x_token + in_token;
  auto y_lane = y_token + in_token;
  auto g_lane = gamma + lane_elem;

  // 1-2. The head in registers; its sum of squares in every lane.
  std::vector<std::vector<Reg<F32>>> x;
  std::vector<Reg<F32>> squares;
  for (std::uint32_t j = 0; j < per_lane; ++j) {
    x.push_back(
        common::load_f32<E>(b, x_lane + std::int64_t{j} * stride, w, common::LoadPath::kPlain));
    for (Reg<F32> v : x.back())
      squares.push_back(squares.empty() ? b.mul(v, v) : b.fma(v, v, squares.back(), rn));
  }
  // The butterfly over the head's lane group: xor partners never leave an aligned group.
  Reg<F32> total = common::warp_all_sum(b, squares.back(), {.width = lanes});

  // 3. rstd = 1 / sqrt(mean(x^2) + eps).
  Reg<F32> mean = b.div(total, b.baked<F32>("head_dim", static_cast<float>(c.head_dim)), rn);
  Reg<F32> rstd = b.rsqrt(b.add(mean, b.baked<F32>("eps", c.eps)), approx);

  // 4. out = x * rstd * gamma.
  for (std::uint32_t j = 0; j < per_lane; ++j) {
    auto g =
        common::load_f32<E>(b, g_lane + std::int64_t{j} * stride, w, common::LoadPath::kReadOnly);
    std::vector<Reg<F32>> y = x[j];
    for (std::size_t e = 0; e < y.size(); ++e)
      y[e] = b.mul(b.mul(x[j][e], rstd), g[e]);
    auto p = y_lane + std::int64_t{j} * stride;
    if (!real_head.empty()) {
      auto only_real_heads = b.guard(real_head[0]);
      common::store_f32<E>(b, p, y);
    } else {
      common::store_f32<E>(b, p, y);
    }
  }
  b.ret();
  return finish_and_print(b, options);
}

} // namespace

ptxkit::Expected<GeneratedPtx> QkRmsNorm::build(const Config& c, const ptxgen::Target& target,
                                                const GenOptions& options) {
  return common::with_dtype(c.dtype,
                            [&]<class E>() { return build_qk_rmsnorm<E>(c, target, options); });
}

PTXKIT_REGISTER_KERNEL(QkRmsNorm);

} // namespace ptxkit::kernels
