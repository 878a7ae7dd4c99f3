// q4k_gemv_builder.cpp: the Q4_K GEMV as PTX on ptxgen, and its registration.
//
// The 8 warps of block %ctaid.x form 8/S row groups of S = step_split() warps; group q computes
// the R = rows_per_warp() rows starting at the block's first row + R*q, warp j of the group
// taking the steps j, j+S, ... (with S > 1 the S row sums meet in shared memory, one bar.sync
// before and one after); blocks stride over batches by %nctaid.x, the loop condition being the
// block's first row (uniform, so the barriers are reached by all). A row past the matrix is
// clamped to the last for loading and its store skipped. Lane = (group g = lane/8,
// part p = lane%8); in step i it takes super-block sb = 4*i + g of every row of the batch:
//   header  = ld.global.nc.v4.u32 [row + 36*sb]          d|dmin, scales[0..11]
//   quants  = ld.global.nc.v4.u32 [row + 36*sb + 4 + 4p]  bytes 16p .. 16p+15 of qs
//   x       = 8 ld.global.nc.v4.f32 at sb*256 + 64*(p/2) + 16*(p%2) (+32 for the high nibbles),
//             shared by the batch's rows (loaded once per warp when the row is one step)
// Lane p decodes the 6-bit scale/min of sub-block p (ggml get_scale_min_k4, branch-free: selp on
// p >= 4, header words shifted by 8*(p&3)), turns them into floats without cvt
// ((v | 0x4B000000) - 2^23), scales by d and dmin, and the lanes needing sub-blocks
// 2*(p/2) and 2*(p/2)+1 fetch them with shfl.idx from lanes (lane & ~1) and (lane | 1).
// A nibble at bit b (b <= 16; higher nibbles come from the word shifted right by 12) is masked in
// place: as an f32 it is the denormal q * 2^(b-149), and fma(q_f, x * 2^(85-b), acc) adds
// q * x * 2^-64 exactly; d carries the 2^64 back. Per sub-block: y += d sc Q - dmin m X.
// Steps whose four super-blocks are all whole run in a loop without guards; one last step (cols
// not a multiple of 1024) clamps sb to the row's last super-block and reads each float4 of x at
// min(k, cols-4), zeroing it when k >= cols, so x is never read past cols and padding values
// contribute exactly 0. Each row is summed with shfl.down; only lane 0 uses (stores) the result,
// so no broadcast is needed.
// batch = M > 1: a RowState holds M accumulators; a step's x slice is loaded for every vector
// (vector m's f32 x at m*cols, its Q8_1 words at m*x_q8_words(), its shared Q8_1 copy in region m)
// and each decoded nibble (f32: one `and`) or unpacked quant word (dp4a: one `and`, one shr for
// the high nibbles) meets the M vectors' x in M fmas or dp4a; the header's scales are decoded and
// shuffled once per row. The row sums of vector m are stored at y + m*rows (the split's partials
// at m * 8 * rows_per_warp in shared memory). x is not kept in registers across row batches.
#include "common/q8_1_quantize.h"
#include "common/warp_reduce.h"
#include "q4k_gemv.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <memory>
#include <optional>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <variant>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

// A row of the warp's batch: its first word and one accumulator per x vector.
struct RowState {
  RowState(KernelBuilder& b, Ptr<Global, const U32> w, std::uint32_t vectors) : row(w) {
    for (std::uint32_t m = 0; m < vectors; ++m)
      acc.emplace_back(new Var<F32>(b.var<F32>(b.imm<F32>(0.0f), "row_acc")));
  }
  Ptr<Global, const U32> row; // first word of the row
  std::vector<std::unique_ptr<Var<F32>>> acc;
};
// Reads every accumulator of a row (vector order) and writes them back.
std::vector<Reg<F32>> read_all(const RowState& r) {
  std::vector<Reg<F32>> v;
  for (const auto& a : r.acc)
    v.push_back(a->read());
  return v;
}
void assign_all(RowState& r, const std::vector<Reg<F32>>& v) {
  for (std::size_t m = 0; m < v.size(); ++m)
    r.acc[m]->assign(v[m]);
}

// (v | 0x4B000000) - 2^23: a small non-negative integer as f32, exactly, without cvt.
Reg<F32> small_int_to_f32(KernelBuilder& b, Reg<U32> v) {
  Reg<F32> biased = b.bitcast<F32>(b.or_(v, b.imm<U32>(0x4B000000u)));
  return b.sub(biased, b.imm<F32>(8388608.0f));
}

// Where value t (0..15) of half h (0: low nibbles, 1: high nibbles) of a lane's 16 quant bytes
// sits: word t/4, bit 8*(t%4) + 4*h. Nibbles above bit 16 are taken from the word shifted right
// by 12, so every nibble is masked inside the mantissa (bits 0..19) of an f32 with a zero
// exponent: the denormal q * 2^(bit - 149), read with a plain `and`, exact, no conversion.
struct NibbleSlot {
  std::size_t word;
  bool shifted;
  int bit; // in the (possibly shifted) word
};
NibbleSlot nibble_slot(int half, int t) {
  const int bit = 8 * (t % 4) + 4 * half;
  return bit <= 16 ? NibbleSlot{static_cast<std::size_t>(t / 4), false, bit}
                   : NibbleSlot{static_cast<std::size_t>(t / 4), true, bit - 12};
}
// The product of the denormal nibble and x * 2^(85 - bit) is q * x * 2^-64, exact in the fma;
// the row sums are scaled back by 2^64 with the sub-block scale.
constexpr int kSumExp = 64;
float x_scale_for(int bit) {
  return std::ldexp(1.0f, 149 - bit - kSumExp);
}

