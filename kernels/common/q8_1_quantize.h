// q8_1_quantize.h: one ggml Q8_1 block (32 values) quantized by the lanes holding it, bit-exact to
// ggml's quantize_row_q8_1_ref (and to q8_1_quantize on the host).
//
// The block's 32 values are spread over `lanes` consecutive lanes (an aligned group of 1, 2, 4 or
// 8), each holding 32 / lanes consecutive values. The block's amax and integer sum are butterfly
// reductions inside the group (max is exact, a sum of integers too, so the lane count changes
// nothing). Every f32 operation carries an explicit rounding mode (no contraction) and follows
// ggml: d = amax / 127 (div.rn), id = d ? 1/d : 0 (rcp.rn), v = x * id (mul.rn), q = roundf(v),
// s = f32(sum q) * d; d and s go to f16 in one cvt.rn.f16x2.
//
// roundf (halfway cases away from zero) without a conversion instruction: for |v| < 2^22,
//   a = |v| + 1/2 rounded down (add.rm), then a + 2^23 rounded down (add.rm) = 2^23 + floor(a),
// whose low mantissa bits are floor(|v| + 1/2) = |roundf(v)|: rounding down cannot cross the
// integer floor(|v| + 1/2) (it is representable and <= the exact sum), and in [2^23, 2^24) the
// f32 step is 1. The sign is applied as an integer ((n ^ m) - m with m = v >> 31, arithmetic).
// |v| <= 127 (plus a few ulps) here, far inside the bound.
#pragma once

#include "common/warp_reduce.h"

#include <cstdint>
#include <ptxkit/ptxgen/ptxgen.h>
#include <span>
#include <vector>

namespace ptxkit::kernels::common {

using namespace ptxkit::ptxgen;

// roundf(v) as an s32, halfway cases away from zero; exact for |v| < 2^22.
inline Reg<S32> q8_1_round_half_away(KernelBuilder& b, Reg<F32> v) {
  Reg<F32> a = b.add(b.abs(v), b.imm<F32>(0.5f), rm);
  Reg<F32> biased = b.add(a, b.imm<F32>(8388608.0f), rm); // 2^23 + floor(a)
  Reg<S32> n = b.bitcast<S32>(b.and_(b.bitcast<U32>(biased), b.imm<U32>(0x7FFFFFu)));
  Reg<S32> sign = b.shr(b.bitcast<S32>(v), b.imm<U32>(31)); // 0 or -1
  return b.sub(b.xor_(n, sign), sign);
}

// A Q8_1 block as its lanes hold it after quantizing.
struct Q8_1Lane {
  std::vector<Reg<U32>> quants; // the lane's int8 quants, 4 per word, in value order
  Reg<F32> d;                   // amax / 127 in f32 (before the f16 rounding)
  Reg<U32> ds;                  // the block's first word: f16 d (low half), f16 s (high half)
};

// Quantizes the block whose values `v` (a multiple of 4, consecutive) this lane holds, with
// `lanes` lanes per block (1, 2, 4 or 8; lane % lanes = the lane's place in the block). Every
// lane of the warp must run it (the reductions shuffle with a full mask).
inline Q8_1Lane quantize_q8_1_block(KernelBuilder& b, std::span<const Reg<F32>> v,
                                    std::uint32_t lanes) {
  // amax: a pairwise tree over the lane's values, then over the group's lanes.
  std::vector<Reg<F32>> level;
  for (std::size_t i = 0; i + 1 < v.size(); i += 2)
    level.push_back(b.max(b.abs(v[i]), b.abs(v[i + 1])));
  while (level.size() > 1) {
    std::vector<Reg<F32>> next;
    for (std::size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(b.max(level[i], level[i + 1]));
    level = next;
  }
  Reg<F32> amax = level[0];
  if (lanes > 1)
    amax = warp_all_reduce(
        b, amax, [&](Reg<F32> m, Reg<F32> o) { return b.max(m, o); },
        ButterflyLanes{.width = lanes});
  Reg<F32> d = b.div(amax, b.imm<F32>(127.0f), rn);
  Reg<Pred> zero = b.setp(cmp::eq, d, b.imm<F32>(0.0f));
  Reg<F32> id = b.selp(b.imm<F32>(0.0f), b.rcp(d, rn), zero);

  std::vector<Reg<U32>> q;
  Reg<S32> sum = b.mov(b.imm<S32>(0));
  for (Reg<F32> vj : v) {
    Reg<S32> qi = q8_1_round_half_away(b, b.mul(vj, id, rn));
    sum = b.add(sum, qi);
    q.push_back(b.bitcast<U32>(qi));
  }
  // Bytes 0 of four quants into one word: {q0, q1} and {q2, q3} (selector 0x40), then their
  // halves.
  std::vector<Reg<U32>> words;
  for (std::size_t i = 0; i < q.size(); i += 4)
    words.push_back(b.prmt(b.prmt(q[i], q[i + 1], b.imm<U32>(0x40)),
                           b.prmt(q[i + 2], q[i + 3], b.imm<U32>(0x40)), b.imm<U32>(0x5410)));
  if (lanes > 1)
    sum = warp_all_reduce(
        b, sum, [&](Reg<S32> a, Reg<S32> o) { return b.add(a, o); },
        ButterflyLanes{.width = lanes});
  Reg<F32> s = b.mul(b.cvt<F32>(sum, rn), d, rn);
  Reg<U32> ds = b.bitcast<U32>(b.cvt_pack<F16x2>(s, d)); // d low half, s high half
  return {words, d, ds};
}

} // namespace ptxkit::kernels::common
