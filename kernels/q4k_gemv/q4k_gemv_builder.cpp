// q4k_gemv_builder.cpp: the Q4_K GEMV as PTX on ptxgen, and its registration.
//
// Warp w of block %ctaid.x computes rows 2*(8*block + w) and the next one (clamped to the last
// row for loading, its store skipped when it does not exist). Lane = (group g = lane/8,
// part p = lane%8); in step i it takes super-block sb = 4*i + g of both rows:
//   header  = ld.global.nc.v4.u32 [row + 36*sb]          d|dmin, scales[0..11]
//   quants  = ld.global.nc.v4.u32 [row + 36*sb + 4 + 4p]  bytes 16p .. 16p+15 of qs
//   x_lo/hi = 4 + 4 ld.global.nc.v4.f32 at sb*256 + 64*(p/2) + 16*(p%2) (+32 for the high nibbles)
// The lane's two sub-blocks are 2*(p/2) (low nibbles) and 2*(p/2)+1 (high nibbles); their 6-bit
// scales/mins are unpacked branch-free (selp on p/2 < 2) from the header words shifted by
// 16*((p/2)&1). Ints become floats without cvt: (v | 0x4B000000) as f32 is 2^23 + v, and a
// nibble placed in mantissa bits 19..22 under 0x3F800000 is 1 + q/16, so
//   sum q x = 16 * (sum (1 + q/16) x - sum x)
//   y += 16 d sc * (F - X) - dmin m * X            per sub-block, F = sum f x, X = sum x
// Steps whose four super-blocks are all whole (4*i + 3 < cols/256) run in a loop without guards;
// one last step (when cols is not a multiple of 1024) clamps sb to the row's last super-block and
// reads each float4 of x at min(k, cols-4), zeroing it when k >= cols, so x is never read past
// cols and padding values contribute exactly 0. The warp sums each row with shfl.down; only lane 0
// uses (stores) the result, so no broadcast is needed.
#include "q4k_gemv.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>

#include <array>
#include <memory>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

constexpr std::uint32_t kRowsPerWarp = Q4kGemv::kRowsPerWarp;

struct RowState {
  RowState(KernelBuilder& b, Ptr<Global, const U32> w)
      : row(w), acc(b.var<F32>(b.imm<F32>(0.0f), "row_acc")) {}
  Ptr<Global, const U32> row;  // first word of the row
  Var<F32> acc;
};

// (v | 0x4B000000) - 2^23: a small non-negative integer as f32, exactly, without cvt.
Reg<F32> small_int_to_f32(KernelBuilder& b, Reg<U32> v) {
  Reg<F32> biased = b.bitcast<F32>(b.or_(v, b.imm<U32>(0x4B000000u)));
  return b.sub(biased, b.imm<F32>(8388608.0f));
}

// The nibble at bit `bit` of `word` as the f32 1 + q/16 (moved to mantissa bits 19..22).
Reg<F32> nibble_as_f32(KernelBuilder& b, Reg<U32> word, int bit) {
  Reg<U32> moved = bit <= 19 ? b.shl(word, b.imm<U32>(static_cast<std::uint32_t>(19 - bit)))
                             : b.shr(word, b.imm<U32>(static_cast<std::uint32_t>(bit - 19)));
  Reg<U32> bits = b.or_(b.and_(moved, b.imm<U32>(0x00780000u)), b.imm<U32>(0x3F800000u));
  return b.bitcast<F32>(bits);
}

struct LaneConsts {
  Reg<U32> group, part, shift, x_off, q_word;
  Reg<Pred> upper;  // sub-blocks 4..7 (p/2 >= 2): the split 6-bit encoding
};