struct LaneConsts {
  // x_off: the lane's first x element (f32) or word of its low quants (q8_1) in a super-block.
  Reg<U32> group, shift, x_off, q_word, src_lo, src_hi;
  Reg<Pred> upper; // this lane decodes sub-block part >= 4: the split 6-bit encoding
  std::optional<Reg<U32>> x_ds_off; // q8_1: word of the low sub-block's ds in a super-block
};

// d*sc and dmin*m of the lane's two sub-blocks (low and high nibbles) from a super-block's
// header words.
struct SubBlockScales {
  std::array<Reg<F32>, 2> dsc, dm;
};
SubBlockScales sub_block_scales(KernelBuilder& b, const LaneConsts& lc,
                                const std::array<Reg<U32>, 4>& hdr, std::optional<float> d_factor) {
  // d and dmin (f16 halves of word 0), d times d_factor when given.
  auto halves = b.unpack<F16>(hdr[0]);
  Reg<F32> d =
      d_factor ? b.mul(b.cvt<F32>(halves[0]), b.imm<F32>(*d_factor)) : b.cvt<F32>(halves[0]);
  Reg<F32> dmin = b.cvt<F32>(halves[1]);
  // This lane decodes sub-block `part` (ggml get_scale_min_k4), branch-free: bytes part&3 of
  // scales[0..3], [4..7], [8..11] are the low bytes of the header words shifted by 8*(part&3).
  Reg<U32> a = b.shr(hdr[1], lc.shift);
  Reg<U32> bq = b.shr(hdr[2], lc.shift);
  Reg<U32> cq = b.shr(hdr[3], lc.shift);
  Reg<U32> sc_split =
      b.or_(b.and_(cq, b.imm<U32>(15)), b.and_(b.shr(a, b.imm<U32>(2)), b.imm<U32>(0x30)));
  Reg<U32> m_split = b.or_(b.and_(b.shr(cq, b.imm<U32>(4)), b.imm<U32>(15)),
                           b.and_(b.shr(bq, b.imm<U32>(2)), b.imm<U32>(0x30)));
  Reg<U32> sc = b.selp(sc_split, b.and_(a, b.imm<U32>(63)), lc.upper);
  Reg<U32> m = b.selp(m_split, b.and_(bq, b.imm<U32>(63)), lc.upper);
  Reg<F32> dsc = b.mul(d, small_int_to_f32(b, sc));
  Reg<F32> dm = b.mul(dmin, small_int_to_f32(b, m));
  // The lane's two sub-blocks were decoded by lanes part & ~1 and part | 1 of its group.
  return {{b.shfl_idx(dsc, lc.src_lo), b.shfl_idx(dsc, lc.src_hi)},
          {b.shfl_idx(dm, lc.src_lo), b.shfl_idx(dm, lc.src_hi)}};
}

// The lane's Q8_1 x of one step: per half (low/high nibbles' sub-block), its 4 words of int8
// (16 values), d8 and -s/2 (the two lanes of a sub-block each add half its min term).
struct Q8Slice {
  std::array<std::vector<Reg<S32>>, 2> q;
  std::vector<Reg<F32>> d8, neg_half_s;
};

// The Q8_1 words of super-block sb for this lane. guard: sb may be past the row's last
// super-block (the last step): read the last one and zero d8 and s, so the lane adds exactly 0.
Q8Slice load_x_q8(KernelBuilder& b, const Q4kGemvConfig& c, const LaneConsts& lc,
                  Ptr<Global, const U32> xq, Reg<U32> sb, bool guard) {
  const std::uint32_t sb_words = 8 * kQ8_1Words;
  Reg<U32> sb_in = guard ? b.min(sb, b.baked<U32>("cols", c.blocks_per_row() - 1)) : sb;
  Reg<U32> base = b.mul_lo(sb_in, b.imm<U32>(sb_words));
  auto quants = xq + b.add(base, lc.x_off);
  auto ds = xq + b.add(base, *lc.x_ds_off);
  std::optional<Reg<Pred>> inside;
  if (guard) inside = b.setp(cmp::lt, sb, b.baked<U32>("cols", c.blocks_per_row()));
  Q8Slice out;
  for (std::uint32_t half = 0; half < 2; ++half) {
    for (std::uint32_t w = 0; w < 4; ++w)
      out.q[half].push_back(b.bitcast<S32>(b.ld_nc(quants + (kQ8_1Words * half + w))));
    auto dsh = b.unpack<F16>(b.ld_nc(ds + kQ8_1Words * half));
    Reg<F32> d8 = b.cvt<F32>(dsh[0]);
    Reg<F32> nhs = b.mul(b.cvt<F32>(dsh[1]), b.imm<F32>(-0.5f));
    if (inside) {
      d8 = b.selp(d8, b.imm<F32>(0.0f), *inside);
      nhs = b.selp(nhs, b.imm<F32>(0.0f), *inside);
    }
    out.d8.push_back(d8);
    out.neg_half_s.push_back(nhs);
  }
  return out;
}

