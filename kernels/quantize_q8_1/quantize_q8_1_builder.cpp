// quantize_q8_1_builder.cpp: the Q8_1 quantizer as PTX on ptxgen, and its registration.
//
// Thread t of the grid is lane p = t % 8 of block blk = t / 8: it quantizes x[32*blk + 4p .. +3]
// and writes word 1 + p of the block (lane 0 also word 0, ds). Blocks past the padded length
// exit; the block count is a multiple of 16 and a warp holds 4 whole blocks, so the exit is
// warp-uniform and the 8-lane butterflies stay full. Every f32 operation carries an explicit
// rounding mode (no contraction) and follows ggml's quantize_row_q8_1_ref: d = amax / 127
// (div.rn), id = d ? 1/d : 0 (rcp.rn), v = x * id (mul.rn), q = roundf(v) -- trunc(v) plus
// sign(v) when |v - trunc(v)| >= 1/2 (the difference is exact), since cvt.rni ties to even and
// roundf ties away from zero -- and s = f32(sum q) * d; d and s go to f16 in one cvt.rn.f16x2.
#include "common/warp_reduce.h"
#include "quantize_q8_1.h"

#include <array>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

// roundf(v) as an s32: halfway cases away from zero.
Reg<S32> round_half_away(KernelBuilder& b, Reg<F32> v) {
  Reg<F32> t = b.cvt<F32>(v, rzi);
  Reg<F32> frac = b.sub(v, t, rn); // exact: t and v share their leading bits
  Reg<Pred> carry = b.setp(cmp::ge, b.abs(frac), b.imm<F32>(0.5f));
  Reg<S32> step = b.selp(b.imm<S32>(-1), b.imm<S32>(1), b.setp(cmp::lt, v, b.imm<F32>(0.0f)));
  Reg<S32> ti = b.cvt<S32>(t, rzi); // t is integral: exact
  return b.add(ti, b.selp(step, b.imm<S32>(0), carry));
}

} // namespace

ptxkit::Expected<GeneratedPtx> QuantizeQ8_1::build(const Config& c, const ptxgen::Target& target,
                                                   const GenOptions& options) {
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  auto x = b.param<Ptr<Global, const F32>>("x");
  auto out = b.param<Ptr<Global, U32>>("x_q8");
  Label finished = b.new_label("finished");

  Reg<U32> tid = b.tid_x();
  Reg<U32> gt = b.mad_lo(b.ctaid_x(), b.imm<U32>(kThreads), tid);
  Reg<U32> blk = b.shr(gt, b.imm<U32>(3));
  Reg<U32> part = b.and_(gt, b.imm<U32>(7));
  b.bra_if(!b.setp(cmp::lt, blk, b.baked<U32>("cols", c.blocks())), finished);

  // The lane's 4 values; a float4 at or past cols (cols % 4 == 0) is read in bounds and zeroed.
  Reg<U32> k = b.shl(gt, b.imm<U32>(2));
  std::array<Reg<F32>, 4> v = b.ld_nc_v4(x + b.min(k, b.baked<U32>("cols", c.cols - 4)));
  Reg<Pred> inside = b.setp(cmp::lt, k, b.baked<U32>("cols", c.cols));
  for (auto& r : v)
    r = b.selp(r, b.imm<F32>(0.0f), inside);

  Reg<F32> amax = b.max(b.max(b.abs(v[0]), b.abs(v[1])), b.max(b.abs(v[2]), b.abs(v[3])));
  amax = common::warp_all_reduce(
      b, amax, [&](Reg<F32> m, Reg<F32> o) { return b.max(m, o); },
      common::ButterflyLanes{.width = 8});
  Reg<F32> d = b.div(amax, b.imm<F32>(127.0f), rn);
  Reg<Pred> zero = b.setp(cmp::eq, d, b.imm<F32>(0.0f));
  Reg<F32> id = b.selp(b.imm<F32>(0.0f), b.rcp(d, rn), zero);

  std::vector<Reg<U32>> q;
  Reg<S32> sum = b.mov(b.imm<S32>(0));
  for (Reg<F32> vj : v) {
    Reg<S32> qi = round_half_away(b, b.mul(vj, id, rn));
    sum = b.add(sum, qi);
    q.push_back(b.bitcast<U32>(qi));
  }
  // Bytes 0 of q0..q3 into one word: {q0, q1} and {q2, q3} (selector 0x40), then their halves.
  Reg<U32> word = b.prmt(b.prmt(q[0], q[1], b.imm<U32>(0x40)), b.prmt(q[2], q[3], b.imm<U32>(0x40)),
                         b.imm<U32>(0x5410));
  sum = common::warp_all_reduce(
      b, sum, [&](Reg<S32> a, Reg<S32> o) { return b.add(a, o); },
      common::ButterflyLanes{.width = 8});

  Reg<U32> block_word = b.mul_lo(blk, b.imm<U32>(kQ8_1Words));
  b.st(out + b.add(b.add(block_word, part), b.imm<U32>(1)), word);
  Reg<F32> s = b.mul(b.cvt<F32>(sum, rn), d, rn);
  Reg<U32> ds = b.bitcast<U32>(b.cvt_pack<F16x2>(s, d)); // d low half, s high half
  {
    auto lane0 = b.guard(b.setp(cmp::eq, part, b.imm<U32>(0)));
    b.st(out + block_word, ds);
  }
  b.place(finished);
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(QuantizeQ8_1);

} // namespace ptxkit::kernels