// One step over super-block sb (clamped to sb_w for the weights) of every row.
void step(KernelBuilder& b, const Q4kGemvConfig& c, const LaneConsts& lc,
          Ptr<Global, const F32> x, Reg<U32> sb, Reg<U32> sb_w, bool guard_x,
          std::vector<std::unique_ptr<RowState>>& rows) {
  // x: 16 values of the low sub-block, 16 of the high one (32 further on).
  Reg<U32> k_lo = b.mad_lo(sb, b.imm<U32>(256), lc.x_off);
  std::vector<Reg<F32>> xv[2];
  for (int half = 0; half < 2; ++half) {
    for (std::uint32_t f = 0; f < 4; ++f) {
      Reg<U32> k = b.add(k_lo, b.imm<U32>(32u * static_cast<std::uint32_t>(half) + 4u * f));
      std::array<Reg<F32>, 4> v = [&] {
        if (!guard_x) return b.ld_nc_v4(x + k);
        // Tail guard: a float4 at or past cols is read from cols-4 (in bounds) and zeroed.
        Reg<U32> k_in = b.min(k, b.baked<U32>("cols", c.cols - 4));
        std::array<Reg<F32>, 4> raw = b.ld_nc_v4(x + k_in);
        Reg<Pred> inside = b.setp(cmp::lt, k, b.baked<U32>("cols", c.cols));
        for (auto& r : raw) r = b.selp(r, b.imm<F32>(0.0f), inside);
        return raw;
      }();
      for (auto& r : v) xv[half].push_back(r);
    }
  }
  std::vector<Reg<F32>> neg_xsum;  // -X of each sub-block (shared by the rows)
  for (const auto& v : xv) {
    Reg<F32> s = v[0];
    for (std::size_t i = 1; i < v.size(); ++i) s = b.add(s, v[i]);
    neg_xsum.push_back(b.neg(s));
  }

  Reg<U32> block_word = b.mul_lo(sb_w, b.imm<U32>(36));
  Reg<U32> quant_word = b.add(block_word, lc.q_word);
  for (auto& r : rows) {
    std::array<Reg<U32>, 4> hdr = b.ld_nc_v4(r->row + block_word);
    std::array<Reg<U32>, 4> qs = b.ld_nc_v4(r->row + quant_word);
    // d and dmin (f16 halves of word 0).
    auto halves = b.unpack<F16>(hdr[0]);
    Reg<F32> d16 = b.mul(b.cvt<F32>(halves[0]), b.imm<F32>(16.0f));
    Reg<F32> dmin = b.cvt<F32>(halves[1]);
    // The two sub-blocks' 6-bit scales and mins (ggml get_scale_min_k4, branch-free).
    Reg<U32> a = b.shr(hdr[1], lc.shift);   // bytes j', j'+1 of scales[0..3]
    Reg<U32> bq = b.shr(hdr[2], lc.shift);  // bytes j', j'+1 of scales[4..7]
    Reg<U32> cq = b.shr(hdr[3], lc.shift);  // bytes j', j'+1 of scales[8..11]
    auto lo6 = [&](Reg<U32> v, std::uint32_t s) {
      return b.and_(s == 0 ? v : b.shr(v, b.imm<U32>(s)), b.imm<U32>(63));
    };
    auto split6 = [&](Reg<U32> low4, std::uint32_t s_low, Reg<U32> high2, std::uint32_t s_high) {
      Reg<U32> l = b.and_(s_low == 0 ? low4 : b.shr(low4, b.imm<U32>(s_low)), b.imm<U32>(15));
      Reg<U32> h = b.and_(b.shr(high2, b.imm<U32>(s_high)), b.imm<U32>(0x30));
      return b.or_(l, h);
    };
    Reg<U32> sc_lo = b.selp(split6(cq, 0, a, 2), lo6(a, 0), lc.upper);
    Reg<U32> sc_hi = b.selp(split6(cq, 8, a, 10), lo6(a, 8), lc.upper);
    Reg<U32> m_lo = b.selp(split6(cq, 4, bq, 2), lo6(bq, 0), lc.upper);
    Reg<U32> m_hi = b.selp(split6(cq, 12, bq, 10), lo6(bq, 8), lc.upper);
    std::array<Reg<F32>, 2> dsc = {b.mul(d16, small_int_to_f32(b, sc_lo)),
                                   b.mul(d16, small_int_to_f32(b, sc_hi))};
    std::array<Reg<F32>, 2> dm = {b.mul(dmin, small_int_to_f32(b, m_lo)),
                                  b.mul(dmin, small_int_to_f32(b, m_hi))};
    // F = sum (1 + q/16) x over the lane's 16 values of each sub-block.
    Reg<F32> acc = r->acc.read();
    for (int half = 0; half < 2; ++half) {
      Reg<F32> f_sum = b.mul(nibble_as_f32(b, qs[0], 4 * half), xv[half][0]);
      for (int t = 1; t < 16; ++t) {
        Reg<F32> f = nibble_as_f32(b, qs[static_cast<std::size_t>(t / 4)], 8 * (t % 4) + 4 * half);
        f_sum = b.fma(f, xv[half][static_cast<std::size_t>(t)], f_sum, rn);
      }
      const auto hh = static_cast<std::size_t>(half);
      // 16 d sc (F - X) - dmin m X, with neg_xsum = -X.
      acc = b.fma(dsc[hh], b.add(f_sum, neg_xsum[hh]), acc, rn);
      acc = b.fma(dm[hh], neg_xsum[hh], acc, rn);
    }
    r->acc.assign(acc);
  }
}

}  // namespace