// x_format = f32_q8_1: the block's Q8_1 copy of x in shared memory, laid out for the lanes'
// reads rather than as ggml's 36-byte blocks. Per super-block sb:
//   quants  64 words at 64*sb: words 4p .. 4p+3 are lane part p's 16 low-nibble x values
//           (values 64*(p/2) + 16*(p%2) ..), words 32 + 4p .. the 16 high-nibble ones (32 further
//           on): one conflict-free ld.shared.v4 per half, 8 lanes reading 32 consecutive words;
//   ds      16 floats at 16*sb: per sub-block j, {d8, -s/2} at 2j, the f16 d and s of its Q8_1
//           block widened (and s halved) exactly as the q8_1 path does after loading them, so
//           the two paths' results are bit-identical on the same x.
struct SharedXq {
  Ptr<Shared, U32> quants;
  Ptr<Shared, F32> ds;
};
constexpr std::uint32_t kSharedQuantWords = 64; // per super-block
constexpr std::uint32_t kSharedDsFloats = 16;   // per super-block
constexpr std::uint32_t kFusedMinBlocksPerSm = 3;
constexpr std::uint32_t kQuantizePassSuperBlocks = 16; // 128 Q8_1 blocks: 2 lanes each
// Super-blocks of one vector's region: every pass of the quantizer whole (the last one may reach
// past the row). Vector m's region starts at m * vector_super_blocks(c).
std::uint32_t vector_super_blocks(const Q4kGemvConfig& c) {
  const std::uint32_t passes =
      (c.blocks_per_row() + kQuantizePassSuperBlocks - 1) / kQuantizePassSuperBlocks;
  return passes * kQuantizePassSuperBlocks;
}
// Super-blocks the shared arrays hold: the vectors' regions, and in the last one super-block
// 4*full_steps + 2: the step loop's base + group, with base below 4*full_steps, a multiple of 4
// the verifier's interval analysis does not see (never read).
std::uint32_t shared_super_blocks(const Q4kGemvConfig& c) {
  return (c.batch - 1) * vector_super_blocks(c) +
         std::max(vector_super_blocks(c), (c.cols / 256) / 4 * 4 + 3);
}
// Vector m's part of the shared copy.
SharedXq vector_region(const SharedXq& xs, const Q4kGemvConfig& c, std::uint32_t m) {
  if (m == 0) return xs;
  const std::int64_t sbs = std::int64_t{m} * vector_super_blocks(c);
  return {xs.quants + sbs * kSharedQuantWords, xs.ds + sbs * kSharedDsFloats};
}

// The Q8_1 slice of super-block sb for this lane from the shared copy; guard as load_x_q8's.
Q8Slice load_x_q8_shared(KernelBuilder& b, const Q4kGemvConfig& c, const LaneConsts& lc,
                         const SharedXq& xs, Reg<U32> sb, bool guard) {
  Reg<U32> sb_in = guard ? b.min(sb, b.baked<U32>("cols", c.blocks_per_row() - 1)) : sb;
  Reg<U32> quant_word = b.mad_lo(sb_in, b.imm<U32>(kSharedQuantWords), lc.x_off);
  std::array<Reg<U32>, 4> lo = b.ld_v4(xs.quants + quant_word);
  std::array<Reg<U32>, 4> hi = b.ld_v4(xs.quants + b.add(quant_word, b.imm<U32>(32)));
  std::array<Reg<F32>, 4> ds =
      b.ld_v4(xs.ds + b.mad_lo(sb_in, b.imm<U32>(kSharedDsFloats), *lc.x_ds_off));
  std::optional<Reg<Pred>> inside;
  if (guard) inside = b.setp(cmp::lt, sb, b.baked<U32>("cols", c.blocks_per_row()));
  Q8Slice out;
  for (std::size_t w = 0; w < 4; ++w) {
    out.q[0].push_back(b.bitcast<S32>(lo[w]));
    out.q[1].push_back(b.bitcast<S32>(hi[w]));
  }
  for (std::size_t half = 0; half < 2; ++half) {
    Reg<F32> d8 = ds[2 * half];
    Reg<F32> nhs = ds[2 * half + 1];
    if (inside) {
      d8 = b.selp(d8, b.imm<F32>(0.0f), *inside);
      nhs = b.selp(nhs, b.imm<F32>(0.0f), *inside);
    }
    out.d8.push_back(d8);
    out.neg_half_s.push_back(nhs);
  }
  return out;
}

