// every_instruction.cpp: the every-instruction kernel (see every_instruction.h).
//
// Grouped by instruction family in the order of the isa/ headers; each group's results are
// stored to global memory so nothing is dead code that ptxas could reject or remove unchecked.
#include "every_instruction.h"

#include <array>
#include <cmath>
#include <limits>

namespace ptxkit::ptxgen::testing {
namespace {

void arithmetic(KernelBuilder& b, Ptr<Global, F32> outf, Ptr<Global, U32> outu,
                Ptr<Global, F64> outd, Reg<F32> f, Reg<U32> u, Reg<S32> s, Reg<F64> d) {
  // add/sub/mul: integers, f32 with every modifier, f64
  b.st(outu, b.add(u, b.imm<U32>(1)));
  b.st(outu + 1, b.bitcast<U32>(b.add(s, s, sat)));
  b.st(outu + 2, b.sub(u, u));
  b.st(outf, b.add(f, f, rn | ftz | sat));
  b.st(outf + 1, b.sub(f, b.imm<F32>(0.5f), rz));
  b.st(outf + 2, b.mul(f, f, rm));
  b.st(outd, b.add(d, d, rp));
  b.st(outd + 1, b.mul(d, d));
  // integer multiply widths and mad
  b.st(outu + 3, b.mul_lo(u, u));
  b.st(outu + 4, b.mul_hi(u, u));
  Reg<U64> wide = b.mul_wide(u, u);
  b.st(outu + 5, b.cvt<U32>(wide));
  b.st(outu + 6, b.mad_lo(u, u, u));
  b.st(outu + 7, b.mad_hi(u, u, u));
  Reg<S64> swide = b.mad_wide(s, s, b.cvt<S64>(s));
  b.st(outu + 8, b.bitcast<U32>(b.cvt<S32>(swide)));
  // mad/fma, div, rem, rcp, sqrt, rsqrt, transcendental
  b.st(outf + 3, b.mad(f, f, f, rn));
  b.st(outf + 4, b.fma(f, f, f, rn | ftz));
  b.st(outd + 2, b.fma(d, d, d, rz));
  b.st(outf + 5, b.div(f, f, approx | ftz));
  b.st(outf + 6, b.div(f, f, full));
  b.st(outf + 7, b.div(f, f, rn));
  b.st(outd + 3, b.div(d, d, rn));
  b.st(outu + 9, b.div(u, b.imm<U32>(3)));
  b.st(outu + 10, b.rem(u, b.imm<U32>(3)));
  b.st(outf + 8, b.rcp(f, approx));
  b.st(outf + 9, b.rcp(f, rn | ftz));
  b.st(outd + 4, b.rcp(d, rn));
  b.st(outf + 10, b.sqrt(f, approx));
  b.st(outf + 11, b.sqrt(f, rn));
  b.st(outd + 5, b.sqrt(d, rn));
  b.st(outf + 12, b.rsqrt(f, approx | ftz));
  b.st(outd + 6, b.rsqrt(d, approx));
  b.st(outf + 13, b.ex2(f, approx | ftz));
  b.st(outf + 14, b.lg2(f, approx));
  b.st(outf + 15, b.sin(f, approx));
  b.st(outf + 16, b.cos(f, approx));
  // min/max/neg/abs
  b.st(outu + 11, b.min(u, b.imm<U32>(9)));
  b.st(outu + 12, b.bitcast<U32>(b.max(s, b.imm<S32>(-9))));
  b.st(outf + 17, b.min(f, f, ftz));
  b.st(outf + 18, b.max(f, b.imm<F32>(1.0f)));
  b.st(outd + 7, b.max(d, d));
  b.st(outu + 13, b.bitcast<U32>(b.neg(s)));
  b.st(outu + 14, b.bitcast<U32>(b.abs(s)));
  b.st(outf + 19, b.neg(f, ftz));
  b.st(outf + 20, b.abs(f));
  b.st(outf + 21, b.min_nan(f, b.imm<F32>(2.0f))); // min.NaN / max.NaN: sm_80, PTX 7.0
  b.st(outd + 8, b.abs(b.neg(d)));
}

void halves(KernelBuilder& b, Ptr<Global, B16> out16, Ptr<Global, B32> out32, Reg<F32> f) {
  Reg<F16> h = b.cvt<F16>(f, rn);
  b.st(out16, b.bitcast<B16>(b.add(h, h)));
  b.st(out16 + 1, b.bitcast<B16>(b.fma(h, h, b.imm<F16>(1.0f), rn)));
  b.st(out16 + 2, b.bitcast<B16>(b.min(h, h)));
  b.st(out16 + 3, b.bitcast<B16>(b.neg(h)));
  b.st(out16 + 4, b.bitcast<B16>(b.abs(h)));
  b.st(out16 + 5, b.bitcast<B16>(b.ex2(h, approx)));
  b.st(out16 + 6, b.bitcast<B16>(b.mul(h, h, rn)));
  Reg<BF16> bh = b.cvt<BF16>(f, rn);
  b.st(out16 + 7, b.bitcast<B16>(b.fma(bh, bh, bh, rn)));
  b.st(out16 + 8, b.bitcast<B16>(b.max(bh, bh)));
  Reg<F16x2> h2 = b.cvt_pack<F16x2>(f, f);
  b.st(out32, b.bitcast<B32>(b.add(h2, h2)));
  b.st(out32 + 1, b.bitcast<B32>(b.fma(h2, h2, h2, rn)));
  Reg<BF16x2> bh2 = b.cvt_pack<BF16x2>(f, f);
  b.st(out32 + 2, b.bitcast<B32>(b.fma(bh2, bh2, bh2, rn)));
  b.st(out32 + 7, b.bitcast<B32>(b.max_nan(bh2, bh2)));
  auto parts = b.unpack<F16>(h2);
  b.st(out32 + 3, b.bitcast<B32>(b.pack<F16x2>(parts[1], parts[0])));
  Reg<Pred> hp = b.setp(cmp::lt, h, parts[0], ftz);
  b.st(out32 + 4, b.bitcast<B32>(b.selp(b.cvt<F32>(h), b.imm<F32>(0.0f), hp)));
  b.st(out32 + 5, b.bitcast<B32>(b.cvt<F32>(bh))); // cvt.f32.bf16: sm_80 with PTX 7.8+
  if (b.target().sm() >= 90) {
    b.st(out32 + 6, b.bitcast<B32>(b.cvt<F32>(b.cvt<S32>(bh, rzi), rn)));
    b.st(out16 + 9, b.bitcast<B16>(b.add(bh, bh)));
    b.st(out16 + 10, b.bitcast<B16>(b.mul(bh, bh)));
    b.st(out16 + 11, b.bitcast<B16>(b.selp(b.imm<B16>(1), b.imm<B16>(0), b.setp(cmp::gt, bh, bh))));
  }
}

void logic(KernelBuilder& b, Ptr<Global, U32> outu, Ptr<Global, U64> outl, Reg<U32> u, Reg<S32> s,
           Reg<F32> f, Reg<F64> d) {
  Reg<B32> bits = b.bitcast<B32>(u);
  b.st(outu, b.bitcast<U32>(b.and_(bits, b.imm<B32>(0xff))));
  b.st(outu + 1, b.or_(u, b.imm<U32>(1)));
  b.st(outu + 2, b.xor_(u, u));
  b.st(outu + 3, b.not_(u));
  b.st(outu + 4, b.shl(u, b.imm<U32>(2)));
  b.st(outu + 5, b.shr(u, b.imm<U32>(1)));
  b.st(outu + 6, b.bitcast<U32>(b.shr(s, u)));
  b.st(outu + 7, b.bitcast<U32>(b.shr(bits, u)));
  Reg<U64> wide = b.cvt<U64>(u);
  b.st(outl, b.shl(wide, u));
  b.st(outl + 1, b.and_(wide, b.imm<U64>(0xffff0000ffffull)));
  // bit counting and fields
  b.st(outu + 9, b.popc(u));
  b.st(outu + 10, b.clz(wide));
  b.st(outu + 11, b.brev(u));
  b.st(outu + 12, b.bfe(u, b.imm<U32>(4), b.imm<U32>(8)));
  b.st(outu + 13, b.bitcast<U32>(b.bfe(s, u, b.imm<U32>(3))));
  b.st(outu + 14, b.bitcast<U32>(b.bfi(bits, bits, b.imm<U32>(8), b.imm<U32>(4))));
  b.st(outu + 15, b.prmt(u, u, b.imm<U32>(0x3210)));
  b.st(outu + 16, b.bitcast<U32>(b.lop3(bits, bits, b.imm<B32>(0xff), 0x6a)));
  b.st(outu + 17, b.dp4a(u, u, u));
  b.st(outu + 18, b.bitcast<U32>(b.dp4a(s, u, s)));
  b.st(outu + 19, b.dp2a_lo(u, u, u));
  b.st(outu + 20, b.bitcast<U32>(b.dp2a_hi(s, s, s)));
  b.st(outl + 3, b.bfe(wide, u, u));
  // setp: every comparison, then predicate logic and selp
  Reg<Pred> p1 = b.setp(cmp::eq, u, b.imm<U32>(0));
  Reg<Pred> p2 = b.setp(cmp::ne, bits, b.imm<B32>(7));
  Reg<Pred> p3 = b.setp(cmp::lt, s, b.imm<S32>(-1));
  Reg<Pred> p4 = b.setp(cmp::le, u, u);
  Reg<Pred> p5 = b.setp(cmp::gt, f, b.imm<F32>(0.0f), ftz);
  Reg<Pred> p6 = b.setp(cmp::ge, d, d);
  Reg<Pred> p7 = b.setp(cmp::equ, f, f);
  Reg<Pred> p8 = b.setp(cmp::neu, f, f);
  Reg<Pred> p9 = b.setp(cmp::ltu, f, f);
  Reg<Pred> p10 = b.setp(cmp::leu, d, d);
  Reg<Pred> p11 = b.setp(cmp::gtu, f, f);
  Reg<Pred> p12 = b.setp(cmp::geu, f, f);
  Reg<Pred> p13 = b.setp(cmp::num, f, f);
  Reg<Pred> p14 = b.setp(cmp::nan, f, f);
  Reg<Pred> all = b.and_(b.or_(p1, p2), b.xor_(p3, b.not_(p4)));
  all = b.and_(all, b.or_(b.or_(p5, p6), b.or_(p7, p8)));
  all = b.or_(all, b.and_(b.and_(p9, p10), b.and_(p11, b.or_(p12, b.and_(p13, p14)))));
  all = b.setp_and(cmp::lt, u, b.imm<U32>(100), all);
  all = b.setp_or(cmp::gt, f, b.imm<F32>(1.0f), !all, ftz);
  b.st(outu + 8, b.selp(b.imm<U32>(1), b.imm<U32>(0), all));
  b.st(outl + 2, b.selp(wide, b.imm<U64>(5), p1));
}

void conversions(KernelBuilder& b, Ptr<Global, U32> outu, Ptr<Global, F32> outf,
                 Ptr<Global, F64> outd, Reg<U32> u, Reg<S32> s, Reg<F32> f, Reg<F64> d) {
  b.st(outu, b.bitcast<U32>(b.cvt<S32>(f, rni)));
  b.st(outu + 1, b.cvt<U32>(f, rzi | sat));
  b.st(outu + 2, b.bitcast<U32>(b.cvt<S32>(d, rmi)));
  b.st(outu + 3, b.cvt<U32>(b.cvt<U16>(u, sat)));
  b.st(outu + 4, b.bitcast<U32>(b.cvt<S32>(b.cvt<S64>(s))));
  b.st(outf, b.cvt<F32>(s, rn));
  b.st(outf + 1, b.cvt<F32>(u, rz));
  b.st(outf + 2, b.cvt<F32>(f, rpi));
  b.st(outf + 3, b.cvt<F32>(d, rn | ftz));
  b.st(outd, b.cvt<F64>(f));
  b.st(outd + 1, b.cvt<F64>(u, rn));
  b.st(outf + 4, b.cvt<F32>(b.cvt<F16>(f, rn)));
  b.st(outf + 5, b.mov(b.imm<F32>(3.5f)));
  b.st(outd + 2, b.mov(b.imm<F64>(-2.25)));
  b.st(outf + 6, b.mov(b.baked<F32>("scale", 0.125f)));
}

void memory(KernelBuilder& b, Ptr<Global, F32> out, Ptr<Global, const F32> in,
            Ptr<Global, U32> counters, Ptr<Global, U64> counters64, Ptr<Global, F64> outd,
            Reg<U32> tid) {
  Ptr<Shared, F32> sm = b.shared_array<F32>("smem", 128, 16);
  Ptr<Shared, U32> smu = b.shared_array<U32>("smem_u", 128); // indexed by tid (reqntid 128)
  Ptr<Local, F32> scratch = b.local_array<F32>("scratch", 4, 16);
  Ptr<Const, const F32> table = b.const_array<F32>("table", {imm<F32>(1.0f), imm<F32>(2.0f)});
  Ptr<Shared, F32> dyn = b.dynamic_shared<F32>("dyn");
  // scalar loads in every space, cache operators, .nc
  Reg<F32> g = b.ld(in + tid);
  Reg<F32> gc = b.ld(in + 1, cache::cg);
  Reg<F32> ga = b.ld(in + 2, cache::ca);
  Reg<F32> gs = b.ld(in + 3, cache::cs);
  Reg<F32> gl = b.ld(in + 4, cache::lu);
  Reg<F32> gv = b.ld(in + 5, cache::cv);
  Reg<F32> nc = b.ld_nc(in + 6);
  Reg<F32> c = b.ld(table + 1);
  b.st(sm + tid, g);
  b.st(b.element(dyn, tid), g);
  Reg<F32> by_u64_index = b.ld(in + b.cvt<U64>(tid));
  b.st(smu + b.bitcast<S32>(tid), b.cvt<U32>(by_u64_index, rzi));
  b.bar_sync();
  Reg<F32> sv = b.ld(sm + 3);
  b.st(scratch, sv);
  b.st(scratch + 1, gc, cache::wb);
  Reg<F32> lv = b.ld(scratch + 1);
  Ptr<Generic, F32> gen = b.to_generic(sm);
  Reg<F32> genv = b.ld(gen + 2);
  b.st(gen + 8, genv); // past what the interval reads (sm + 2..5)
  // vectors
  auto v4 = b.ld_v4(in + 8);
  auto v2 = b.ld_v2(in + 12, cache::cg);
  auto nc4 = b.ld_nc_v4(in + 16);
  auto nc2 = b.ld_nc_v2(in + 20);
  auto sv2 = b.ld_v2(sm + 4);
  b.st_v4(out + 8, {b.add(v4[0], ga), b.add(v4[1], gs), b.add(v4[2], gl), b.add(v4[3], gv)});
  b.st_v2(out + 12, {b.add(v2[0], nc), b.add(v2[1], c)}, cache::cs);
  b.st_v4(out + 16, nc4);
  b.st_v2(out + 20, nc2);
  b.st_v2(sm + 6, {sv2[1], sv2[0]});
  b.st(out + 24, lv, cache::wt);
  b.st(out + 25, gc, cache::cg);
  // predicated: guard scope and ld_or
  Reg<Pred> first = b.setp(cmp::eq, tid, b.imm<U32>(0));
  {
    auto when = b.guard(first);
    b.st(out + 26, sv);
  }
  {
    auto unless = b.guard(!first);
    b.st(out + 27, sv);
  }
  b.st(out + 28, b.ld_or(in + 28, first, b.imm<F32>(0.0f)));
  // atomics and reductions
  b.st(counters, b.atom_add(counters + 1, tid));
  b.st(counters + 2, b.atom_min(counters + 3, tid));
  b.st(counters + 4, b.atom_max(counters + 5, tid));
  b.st(counters + 6, b.atom_and(counters + 7, tid));
  b.st(counters + 8, b.atom_or(counters + 9, tid));
  b.st(counters + 10, b.atom_xor(counters + 11, tid));
  b.st(counters + 12, b.atom_exch(counters + 13, tid));
  b.st(counters + 14, b.atom_cas(counters + 15, tid, b.imm<U32>(1)));
  b.st(counters + 16, b.atom_inc(counters + 17, b.imm<U32>(100)));
  b.st(counters + 18, b.atom_add(smu + tid, b.imm<U32>(1)));
  b.st(out + 29, b.atom_add(out + 30, g));
  b.st(outd, b.atom_add(outd + 1, b.cvt<F64>(g)));
  b.st(counters64, b.atom_add(counters64 + 1, b.cvt<U64>(tid)));
  b.red_add(counters + 19, tid);
  b.red_min(counters + 20, tid);
  b.red_max(counters + 21, tid);
  b.red_and(counters + 22, tid);
  b.red_or(counters + 23, tid);
  b.red_add(out + 31, g);
  b.red_add(smu + 1, tid);
}

// cp.async into shared memory, ldmatrix fragments into mma.sync, and the mbarrier operations;
// on sm_90 the bulk copy an mbarrier completes. The data is whatever shared memory holds: only
// the forms matter here, and every result is stored so that none is dead.
void matrix_and_async(KernelBuilder& b, Ptr<Global, F32> out, Ptr<Global, S32> outs,
                      Ptr<Global, B32> out32, Ptr<Global, U64> outl, Ptr<Global, const F32> in,
                      Reg<U32> tid) {
  // cp.async: 16 bytes (.cg, and .ca with 12 read and 4 zero-filled), 8 and 4 bytes per thread
  Ptr<Shared, F32> staged = b.shared_array<F32>("staged", 1408, 16);
  Reg<U32> quad = b.shl(tid, b.imm<U32>(2));
  Reg<U32> pair = b.shl(tid, b.imm<U32>(1));
  b.cp_async<16>(staged + quad, in + quad, cache::cg);
  b.cp_async<16>((staged + 512) + quad, in + quad, b.imm<U32>(12));
  b.cp_async<8>((staged + 1024) + pair, in + pair, cache::ca);
  b.cp_async<4>((staged + 1280) + tid, in + tid, tid);
  b.cp_async_commit_group();
  b.cp_async_wait_group(0);
  b.cp_async_wait_all();
  b.bar_sync();
  b.st(out, b.ld(staged + tid));
  // ldmatrix (x1/x2/x4, .trans) of f16, bf16 and 16-bit integer tiles: one 16-byte row per lane
  Ptr<Shared, F16> htile = b.shared_array<F16>("tile_f16", 1024, 16);
  Ptr<Shared, BF16> btile = b.shared_array<BF16>("tile_bf16", 1024, 16);
  Ptr<Shared, B16> itile = b.shared_array<B16>("tile_b16", 1024, 16);
  Reg<U32> row = b.shl(tid, b.imm<U32>(3));
  std::array<Reg<F16x2>, 4> ha = b.ldmatrix<4>(htile + row);
  std::array<Reg<F16x2>, 2> hb = b.ldmatrix_trans<2>(htile + row);
  std::array<Reg<BF16x2>, 4> ba = b.ldmatrix<4>(btile + row);
  std::array<Reg<BF16x2>, 2> bb = b.ldmatrix<2>(btile + row);
  std::array<Reg<B32>, 4> ia = b.ldmatrix_trans<4>(itile + row);
  std::array<Reg<B32>, 1> ib = b.ldmatrix<1>(itile + row);
  // mma.sync: f16 and bf16 m16n8k16 chained through their f32 accumulators, s8/u8 m16n8k32
  Reg<F32> zero = b.mov(b.imm<F32>(0.0f));
  std::array<Reg<F32>, 4> acc = b.mma_m16n8k16(ha, hb, {zero, zero, zero, zero});
  acc = b.mma_m16n8k16(ba, bb, acc);
  b.st_v4(out + 4, acc);
  std::array<Reg<S32>, 4> sa = {b.bitcast<S32>(ia[0]), b.bitcast<S32>(ia[1]), b.bitcast<S32>(ia[2]),
                                b.bitcast<S32>(ia[3])};
  std::array<Reg<U32>, 4> ua = {b.bitcast<U32>(ia[0]), b.bitcast<U32>(ia[1]), b.bitcast<U32>(ia[2]),
                                b.bitcast<U32>(ia[3])};
  std::array<Reg<S32>, 2> sb = {b.bitcast<S32>(ib[0]), b.bitcast<S32>(ia[1])};
  Reg<S32> izero = b.mov(b.imm<S32>(0));
  std::array<Reg<S32>, 4> iacc = b.mma_m16n8k32(sa, sb, {izero, izero, izero, izero});
  iacc = b.mma_m16n8k32(ua, sb, iacc);
  b.st_v4(outs, iacc);
  // mbarrier: init, arrive (state and sink), test_wait.parity
  Ptr<Shared, B64> bar = b.shared_array<B64>("bar", 1, 8);
  b.mbarrier_init(bar, b.imm<U32>(128));
  Reg<B64> state = b.mbarrier_arrive(bar);
  b.st(outl, b.bitcast<U64>(state));
  b.mbarrier_arrive(bar, sink);
  Reg<Pred> done = b.mbarrier_test_wait_parity(bar, b.imm<U32>(0));
  b.st(out32 + 1, b.selp(b.imm<B32>(1), b.imm<B32>(0), done));
  if (b.target().sm() >= 90) {
    // the bulk copy: expect its bytes, copy, wait for the phase (also by hand with try_wait)
    Ptr<Shared, F32> bulk = b.shared_array<F32>("bulk", 128, 16);
    b.fence_proxy_async_shared();
    b.mbarrier_arrive_expect_tx(bar, b.imm<U32>(512), sink);
    Reg<B64> tx_state = b.mbarrier_arrive_expect_tx(bar, b.imm<U32>(0));
    b.st(outl + 1, b.bitcast<U64>(tx_state));
    b.cp_async_bulk(bulk, in, b.imm<U32>(512), bar);
    b.mbarrier_wait_parity(bar, b.imm<U32>(0));
    Reg<Pred> next = b.mbarrier_try_wait_parity(bar, b.and_(tid, b.imm<U32>(1)));
    b.st(out32 + 3, b.selp(b.imm<B32>(1), b.imm<B32>(0), next));
    b.st(out + 8, b.ld(bulk + tid));
  }
}

void warp_and_control(KernelBuilder& b, Ptr<Global, F32> out, Ptr<Global, U32> outu, Reg<F32> f) {
  Reg<U32> lane = b.laneid();
  Reg<F32> down = b.shfl_down(f, b.imm<U32>(16));
  Reg<F32> up = b.shfl_up(f, b.imm<U32>(1));
  Reg<F32> bfly = b.shfl_bfly(f, b.imm<U32>(8));
  Reg<F32> idx = b.shfl_idx(f, lane);
  b.st(out, b.add(b.add(down, up), b.add(bfly, idx)));
  Reg<Pred> odd = b.setp(cmp::ne, b.and_(lane, b.imm<U32>(1)), b.imm<U32>(0));
  Reg<Pred> all = b.vote_all(odd);
  Reg<Pred> any = b.vote_any(odd);
  Reg<Pred> uni = b.vote_uni(odd);
  Reg<B32> ballot = b.vote_ballot(odd);
  b.st(outu, b.bitcast<U32>(ballot));
  b.st(outu + 1, b.selp(b.imm<U32>(1), b.imm<U32>(2), b.and_(all, b.or_(any, uni))));
  Reg<U32> ids = b.add(b.add(b.tid_y(), b.tid_z()), b.add(b.ntid_y(), b.ntid_z()));
  ids = b.add(ids, b.add(b.add(b.ctaid_y(), b.ctaid_z()), b.add(b.nctaid_x(), b.nctaid_y())));
  ids = b.add(ids, b.add(b.nctaid_z(), b.warpid()));
  b.st(outu + 2, ids);
  b.bar_sync(1, 64);
  b.bar_warp_sync();
  b.membar(scope::cta);
  b.membar(scope::gpu);
  b.membar(scope::sys);
  b.fence(sem::sc, scope::cta);
  b.fence(sem::acq_rel, scope::gpu);
  b.fence(sem::sc, scope::sys);
  if (b.target().sm() >= 90) b.fence(sem::acq_rel, scope::cluster);
  // a counted loop with a loop-carried Var, a uniform branch and an early exit
  Var<U32> i = b.var<U32>(b.imm<U32>(0), "i");
  Var<F32> acc = b.var<F32>(b.imm<F32>(0.0f), "acc");
  Label loop = b.new_label("loop");
  Label skip = b.new_label("skip");
  Label done = b.new_label("done");
  b.place(loop);
  b.add_inplace(acc, f);
  b.max_inplace(acc, b.imm<F32>(-1.0f));
  Reg<U32> next = b.add(i.read(), b.imm<U32>(1));
  i.assign(next);
  b.bra_if(b.setp(cmp::lt, next, b.imm<U32>(4)), loop);
  b.bra_if(!odd, skip);
  b.exit();
  b.place(skip);
  b.st(out + 1, acc.read());
  b.bra_uni(done);
  b.place(done);
}

} // namespace

Expected<Kernel> build_every_instruction_kernel(Target target) {
  KernelBuilder b("every_instruction", target);
  b.reqntid(128);
  auto outf = b.param<Ptr<Global, F32>>("out_f32");
  auto in = b.param<Ptr<Global, const F32>>("in_f32");
  auto outu = b.param_ptr<Global, U32>("out_u32");
  auto outd = b.param<Ptr<Global, F64>>("out_f64");
  auto outl = b.param<Ptr<Global, U64>>("out_u64");
  auto out16 = b.param<Ptr<Global, B16>>("out_b16");
  auto out32 = b.param<Ptr<Global, B32>>("out_b32");
  Reg<U32> n = b.param<U32>("n");
  Reg<F32> scale = b.param<F32>("scale");
  Reg<F64> dscale = b.param<F64>("dscale");
  Reg<S32> sparam = b.param<S32>("offset");
  auto rows = b.param<Ptr<Global, const U64>>("rows");
  auto outs = b.param<Ptr<Global, S32>>("out_s32");

  Reg<U32> tid = b.tid_x();
  Reg<U32> gid = b.mad_lo(b.ctaid_x(), b.ntid_x(), tid);
  // Each thread writes its own slice of every output: two threads' plain stores to one word in
  // one barrier interval are a data race (the verifier's shared-race rule reports it).
  Reg<U32> slice = b.mul_lo(gid, b.imm<U32>(1024));
  outf = b.element(outf, slice);
  outu = b.element(outu, slice);
  outd = b.element(outd, slice);
  outl = b.element(outl, slice);
  out16 = b.element(out16, slice);
  out32 = b.element(out32, slice);
  outs = b.element(outs, slice);
  Reg<F32> f = b.mul(b.ld(in + gid), scale);
  Reg<S32> s = b.add(b.bitcast<S32>(gid), sparam);
  Reg<U32> u = b.add(gid, n);
  arithmetic(b, outf, outu, outd, f, u, s, dscale);
  halves(b, out16, out32, f);
  logic(b, outu + 32, outl, u, s, f, dscale);
  conversions(b, outu + 64, outf + 64, outd + 64, u, s, f, dscale);
  memory(b, outf + 128, in, outu + 128, outl + 64, outd + 128, tid);
  // a pointer loaded from a pointer array, indexed with the caller's line recorded
  Ptr<Global, const F32> row = b.global_ptr<const F32>(b.ld(rows + 1));
  b.st(b.element(outf + 320, tid), b.ld(b.element(row, b.bitcast<S32>(tid))));
  // before warp_and_control: its lane-varying exit would leave the warp collectives partial
  matrix_and_async(b, outf + 512, outs, out32 + 64, outl + 128, in, tid);
  warp_and_control(b, outf + 256, outu + 256, f);
  b.ret();
  return b.finish();
}

} // namespace ptxkit::ptxgen::testing
