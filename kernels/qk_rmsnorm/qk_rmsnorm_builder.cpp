// qk_rmsnorm_builder.cpp: per-head RMSNorm as PTX on ptxgen, and its registration.
//
// Block = token (%ctaid.x), warp = head (%tid.x / 32), lane = %tid.x % 32. With w the vector
// width (4, 2 or 1) and V = head_dim / (32 w) vectors per lane:
//   1. load vectors lane + 32 j (j < V) of this head into registers (plain ld: out may alias x);
//   2. sumsq over them, then a shfl.bfly tree: every lane ends with the head's full sum, so no
//      lane uses a partial sum and no broadcast is needed (PAR-118);
//   3. rstd = rsqrt.approx(sumsq / head_dim + eps), eps a baked immediate;
//   4. out = x * rstd * gamma, from the same registers.
// Offsets: the token's base is 64-bit (tokens * num_heads * head_dim may exceed 2^32); inside a
// token everything is 32-bit (at most 32 * 256 elements).
#include "qk_rmsnorm.h"

#include "../layernorm/row_block.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>

#include <optional>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

// One vector of w floats (w = 4, 2 or 1) as a list of registers.
std::vector<Reg<F32>> load_vec(KernelBuilder& b, Ptr<Global, const F32> p, std::uint32_t w,
                               bool nc) {
  if (w == 4) {
    auto v = nc ? b.ld_nc_v4(p) : b.ld_v4(p);
    return {v.begin(), v.end()};
  }
  if (w == 2) {
    auto v = nc ? b.ld_nc_v2(p) : b.ld_v2(p);
    return {v.begin(), v.end()};
  }
  return {nc ? b.ld_nc(p) : b.ld(p)};
}

void store_vec(KernelBuilder& b, Ptr<Global, F32> p, const std::vector<Reg<F32>>& v) {
  if (v.size() == 4)
    b.st_v4(p, {v[0], v[1], v[2], v[3]});
  else if (v.size() == 2)
    b.st_v2(p, {v[0], v[1]});
  else
    b.st(p, v[0]);
}

}  // namespace

ptxkit::Expected<GeneratedPtx> QkRmsNorm::build(const Config& c, const ptxgen::Target& target,
                                                const GenOptions& options) {
  const std::uint32_t w = qk_rmsnorm_vector_width(c.head_dim);
  const std::uint32_t per_lane = c.head_dim / (32 * w);  // vectors per lane
  KernelBuilder b(std::string(kName), target);
  b.reqntid(32 * c.num_heads);
  auto in = b.param<Ptr<Global, const F32>>("input");
  auto out = b.param<Ptr<Global, F32>>("output");
  auto gamma = b.param<Ptr<Global, const F32>>("gamma");

  Reg<U32> tid = b.tid_x();
  Reg<U32> token = b.ctaid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> head = b.shr(tid, b.imm<U32>(5));
  Reg<U32> lane_elem = b.mul_lo(lane, b.baked<U32>("head_dim", w));  // this lane's first element in its head
  Reg<U64> token_start =
      b.mul_wide(token, b.baked<U32>("num_heads", c.num_heads * c.head_dim));  // 64-bit
  // The lane's first element inside its token: head * head_dim + lane * w.
  Reg<U32> in_token = b.mad_lo(head, b.baked<U32>("head_dim", c.head_dim), lane_elem);
  auto x_token = in + token_start;
  auto y_token = out + token_start;
  auto x_lane = x_token + in_token;
  auto y_lane = y_token + in_token;
  auto g_lane = gamma + lane_elem;

  // 1-2. The head in registers; its sum of squares in every lane.
  std::vector<std::vector<Reg<F32>>> x;
  std::optional<Reg<F32>> sumsq;
  for (std::uint32_t j = 0; j < per_lane; ++j) {
    x.push_back(load_vec(b, x_lane + std::int64_t{j} * 32 * w, w, false));
    for (Reg<F32> v : x.back()) sumsq = sumsq ? b.fma(v, v, *sumsq, rn) : b.mul(v, v);
  }
  Reg<F32> total = row_block::warp_sum_all_lanes(b, *sumsq);

  // 3. rstd = 1 / sqrt(mean(x^2) + eps).
  Reg<F32> mean = b.div(total, b.baked<F32>("head_dim", static_cast<float>(c.head_dim)), rn);
  Reg<F32> rstd = b.rsqrt(b.add(mean, b.baked<F32>("eps", c.eps)), approx);

  // 4. out = x * rstd * gamma.
  for (std::uint32_t j = 0; j < per_lane; ++j) {
    auto g = load_vec(b, g_lane + std::int64_t{j} * 32 * w, w, true);
    std::vector<Reg<F32>> y = x[j];
    for (std::size_t e = 0; e < y.size(); ++e) y[e] = b.mul(b.mul(x[j][e], rstd), g[e]);
    store_vec(b, y_lane + std::int64_t{j} * 32 * w, y);
  }
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(QkRmsNorm);

}  // namespace ptxkit::kernels