// x (cols f32) to the block's shared Q8_1 copy, by all 256 threads: two lanes per Q8_1 block
// (16 values each, four float4 loads), 128 blocks (16 super-blocks) per pass, ceil(cols/256)*8
// blocks in all; values at or past cols are quantized as 0, as quantize_q8_1 pads. Thread t is lane
// h = t % 2 of block bi = t / 2 (+ 128 per pass): its quants are words 4h .. 4h+3 of the block's 8
// in the shared layout, 64*(bi/8) + 32*(bi%2) + 8*((bi%8)/2) + 4h; lane 0 writes the block's {d8,
// -s/2}. With several vectors, each is quantized so in turn into its own region.
void quantize_x_to_shared(KernelBuilder& b, const Q4kGemvConfig& c, Ptr<Global, const F32> x,
                          const SharedXq& xs, Reg<U32> tid) {
  constexpr std::uint32_t kLanes = 2;
  constexpr std::uint32_t kValues = kQ8_1Values / kLanes;
  constexpr std::uint32_t kBlocksPerPass = Q4kGemv::kThreads / kLanes;
  static_assert(kBlocksPerPass == kQuantizePassSuperBlocks * 8);
  const std::uint32_t blocks = c.blocks_per_row() * 8;
  const std::uint32_t passes = (blocks + kBlocksPerPass - 1) / kBlocksPerPass;
  Reg<U32> h = b.and_(tid, b.imm<U32>(1));
  Reg<U32> bi0 = b.shr(tid, b.imm<U32>(1));
  Reg<U32> k0 = b.mul_lo(tid, b.imm<U32>(kValues));
  // 8*(bi & ~7) + 32*(bi & 1) + 4*(bi & 6) + 4h
  Reg<U32> q_word0 =
      b.add(b.add(b.shl(b.and_(bi0, b.imm<U32>(~7u)), b.imm<U32>(3)),
                  b.shl(b.and_(bi0, b.imm<U32>(1)), b.imm<U32>(5))),
            b.add(b.shl(b.and_(bi0, b.imm<U32>(6)), b.imm<U32>(2)), b.shl(h, b.imm<U32>(2))));
  Reg<U32> ds0 = b.shl(bi0, b.imm<U32>(1));
  Reg<Pred> lane0 = b.setp(cmp::eq, h, b.imm<U32>(0));
  for (std::uint32_t m = 0; m < c.batch; ++m) {
    // Vector m: its x at m*cols, its copy in its own region.
    const Ptr<Global, const F32> xm = m == 0 ? x : x + std::int64_t{m} * c.cols;
    const SharedXq xsm = vector_region(xs, c, m);
    for (std::uint32_t pass = 0; pass < passes; ++pass) {
      const std::uint32_t first_block = pass * kBlocksPerPass;
      const std::uint32_t first_value = first_block * kQ8_1Values;
      // Whether some value of this pass is at or past cols: guard the loads. (A last pass that
      // reaches past the row's blocks writes zero blocks into the arrays' padding.)
      const bool guard_x = first_value + kBlocksPerPass * kQ8_1Values > c.cols;
      std::vector<Reg<F32>> v;
      for (std::uint32_t f = 0; f < kValues / 4; ++f) {
        const std::uint32_t offset = first_value + 4 * f;
        Reg<U32> k = offset == 0 ? k0 : b.add(k0, b.imm<U32>(offset));
        std::array<Reg<F32>, 4> raw = [&] {
          if (!guard_x) return b.ld_nc_v4(xm + k);
          // A float4 at or past cols (a multiple of 4) is read from cols - 4 and zeroed.
          std::array<Reg<F32>, 4> r = b.ld_nc_v4(xm + b.min(k, b.baked<U32>("cols", c.cols - 4)));
          Reg<Pred> inside = b.setp(cmp::lt, k, b.baked<U32>("cols", c.cols));
          for (auto& e : r)
            e = b.selp(e, b.imm<F32>(0.0f), inside);
          return r;
        }();
        v.insert(v.end(), raw.begin(), raw.end());
      }
      const common::Q8_1Lane q = common::quantize_q8_1_block(b, v, kLanes);
      // The widened d8 and -s/2 the dp4a path multiplies by (as load_x_q8 makes them).
      auto dsh = b.unpack<F16>(q.ds);
      std::array<Reg<F32>, 2> ds_f = {b.cvt<F32>(dsh[0]),
                                      b.mul(b.cvt<F32>(dsh[1]), b.imm<F32>(-0.5f))};
      Reg<U32> q_word =
          pass == 0 ? q_word0
                    : b.add(q_word0, b.imm<U32>(pass * kBlocksPerPass / 8 * kSharedQuantWords));
      Reg<U32> ds_at = pass == 0 ? ds0 : b.add(ds0, b.imm<U32>(2 * first_block));
      b.st_v4(xsm.quants + q_word, {q.quants[0], q.quants[1], q.quants[2], q.quants[3]});
      {
        auto only_lane0 = b.guard(lane0);
        b.st_v2(xsm.ds + ds_at, ds_f);
      }
    }
  }
}

// The words of a row's super-block a lane reads: its header (d|dmin, scales) and its 16 quant
// bytes, as word offsets from the row's start.
struct StepWords {
  Reg<U32> block_word, quant_word;
};
StepWords step_words(KernelBuilder& b, const LaneConsts& lc, Reg<U32> sb_w) {
  Reg<U32> block_word = b.mul_lo(sb_w, b.imm<U32>(36));
  return {block_word, b.add(block_word, lc.q_word)};
}
struct RowWeights {
  std::array<Reg<U32>, 4> hdr, qs;
};
RowWeights load_row(KernelBuilder& b, const RowState& r, const StepWords& at) {
  std::array<Reg<U32>, 4> hdr = b.ld_nc_v4(r.row + at.block_word);
  return {hdr, b.ld_nc_v4(r.row + at.quant_word)};
}

// dp4a's sum starts at the bits of 1.5 * 2^23: the int32 result, read as an f32, is then
// 1.5 * 2^23 + dot exactly (|dot| <= 16 * 15 * 128 < 2^22 stays inside the mantissa), and one
// full-rate sub.f32 gives the dot as a float where cvt.rn.f32.s32 runs at a quarter of the rate.
// Exact either way; used with several vectors, where the conversions multiply.
constexpr std::int32_t kDotBiasBits = 0x4B400000;
constexpr float kDotBias = 12582912.0f;

// One row's super-block against the Q8_1 slices of the x vectors: the nibbles are unpacked once,
// then 8 dp4a per vector, its integer sums combined in f32 with d*sc, d8, dmin*m and s.
void row_dp4a(KernelBuilder& b, const LaneConsts& lc, const std::vector<Q8Slice>& xsl,
              const RowWeights& wt, RowState& r) {
  const SubBlockScales sbs = sub_block_scales(b, lc, wt.hdr, std::nullopt);
  const std::size_t vectors = xsl.size();
  const bool biased = vectors > 1;
  std::vector<Reg<F32>> acc = read_all(r);
  for (std::size_t half = 0; half < 2; ++half) {
    // Nibbles of this half as 4 unsigned bytes per word, against 4 int8 of x each.
    std::vector<std::optional<Reg<S32>>> dot(vectors);
    for (std::size_t w = 0; w < 4; ++w) {
      Reg<U32> word = half == 0 ? wt.qs[w] : b.shr(wt.qs[w], b.imm<U32>(4));
      Reg<U32> nib = b.and_(word, b.imm<U32>(0x0F0F0F0Fu));
      for (std::size_t m = 0; m < vectors; ++m)
        dot[m] = dot[m] ? b.dp4a(nib, xsl[m].q[half][w], *dot[m])
                        : b.dp4a(nib, xsl[m].q[half][w],
                                 b.imm<S32>(biased ? kDotBiasBits : std::int32_t{0}));
    }
    for (std::size_t m = 0; m < vectors; ++m) {
      Reg<F32> dot_f = biased ? b.sub(b.bitcast<F32>(*dot[m]), b.imm<F32>(kDotBias))
                              : b.cvt<F32>(*dot[m], rn); // exact int: |dot| < 2^24
      Reg<F32> scaled = b.mul(xsl[m].d8[half], dot_f);
      acc[m] = b.fma(sbs.dsc[half], scaled, acc[m], rn);
      acc[m] = b.fma(sbs.dm[half], xsl[m].neg_half_s[half], acc[m], rn);
    }
  }
  assign_all(r, acc);
}