ptxkit::Expected<GeneratedPtx> Q4kGemv::build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
  const std::uint32_t nblk = c.blocks_per_row();
  const std::uint32_t full_steps = (c.cols / 256) / 4;  // steps of four whole super-blocks
  const bool tail_step = full_steps * 4 < nblk;
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  auto w = b.param<Ptr<Global, const U32>>("w_q4k");
  auto x = b.param<Ptr<Global, const F32>>("x");
  auto y = b.param<Ptr<Global, F32>>("y");

  Reg<U32> tid = b.tid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<U32> row_a = b.mul_lo(b.mad_lo(b.ctaid_x(), b.imm<U32>(kWarps), warp),
                            b.imm<U32>(kRowsPerWarp));
  const Imm<U32> num_rows = b.baked<U32>("rows", c.rows);
  Label finished = b.new_label("finished");
  b.bra_if(!b.setp(cmp::lt, row_a, num_rows), finished);  // the whole warp is past the matrix
  Reg<U32> row_b = b.add(row_a, b.imm<U32>(1));
  Reg<Pred> has_b = b.setp(cmp::lt, row_b, num_rows);
  Reg<U32> row_b_in = b.min(row_b, b.baked<U32>("rows", c.rows - 1));
  const Imm<U32> row_words = b.baked<U32>("cols", c.row_words());
  std::vector<std::unique_ptr<RowState>> rows;
  rows.push_back(std::make_unique<RowState>(b, w + b.mul_wide(row_a, row_words)));
  rows.push_back(std::make_unique<RowState>(b, w + b.mul_wide(row_b_in, row_words)));

  Reg<U32> group = b.shr(lane, b.imm<U32>(3));
  Reg<U32> part = b.and_(lane, b.imm<U32>(7));
  Reg<U32> pair = b.shr(part, b.imm<U32>(1));  // 64-value group of the quants: 0..3
  const LaneConsts lc{
      .group = group,
      .part = part,
      .shift = b.shl(b.and_(pair, b.imm<U32>(1)), b.imm<U32>(4)),
      .x_off = b.add(b.shl(pair, b.imm<U32>(6)), b.shl(b.and_(part, b.imm<U32>(1)), b.imm<U32>(4))),
      .q_word = b.add(b.shl(part, b.imm<U32>(2)), b.imm<U32>(4)),
      .upper = b.setp(cmp::ge, pair, b.imm<U32>(2))};

  if (full_steps > 0) {
    Var<U32> sb = b.var<U32>(lc.group, "super_block");
    Label loop = b.new_label("block_loop");
    Label done = b.new_label("block_done");
    b.place(loop);
    Reg<U32> s = sb.read();
    b.bra_if(!b.setp(cmp::lt, s, b.baked<U32>("cols", full_steps * 4)), done);
    step(b, c, lc, x, s, s, /*guard_x=*/false, rows);
    sb.assign(b.add(s, b.imm<U32>(4)));
    b.bra(loop);
    b.place(done);
  }
  if (tail_step) {
    Reg<U32> s = b.add(lc.group, b.baked<U32>("cols", full_steps * 4));
    Reg<U32> s_w = b.min(s, b.baked<U32>("cols", nblk - 1));
    step(b, c, lc, x, s, s_w, /*guard_x=*/true, rows);
  }

  // Row sums: shfl.down tree; only lane 0 uses (stores) the total.
  std::array<Reg<F32>, kRowsPerWarp> total = {rows[0]->acc.read(), rows[1]->acc.read()};
  for (auto& t : total)
    for (std::uint32_t delta : {16u, 8u, 4u, 2u, 1u}) t = b.add(t, b.shfl_down(t, b.imm<U32>(delta)));
  auto y_a = y + row_a;
  auto y_b = y + row_b_in;
  Reg<Pred> lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  {
    auto only_lane0 = b.guard(lane0);
    b.st(y_a, total[0]);
  }
  {
    auto only_lane0_b = b.guard(b.and_(lane0, has_b));
    b.st(y_b, total[1]);
  }
  b.place(finished);
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(Q4kGemv);

}  // namespace ptxkit::kernels