// Super-block sb_w of every row against the Q8_1 slices, each row loaded just before its use.
void rows_step(KernelBuilder& b, const LaneConsts& lc, const std::vector<Q8Slice>& xsl,
               Reg<U32> sb_w, std::vector<std::unique_ptr<RowState>>& rows) {
  const StepWords at = step_words(b, lc, sb_w);
  for (auto& r : rows)
    row_dp4a(b, lc, xsl, load_row(b, *r, at), *r);
}

// The lane's x values of one step: per half (low/high nibbles), -sum x and the 16 values scaled
// for the denormal nibbles. Shared by every row the warp computes with them.
struct XSlice {
  std::vector<Reg<F32>> neg_xsum;
  std::vector<std::vector<Reg<F32>>> xs;
};

// The x values of super-block sb: 16 of the low sub-block, 16 of the high one (32 further on).
XSlice load_x(KernelBuilder& b, const Q4kGemvConfig& c, const LaneConsts& lc,
              Ptr<Global, const F32> x, Reg<U32> sb, bool guard_x) {
  Reg<U32> k_lo = b.mad_lo(sb, b.imm<U32>(256), lc.x_off);
  std::vector<Reg<F32>> xv[2];
  for (int half = 0; half < 2; ++half) {
    for (std::uint32_t f = 0; f < 4; ++f) {
      const std::uint32_t offset = 32u * static_cast<std::uint32_t>(half) + 4u * f;
      Reg<U32> k = offset == 0 ? k_lo : b.add(k_lo, b.imm<U32>(offset));
      std::array<Reg<F32>, 4> v = [&] {
        if (!guard_x) return b.ld_nc_v4(x + k);
        // Tail guard: a float4 at or past cols is read from cols-4 (in bounds) and zeroed.
        Reg<U32> k_in = b.min(k, b.baked<U32>("cols", c.cols - 4));
        std::array<Reg<F32>, 4> raw = b.ld_nc_v4(x + k_in);
        Reg<Pred> inside = b.setp(cmp::lt, k, b.baked<U32>("cols", c.cols));
        for (auto& r : raw)
          r = b.selp(r, b.imm<F32>(0.0f), inside);
        return raw;
      }();
      for (auto& r : v)
        xv[half].push_back(r);
    }
  }
  // Per sub-block: -X = -(sum x) for the mins, and x scaled for the denormal nibbles.
  XSlice out;
  std::vector<Reg<F32>>& neg_xsum = out.neg_xsum;
  std::vector<std::vector<Reg<F32>>>& xs = out.xs;
  xs.resize(2);
  for (int half = 0; half < 2; ++half) {
    const auto& v = xv[half];
    Reg<F32> s = v[0];
    for (std::size_t i = 1; i < v.size(); ++i)
      s = b.add(s, v[i]);
    neg_xsum.push_back(b.neg(s));
    for (int t = 0; t < 16; ++t)
      xs[static_cast<std::size_t>(half)].push_back(
          b.mul(v[static_cast<std::size_t>(t)], b.imm<F32>(x_scale_for(nibble_slot(half, t).bit))));
  }
  return out;
}

// Super-block sb_w of every row against the x slices of the vectors: each nibble is masked once
// and used in one fma per vector.
void rows_step(KernelBuilder& b, const LaneConsts& lc, const std::vector<XSlice>& xsl,
               Reg<U32> sb_w, std::vector<std::unique_ptr<RowState>>& rows) {
  const std::size_t vectors = xsl.size();
  Reg<U32> block_word = b.mul_lo(sb_w, b.imm<U32>(36));
  Reg<U32> quant_word = b.add(block_word, lc.q_word);
  for (auto& r : rows) {
    std::array<Reg<U32>, 4> hdr = b.ld_nc_v4(r->row + block_word);
    std::array<Reg<U32>, 4> qs = b.ld_nc_v4(r->row + quant_word);
    const SubBlockScales sbs =
        sub_block_scales(b, lc, hdr, std::ldexp(1.0f, kSumExp)); // the nibble sums' scale
    const auto& dsc_of = sbs.dsc;
    const auto& dm_of = sbs.dm;
    std::array<Reg<U32>, 4> qs_hi = {b.shr(qs[0], b.imm<U32>(12)), b.shr(qs[1], b.imm<U32>(12)),
                                     b.shr(qs[2], b.imm<U32>(12)), b.shr(qs[3], b.imm<U32>(12))};
    std::vector<Reg<F32>> acc = read_all(*r);
    for (int half = 0; half < 2; ++half) {
      const auto hh = static_cast<std::size_t>(half);
      // Q * 2^-64 = sum over the 16 values of denormal(q) * x * 2^(85 - bit).
      std::vector<Reg<F32>> q_sum;
      for (std::size_t m = 0; m < vectors; ++m)
        q_sum.push_back(b.mov(b.imm<F32>(0.0f)));
      for (int t = 0; t < 16; ++t) {
        const NibbleSlot slot = nibble_slot(half, t);
        Reg<U32> word = slot.shifted ? qs_hi[slot.word] : qs[slot.word];
        Reg<F32> q = b.bitcast<F32>(b.and_(word, b.imm<U32>(0xFu << slot.bit)));
        for (std::size_t m = 0; m < vectors; ++m)
          q_sum[m] = b.fma(q, xsl[m].xs[hh][static_cast<std::size_t>(t)], q_sum[m], rn);
      }
      // d sc Q - dmin m X, with neg_xsum = -X.
      for (std::size_t m = 0; m < vectors; ++m) {
        acc[m] = b.fma(dsc_of[hh], q_sum[m], acc[m], rn);
        acc[m] = b.fma(dm_of[hh], xsl[m].neg_xsum[hh], acc[m], rn);
      }
    }
    assign_all(*r, acc);
  }
}

} // namespace

ptxkit::Expected<GeneratedPtx> Q4kGemv::build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
  const std::uint32_t nblk = c.blocks_per_row();
  const std::uint32_t full_steps = (c.cols / 256) / 4; // steps of four whole super-blocks
  const bool tail_step = full_steps * 4 < nblk;
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  // f32_q8_1 holds the first step's quants of 8 rows while it quantizes x: left alone, ptxas
  // takes 90-126 registers (2 blocks per SM, where the q8_1 path's 76 allow 3); the bound keeps 3
  // (80 registers) at the price of a few spilled bytes at some shapes.
  // With several vectors the x slices and accumulators grow with batch; left alone ptxas takes
  // 160-255 registers (one block per SM, and spills at 8 vectors). Two blocks per SM (128
  // registers) hold batch 4's rows_per_warp() rows without spills at every shape.
  if (c.batch > 1)
    b.minnctapersm(Q4kGemv::kBatchedMinBlocksPerSm);
  else if (c.x_format == XFormat::kF32Q8_1)
    b.minnctapersm(kFusedMinBlocksPerSm);
  // f32_q8_1: x comes as f32 and the dp4a path reads the block's own Q8_1 copy of it.
  const bool fused = c.x_format == XFormat::kF32Q8_1;
  const bool q8 = c.x_format == XFormat::kQ8_1 || fused;
  auto w = b.param<Ptr<Global, const U32>>("w_q4k");
  std::optional<Ptr<Global, const F32>> x;
  std::optional<Ptr<Global, const U32>> xq;
  if (c.x_format == XFormat::kQ8_1)
    xq = b.param<Ptr<Global, const U32>>("x_q8");
  else
    x = b.param<Ptr<Global, const F32>>("x");
  auto y = b.param<Ptr<Global, F32>>("y");
  Label finished = b.new_label("finished");

  Reg<U32> tid = b.tid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<U32> group = b.shr(lane, b.imm<U32>(3));
  Reg<U32> part = b.and_(lane, b.imm<U32>(7));
  Reg<U32> pair = b.shr(part, b.imm<U32>(1)); // 64-value group of the quants: 0..3
  const LaneConsts lc{
      .group = group,
      .shift = b.shl(b.and_(part, b.imm<U32>(3)), b.imm<U32>(3)),
      .x_off = fused ? b.shl(part, b.imm<U32>(2))
               : q8  ? b.add(b.mad_lo(pair, b.imm<U32>(2 * kQ8_1Words),
                                      b.shl(b.and_(part, b.imm<U32>(1)), b.imm<U32>(2))),
                             b.imm<U32>(1))
                     : b.add(b.shl(pair, b.imm<U32>(6)),
                             b.shl(b.and_(part, b.imm<U32>(1)), b.imm<U32>(4))),
      .q_word = b.add(b.shl(part, b.imm<U32>(2)), b.imm<U32>(4)),
      .src_lo = b.and_(lane, b.imm<U32>(~1u)),
      .src_hi = b.or_(lane, b.imm<U32>(1)),
      .upper = b.setp(cmp::ge, part, b.imm<U32>(4)),
      .x_ds_off = fused ? std::optional<Reg<U32>>(b.shl(pair, b.imm<U32>(2)))
                  : q8  ? std::optional<Reg<U32>>(b.mul_lo(pair, b.imm<U32>(2 * kQ8_1Words)))
                        : std::nullopt};
  std::optional<SharedXq> shared_x;
  if (fused)
    shared_x =
        SharedXq{b.shared_array<U32>("x_q8_quants", shared_super_blocks(c) * kSharedQuantWords, 16),
                 b.shared_array<F32>("x_q8_ds", shared_super_blocks(c) * kSharedDsFloats, 16)};
  // The x slices of a step, one per vector, in the format x comes in.
  using Slice = std::variant<std::vector<XSlice>, std::vector<Q8Slice>>;
  auto load_slice = [&](Reg<U32> sb, bool guard_x) -> Slice {
    if (q8) {
      std::vector<Q8Slice> v;
      for (std::uint32_t m = 0; m < c.batch; ++m) {
        if (fused)
          v.push_back(load_x_q8_shared(b, c, lc, vector_region(*shared_x, c, m), sb, guard_x));
        else
          v.push_back(load_x_q8(b, c, lc, m == 0 ? *xq : *xq + std::int64_t{m} * c.x_q8_words(), sb,
                                guard_x));
      }
      return v;
    }
    std::vector<XSlice> v;
    for (std::uint32_t m = 0; m < c.batch; ++m)
      v.push_back(load_x(b, c, lc, m == 0 ? *x : *x + std::int64_t{m} * c.cols, sb, guard_x));
    return v;
  };
  auto step = [&](const Slice& slice, Reg<U32> sb_w, std::vector<std::unique_ptr<RowState>>& rs) {
    std::visit([&](const auto& xs) { rows_step(b, lc, xs, sb_w, rs); }, slice);
  };
  Reg<Pred> lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  const Imm<U32> num_rows = b.baked<U32>("rows", c.rows);
  const Imm<U32> row_words = b.baked<U32>("cols", c.row_words());

  // Split-K: the block's warps form row groups of S warps; warp `wstep` of a group takes the
  // steps wstep, wstep + S, ... of the group's rows_per_warp rows, and the S partial sums of a
  // row meet in shared memory. S = 1 (no split) when a row is one step.
  const std::uint32_t split = c.step_split();
  const std::uint32_t rows_per_warp = c.rows_per_warp();
  const std::uint32_t rows_per_block = rows_per_warp * (kWarps / split);
  const auto log2_of = [](std::uint32_t v) {
    return static_cast<std::uint32_t>(std::countr_zero(v));
  };
  // The partial sums of vector m at m * kWarps * rows_per_warp.
  const std::int64_t partials_per_vector = std::int64_t{kWarps} * rows_per_warp;
  std::optional<Ptr<Shared, F32>> partials;
  if (split > 1)
    partials = b.shared_array<F32>("row_partials", kWarps * rows_per_warp * c.batch, 4);
  // This warp's place: row group `wrows`, step offset `wstep` inside it (S = 1: every warp is its
  // own row group).
  std::optional<Reg<U32>> wstep;
  Reg<U32> wrows = warp;
  if (split > 1) {
    wstep = b.and_(warp, b.imm<U32>(split - 1));
    wrows = b.shr(warp, b.imm<U32>(log2_of(split)));
  }

  // The last (guarded) step's super-block for this lane, and, when it is the only step
  // (cols <= 1024), its x slice: loaded once, kept in registers for every row of the warp.
  std::optional<Reg<U32>> tail_sb, tail_sb_w;
  std::optional<Slice> x_once;
  // (Not with f32_q8_1: its x is read from shared memory, filled inside the batch loop; and
  // when full_steps < S its tail is a warp's peeled first step, which clamps its own. Nor with
  // several vectors: their slices would hold batch times the registers through the loop, so each
  // batch of rows loads them again, from L1.)
  const bool keep_x = !fused && c.batch == 1;
  if (tail_step && !(fused && full_steps < split)) {
    tail_sb = full_steps == 0 ? lc.group : b.add(lc.group, b.baked<U32>("cols", full_steps * 4));
    tail_sb_w = b.min(*tail_sb, b.baked<U32>("cols", nblk - 1));
    if (full_steps == 0 && keep_x) x_once = load_slice(*tail_sb, /*guard_x=*/true);
  } else if (full_steps == 1 && keep_x) {
    x_once = load_slice(lc.group, /*guard_x=*/false);
  }

  // Grid-stride loop over the block's batches of rows_per_block rows; the loop condition is the
  // block's first row, so every warp of the block runs the same iterations (bar.sync inside).
  Reg<U32> stride = b.mul_lo(b.nctaid_x(), b.imm<U32>(rows_per_block));
  Reg<U32> first_batch = b.mul_lo(b.ctaid_x(), b.imm<U32>(rows_per_block));
  Var<U32> block_row0 = b.var<U32>(first_batch, "row0");
  Label batch_loop = b.new_label("row_batch_loop");
  b.place(batch_loop);
  Reg<U32> first = block_row0.read();
  b.bra_if(!b.setp(cmp::lt, first, num_rows), finished); // the whole block is past the matrix
  // This warp's rows; one past the matrix is clamped to the last row for loading (its store is
  // skipped).
  Reg<U32> row0 = b.mad_lo(wrows, b.imm<U32>(rows_per_warp), first);
  std::vector<Reg<U32>> row_in;
  std::vector<Reg<Pred>> row_exists;
  for (std::uint32_t r = 0; r < rows_per_warp; ++r) {
    Reg<U32> row = r == 0 ? row0 : b.add(row0, b.imm<U32>(r));
    if (split == 1) row_exists.push_back(b.setp(cmp::lt, row, num_rows)); // guards its store
    row_in.push_back(b.min(row, b.baked<U32>("rows", c.rows - 1)));
  }
  std::vector<std::unique_ptr<RowState>> rows;
  for (Reg<U32> row : row_in)
    rows.push_back(std::make_unique<RowState>(b, w + b.mul_wide(row, row_words), c.batch));

  // The steps from the warp's super-block base0 (a multiple of 4) on, S steps apart, up to the
  // last whole one. The loop runs over the warp's first super-block of each step (the same in
  // every lane); a lane's own super-block adds its group (< 4). The bound is a multiple of 4, so
  // `base < bound` equals `base + group < bound`, and testing the base keeps the exit, and the
  // shfl.sync inside the loop, visibly warp-uniform.
  auto full_step_loop = [&](Reg<U32> base0) {
    Var<U32> base = b.var<U32>(base0, "super_block_base");
    Label loop = b.new_label("block_loop");
    Label done = b.new_label("block_done");
    b.place(loop);
    Reg<U32> base_now = base.read();
    b.bra_if(!b.setp(cmp::lt, base_now, b.baked<U32>("cols", full_steps * 4)), done);
    Reg<U32> s_now = b.add(base_now, lc.group);
    step(load_slice(s_now, /*guard_x=*/false), s_now, rows);
    base.assign(b.add(base_now, b.imm<U32>(4 * split)));
    b.bra(loop);
    b.place(done);
  };
  // The tail step belongs to warp full_steps % S of each row group.
  auto tail = [&] {
    std::optional<Label> not_mine;
    if (split > 1) {
      not_mine = b.new_label("tail_not_mine");
      b.bra_if(!b.setp(cmp::eq, *wstep, b.imm<U32>(full_steps % split)), *not_mine);
    }
    step(x_once ? *x_once : load_slice(*tail_sb, /*guard_x=*/true), *tail_sb_w, rows);
    if (not_mine) b.place(*not_mine);
  };

  if (fused) {
    // The warp's first step (step wstep; step 0 without a split) is peeled: its weight loads are
    // issued before the block quantizes x (in its first batch only; the branch is block-uniform),
    // so the quantization runs under their DRAM latency. When full_steps < S every warp has one
    // step and warp full_steps's is the tail: the first step is then guarded as the tail is.
    const bool first_guarded = full_steps < split;
    Reg<U32> first_sb = wstep ? b.mad_lo(*wstep, b.imm<U32>(4), lc.group) : lc.group;
    Reg<U32> first_sb_w =
        first_guarded ? b.min(first_sb, b.baked<U32>("cols", nblk - 1)) : first_sb;
    // Only the quants are held across the quantization (32 registers, not 64): the 8 lanes of a
    // group load all of a super-block but its 16-byte header, and the header shares its 32-byte
    // sector with part 0's quants (or with the previous super-block's last part) whenever the
    // row starts 32-byte aligned, so the header loads after the barrier find the sector cached.
    const StepWords at = step_words(b, lc, first_sb_w);
    std::vector<std::array<Reg<U32>, 4>> first_qs;
    for (const auto& r : rows)
      first_qs.push_back(b.ld_nc_v4(r->row + at.quant_word));
    Label quantized = b.new_label("x_quantized");
    b.bra_if(!b.setp(cmp::eq, first, first_batch), quantized);
    quantize_x_to_shared(b, c, *x, *shared_x, tid);
    b.bar_sync(0); // the shared Q8_1 x is complete (and never written again)
    b.place(quantized);
    std::vector<std::array<Reg<U32>, 4>> first_hdr;
    for (const auto& r : rows)
      first_hdr.push_back(b.ld_nc_v4(r->row + at.block_word));
    std::vector<Q8Slice> first_x;
    for (std::uint32_t m = 0; m < c.batch; ++m)
      first_x.push_back(
          load_x_q8_shared(b, c, lc, vector_region(*shared_x, c, m), first_sb, first_guarded));
    for (std::size_t r = 0; r < rows.size(); ++r)
      row_dp4a(b, lc, first_x, RowWeights{first_hdr[r], first_qs[r]}, *rows[r]);
    if (full_steps > split)
      full_step_loop(wstep ? b.mad_lo(*wstep, b.imm<U32>(4), b.imm<U32>(4 * split))
                           : b.mov(b.imm<U32>(4)));
    if (tail_step && !first_guarded) tail();
  } else {
    if (full_steps == 1 && !tail_step)
      step(x_once ? *x_once : load_slice(lc.group, /*guard_x=*/false), lc.group, rows);
    else if (full_steps > 0)
      full_step_loop(wstep ? b.mul_lo(*wstep, b.imm<U32>(4)) : b.mov(b.imm<U32>(0)));
    if (tail_step) tail();
  }

  // Row sums: shfl.down tree; only lane 0 uses the total (stores it, or parks it for the split).
  // Vector m's y is at m * rows.
  for (std::uint32_t r = 0; r < rows_per_warp; ++r) {
    std::vector<Reg<F32>> t;
    for (const auto& a : rows[r]->acc)
      t.push_back(common::warp_sum_to_lane0(b, a->read()));
    if (split == 1) {
      auto y_row = y + row_in[r];
      auto only_lane0 = b.guard(b.and_(lane0, row_exists[r]));
      for (std::uint32_t m = 0; m < c.batch; ++m)
        b.st(y_row + std::int64_t{m} * c.rows, t[m]);
    } else {
      auto slot = *partials + b.mad_lo(warp, b.imm<U32>(rows_per_warp), b.imm<U32>(r));
      auto only_lane0 = b.guard(lane0);
      for (std::uint32_t m = 0; m < c.batch; ++m)
        b.st(slot + m * partials_per_vector, t[m]);
    }
  }
  if (split > 1) {
    // Thread t < rows_per_block sums the S partials of the block's row t.
    b.bar_sync(0);
    Label no_row = b.new_label("no_row");
    b.bra_if(!b.setp(cmp::lt, tid, b.imm<U32>(rows_per_block)), no_row);
    Reg<U32> rg = b.shr(tid, b.imm<U32>(log2_of(rows_per_warp)));
    Reg<U32> r = b.and_(tid, b.imm<U32>(rows_per_warp - 1));
    auto first_partial = *partials + b.mad_lo(rg, b.imm<U32>(split * rows_per_warp), r);
    std::vector<Reg<F32>> total;
    for (std::uint32_t m = 0; m < c.batch; ++m) {
      auto vector_partial = first_partial + m * partials_per_vector;
      total.push_back(b.ld(vector_partial));
      for (std::uint32_t j = 1; j < split; ++j)
        total[m] = b.add(total[m], b.ld(vector_partial + j * rows_per_warp));
    }
    Reg<U32> row = b.add(first, tid);
    auto y_row = y + b.min(row, b.baked<U32>("rows", c.rows - 1));
    {
      auto inside = b.guard(b.setp(cmp::lt, row, num_rows));
      for (std::uint32_t m = 0; m < c.batch; ++m)
        b.st(y_row + std::int64_t{m} * c.rows, total[m]);
    }
    b.place(no_row);
    b.bar_sync(0); // the partials are reused by the next batch
  }
  block_row0.assign(b.add(first, stride));
  b.bra(batch_loop);
  b.place(finished);
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(Q4kGemv);

} // namespace ptxkit::kernels
