// softmax_rows_builder.cpp: softmax_rows's PTX, written on ptxgen, and its registration.
//
// Per block (row = %ctaid.x), in the log2 domain (L = log2 e):
//   1. per thread (m, s): "registers" mode loads its <= 4 units once (the last index clamped to
//      the row and masked to -inf), m = max(-FLT_MAX, units), s = sum ex2((x - m) L); "loop"
//      mode folds 4 units at a time (then 1) into an online (m, s), m starting at -FLT_MAX:
//      m_new = max(m_old, units), s = s ex2((m_old - m_new) L) + sum ex2((x - m_new) L);
//      "on chip" mode issues its register units' loads and then its staged units' cp.async in
//      groups of 32 bytes per thread (one commit group each), and folds as they land: the
//      register units two at a time, then group g after cp.async.wait_group (groups - 1 - g),
//      so the exponentials of the first groups overlap the arrival of the later ones;
//   2. shfl.bfly tree over (m, s): every lane ends with its warp's pair;
//   3. lane 0 of each warp stores its pair; bar.sync; warp 0 combines them with another bfly tree
//      and lane 0 stores (M, S); bar.sync; every thread reads (M, S) back (the broadcast);
//   4. out = ex2((x - M) L) * rcp(S), from registers, from shared memory (on chip: each thread
//      reads back only the slots it copied itself, visible to it after its wait_group), or by
//      looping over the row again.
// f16/bf16 rows are read in units of up to 8 halves (one .v4.b32), widened to f32, computed as f32
// is, and each output rounded once on store (cvt.rn). On chip, register units stay packed (two
// halves a word) and are widened at each use: 20 words instead of 40 floats for a vocabulary row.
// Loop mode is bound by DRAM traffic, not by loads in flight: a vocabulary row is read twice and
// written once, three row-sizes of traffic for the two a copy moves, so it runs at 2/3 of copy
// bandwidth (measured on an H200, 1024 x 151936: 66% in f32 and in bf16; 8 units per iteration
// instead of 4, one block per SM instead of two, and walking the second loop from the row's end
// to find the first loop's lines in L2 each moved it by less than 3 points: the ~132 rows in
// flight, 40 MB in bf16, do not stay in the 60 MB L2 until their second read). On chip mode moves
// the two row-sizes of a copy; one block per SM (its shared memory), 1024 threads, so the SM's
// exponentials (two ex2 per element, 16 a clock per SM) run between its loads and its stores.
// ex2.approx.ftz: one MUFU.EX2; without .ftz ptxas adds a range fix around it for subnormal
// results (two more instructions per exponential), and a probability below 2^-126 is under every
// tolerance's absolute bound (bf16 keeps f32's exponent range, f16 flushes far above it).
// Starting every maximum at -FLT_MAX keeps -inf - -inf (NaN) out of the exponent: an empty thread
// is (-FLT_MAX, 0) and combines as the identity; a row of only -inf ends with S = 0 and so NaN.
#include "common/dtype_access.h"
#include "common/row_units.h"
#include "common/strided_loop.h"
#include "common/vector_access.h"
#include "common/warp_reduce.h"
#include "softmax_rows.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <optional>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <string>
#include <type_traits>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// The running maximum starts at the lowest finite float, not -inf: every maximum is then finite
// or +inf, so m_old - m_new is never -inf - -inf (NaN), and the rescale reads the maxima directly
// (no select on the way to ex2). An empty thread is (-FLT_MAX, 0), the identity of combine().
constexpr float kLowest = std::numeric_limits<float>::lowest();

// A running (max, sum of exponentials) pair.
struct MaxSum {
  Reg<F32> m;
  Reg<F32> s;
};

// ex2((x - m) * log2 e)
Reg<F32> exp_shifted(KernelBuilder& b, Reg<F32> x, Reg<F32> m) {
  return b.ex2(b.mul(b.sub(x, m), b.imm<F32>(kLog2e)), approx | ftz);
}

// (m1, s1) + (m2, s2) = (M, s1 ex2((m1 - M) L) + s2 ex2((m2 - M) L)), M = max(m1, m2).
MaxSum combine(KernelBuilder& b, MaxSum a, MaxSum c) {
  Reg<F32> m = b.max(a.m, c.m);
  // One emitting call per statement: argument evaluation order is unspecified in C++.
  Reg<F32> ea = exp_shifted(b, a.m, m);
  Reg<F32> sc = b.mul(c.s, exp_shifted(b, c.m, m));
  Reg<F32> s = b.fma(a.s, ea, sc, rn);
  return {m, s};
}

// Butterfly over the warp: afterwards every lane holds the warp's combined pair.
MaxSum warp_combine(KernelBuilder& b, MaxSum p) {
  common::for_each_butterfly_level(b, {}, [&](Imm<U32> delta) {
    MaxSum other{b.shfl_bfly(p.m, delta), b.shfl_bfly(p.s, delta)};
    p = combine(b, p, other);
  });
  return p;
}

// The first element of unit `unit` (units of g.unit_elems elements).
template <class T>
Ptr<Global, T> unit_ptr(KernelBuilder& b, Ptr<Global, T> row, Reg<U32> unit,
                        const SoftmaxGeometry& g) {
  if (g.unit_elems == 1) return row + unit;
  return row + b.shl(unit, b.imm<U32>(common::row_unit_shift(g.unit_elems)));
}

// One unit of the row, widened to f32. Plain loads: out may alias x.
template <class E>
std::vector<Reg<F32>> load_unit(KernelBuilder& b, Ptr<Global, const E> row, Reg<U32> unit,
                                const SoftmaxGeometry& g) {
  return common::load_f32<E>(b, unit_ptr(b, row, unit, g), g.unit_elems, common::LoadPath::kPlain);
}

template <class E>
void store_unit(KernelBuilder& b, Ptr<Global, E> row, Reg<U32> unit, const SoftmaxGeometry& g,
                const std::vector<Reg<F32>>& v) {
  common::store_f32<E>(b, unit_ptr(b, row, unit, g), v);
}

Reg<F32> max_of(KernelBuilder& b, const std::vector<Reg<F32>>& v) {
  Reg<F32> m = v[0];
  for (std::size_t k = 1; k < v.size(); ++k)
    m = b.max(m, v[k]);
  return m;
}

// Folds v into the running (m, s) of loop and on-chip modes:
// m' = max(m, v), s' = s ex2((m - m') L) + sum ex2((x - m') L).
void fold(KernelBuilder& b, Var<F32>& m, Var<F32>& s, const std::vector<Reg<F32>>& v) {
  // Snapshot the old max before the update: the rescale needs both values.
  Reg<F32> old_max = m.read();
  Reg<F32> new_max = b.max(old_max, max_of(b, v));
  Reg<F32> corr = exp_shifted(b, old_max, new_max); // the rescale: old (snapshot) - new
  Reg<F32> acc = b.mul(s.read(), corr);
  for (Reg<F32> x : v)
    acc = b.add(acc, exp_shifted(b, x, new_max));
  m.assign(new_max);
  s.assign(acc);
}

// On chip, a unit is held as 32-bit words: f32 values as they are, halves two to a word.
template <class E>
using Word = std::conditional_t<std::is_same_v<E, F32>, F32, B32>;

// n (1, 2 or 4) consecutive words at p as one access (global or shared). Plain: out may alias x.
template <class S, class T>
std::vector<Reg<std::remove_const_t<T>>> load_raw(KernelBuilder& b, Ptr<S, T> p, std::uint32_t n) {
  if (n == 4) {
    auto v = b.ld_v4(p);
    return {v.begin(), v.end()};
  }
  if (n == 2) {
    auto v = b.ld_v2(p);
    return {v.begin(), v.end()};
  }
  return {b.ld(p)};
}

// A unit's words as f32 values (halves widened exactly).
template <class E>
std::vector<Reg<F32>> widen([[maybe_unused]] KernelBuilder& b, const std::vector<Reg<Word<E>>>& w) {
  if constexpr (std::is_same_v<E, F32>)
    return w;
  else
    return common::widen_words<E>(b, w);
}

// The units of a group of held or staged units, widened, in one list (one fold).
template <class E>
std::vector<Reg<F32>> widen_all(KernelBuilder& b,
                                const std::vector<std::vector<Reg<Word<E>>>>& units) {
  std::vector<Reg<F32>> v;
  for (const auto& w : units)
    for (Reg<F32> x : widen<E>(b, w))
      v.push_back(x);
  return v;
}

// cp.async of one unit (16 bytes through L2 only; 8 or 4 bytes: .ca, the only form PTX has).
template <class T>
void stage_unit(KernelBuilder& b, Ptr<Shared, T> dst, Ptr<Global, const T> src,
                std::uint32_t bytes) {
  if (bytes == 16)
    b.cp_async<16>(dst, src, cache::cg);
  else if (bytes == 8)
    b.cp_async<8>(dst, src, cache::ca);
  else
    b.cp_async<4>(dst, src, cache::ca);
}

// Loop mode's walk over the row: unit = tid, tid + threads, ... < units. While kUnroll units
// remain for every thread the body gets kUnroll of them (their loads issued together), then one
// at a time; both loops are guarded, so no unit past the row is touched. Labels NAME_loop,
// NAME_done (the unrolled loop) and NAME_tail, NAME_tail_done.
template <class Body>
void walk_row_units(KernelBuilder& b, Reg<U32> tid, const SoftmaxGeometry& g,
                    const std::string& name, Body body) {
  constexpr std::uint32_t kUnroll = 4;
  Var<U32> i = b.var<U32>(tid, "unit");
  if (g.units > (kUnroll - 1) * g.threads) {
    common::strided_loop(b, i, b.baked<U32>("row_len", g.units - (kUnroll - 1) * g.threads),
                         b.imm<U32>(kUnroll * g.threads), {name + "_loop", name + "_done"},
                         [&](Reg<U32> iv) {
                           std::vector<Reg<U32>> us{iv};
                           for (std::uint32_t k = 1; k < kUnroll; ++k)
                             us.push_back(b.add(iv, b.imm<U32>(k * g.threads)));
                           body(us);
                         });
  }
  common::strided_loop(b, i, b.baked<U32>("row_len", g.units), b.imm<U32>(g.threads),
                       {name + "_tail", name + "_tail_done"},
                       [&](Reg<U32> iv) { body(std::vector<Reg<U32>>{iv}); });
}

template <class E>
ptxkit::Expected<GeneratedPtx>
build_softmax(const SoftmaxRowsConfig& c, const ptxgen::Target& target, const GenOptions& options) {
  const SoftmaxGeometry g = softmax_geometry(c);
  const std::uint32_t warps = g.threads / 32;
  KernelBuilder b(std::string(SoftmaxRows::kName), target);
  b.reqntid(g.threads);
  auto in = b.param<Ptr<Global, const E>>("input");
  auto out = b.param<Ptr<Global, E>>("output");
  auto warp_max = b.shared_array<F32>("warp_max", warps + 1, 4);
  auto warp_sum = b.shared_array<F32>("warp_sum", warps + 1, 4);

  Reg<U32> tid = b.tid_x();
  Reg<U32> row = b.ctaid_x();
  Reg<U64> row_start = b.mul_wide(row, b.baked<U32>("row_len", c.row_len)); // 64-bit offsets
  auto x_row = in + row_start;
  auto y_row = out + row_start;
  const Imm<U32> units = b.baked<U32>("row_len", g.units);

  // 1. This thread's (m, s).
  std::optional<MaxSum> mine;
  std::vector<std::vector<Reg<F32>>> held; // registers mode: the units, masked
  std::vector<Reg<U32>> held_unit;
  std::optional<Reg<Pred>> last_valid; // registers mode with a partial last unit only
  const bool last_partial = g.mode == SoftmaxMode::kRegisters && g.units % g.threads != 0;
  // On chip: the held units' raw words, this thread's slot k, its partial staged unit (index
  // stage_units when there is none) and whether that unit lies in the row.
  std::vector<std::vector<Reg<Word<E>>>> held_words;
  std::function<Ptr<Shared, Word<E>>(std::uint32_t)> slot_of;
  std::uint32_t staged_last = g.stage_units;
  std::optional<Reg<Pred>> staged_valid;
  if (g.mode == SoftmaxMode::kRegisters) {
    for (std::uint32_t j = 0; j < g.per_thread; ++j) {
      Reg<U32> unit = j == 0 ? tid : b.add(tid, b.imm<U32>(j * g.threads));
      const bool guarded = last_partial && j + 1 == g.per_thread;
      if (guarded) {
        // The tail guard: clamp the index into the row, mask what lies past it to -inf.
        last_valid = b.setp(cmp::lt, unit, units);
        unit = b.min(unit, b.baked<U32>("row_len", g.units - 1));
      }
      std::vector<Reg<F32>> v = load_unit<E>(b, x_row, unit, g);
      if (guarded)
        for (auto& r : v)
          r = b.selp(r, b.imm<F32>(kNegInf), *last_valid);
      held.push_back(v);
      held_unit.push_back(unit);
    }
    Reg<F32> m = b.max(max_of(b, held[0]), b.imm<F32>(kLowest)); // masked units are -inf
    for (std::size_t j = 1; j < held.size(); ++j)
      m = b.max(m, max_of(b, held[j]));
    Reg<F32> s = b.mov(b.imm<F32>(0.0f));
    for (const auto& v : held)
      for (Reg<F32> x : v)
        s = b.add(s, exp_shifted(b, x, m));
    mine = MaxSum{m, s};
  } else if (g.mode == SoftmaxMode::kOnChip) {
    // This thread's units: held unit j is row unit j * threads + tid, staged unit k is row unit
    // (reg_units + k) * threads + tid in slot k * threads + tid: constant offsets from its first.
    const std::uint32_t words = g.unit_bytes / 4;
    auto x_first = unit_ptr(b, x_row, tid, g);
    auto stage = b.dynamic_shared<Word<E>>("row_stage", 16);
    auto my_slots = words == 1 ? stage + tid : stage + b.shl(tid, b.imm<U32>(words == 4 ? 2 : 1));
    auto x_unit = [&](std::uint32_t k) {
      return reinterpret_ptr<Word<E>>(x_first + std::int64_t{k} * g.threads * g.unit_elems);
    };
    slot_of = [my_slots, words, threads = g.threads](std::uint32_t k) {
      return my_slots + std::int64_t{k} * threads * words;
    };
    staged_last = g.smem_units % g.threads != 0 ? g.stage_units - 1 : g.stage_units;
    if (staged_last < g.stage_units)
      staged_valid =
          b.setp(cmp::lt, tid, b.baked<U32>("row_len", g.smem_units - staged_last * g.threads));
    // Every load first: the held units' words, then the staged units' copies, one commit group
    // per 32 bytes a thread, in the order they are folded.
    for (std::uint32_t j = 0; j < g.reg_units; ++j)
      held_words.push_back(load_raw(b, x_unit(j), words));
    const std::uint32_t per_group = std::max(1u, 32 / g.unit_bytes);
    const std::uint32_t groups = (g.stage_units + per_group - 1) / per_group;
    for (std::uint32_t k = 0; k < g.stage_units; ++k) {
      if (k == staged_last) {
        auto only_in_row = b.guard(*staged_valid); // the tail guard: nothing past the row
        stage_unit(b, slot_of(k), x_unit(g.reg_units + k), g.unit_bytes);
      } else {
        stage_unit(b, slot_of(k), x_unit(g.reg_units + k), g.unit_bytes);
      }
      if ((k + 1) % per_group == 0 || k + 1 == g.stage_units) b.cp_async_commit_group();
    }
    Var<F32> m = b.var<F32>(b.imm<F32>(kLowest), "max");
    Var<F32> s = b.var<F32>(b.imm<F32>(0.0f), "sum");
    for (std::uint32_t j = 0; j < g.reg_units; j += per_group) {
      const auto end = held_words.begin() + std::min(j + per_group, g.reg_units);
      fold(b, m, s, widen_all<E>(b, {held_words.begin() + j, end}));
    }
    for (std::uint32_t grp = 0; grp < groups; ++grp) {
      b.cp_async_wait_group(groups - 1 - grp); // this group has landed (for this thread)
      std::vector<std::vector<Reg<Word<E>>>> full;
      for (std::uint32_t k = grp * per_group; k < std::min((grp + 1) * per_group, g.stage_units);
           ++k)
        if (k != staged_last) full.push_back(load_raw(b, slot_of(k), words));
      if (!full.empty()) fold(b, m, s, widen_all<E>(b, full));
      if (staged_last / per_group == grp && staged_last < g.stage_units) {
        Label skip = b.new_label("staged_tail_done");
        b.bra_if(!*staged_valid, skip); // the tail guard: its slot was not copied
        fold(b, m, s, widen<E>(b, load_raw(b, slot_of(staged_last), words)));
        b.place(skip);
      }
    }
    mine = MaxSum{m.read(), s.read()};
  } else {
    Var<F32> m = b.var<F32>(b.imm<F32>(kLowest), "max");
    Var<F32> s = b.var<F32>(b.imm<F32>(0.0f), "sum");
    walk_row_units(b, tid, g, "reduce", [&](const std::vector<Reg<U32>>& us) {
      std::vector<Reg<F32>> v;
      for (Reg<U32> u : us) // every load first: kUnroll units in flight
        for (Reg<F32> x : load_unit<E>(b, x_row, u, g))
          v.push_back(x);
      fold(b, m, s, v);
    });
    mine = MaxSum{m.read(), s.read()};
  }

  // 2-3. Block reduction and broadcast.
  MaxSum warp = warp_combine(b, *mine);
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp_id = b.shr(tid, b.imm<U32>(5));
  Reg<Pred> is_lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  auto my_max = warp_max + warp_id; // addresses outside the guard: only the stores predicated
  auto my_sum = warp_sum + warp_id;
  {
    auto only_lane0 = b.guard(is_lane0);
    b.st(my_max, warp.m);
    b.st(my_sum, warp.s);
  }
  b.bar_sync(0);
  Label publish_done = b.new_label("publish_done");
  b.bra_if(!b.setp(cmp::eq, warp_id, b.imm<U32>(0)), publish_done);
  {
    // Warp 0: lane w < warps reads warp w's pair (others start from the identity (-inf, 0)).
    Reg<Pred> has_pair = b.setp(cmp::lt, lane, b.imm<U32>(warps));
    Reg<U32> w = b.min(lane, b.imm<U32>(warps - 1));
    Reg<F32> pm = b.selp(b.ld(warp_max + w), b.imm<F32>(kLowest), has_pair);
    Reg<F32> ps = b.selp(b.ld(warp_sum + w), b.imm<F32>(0.0f), has_pair);
    MaxSum total = warp_combine(b, {pm, ps});
    auto only_lane0 = b.guard(is_lane0);
    b.st(warp_max + warps, total.m);
    b.st(warp_sum + warps, total.s);
  }
  b.place(publish_done);
  b.bar_sync(0);
  // The broadcast: every thread reads the block's (M, S).
  Reg<F32> row_max = b.ld(warp_max + warps);
  Reg<F32> inv_sum = b.rcp(b.ld(warp_sum + warps), rn);

  // 4. Normalize and store.
  auto normalized = [&](const std::vector<Reg<F32>>& v) {
    std::vector<Reg<F32>> y;
    for (Reg<F32> x : v)
      y.push_back(b.mul(exp_shifted(b, x, row_max), inv_sum));
    return y;
  };
  if (g.mode == SoftmaxMode::kRegisters) {
    for (std::size_t j = 0; j < held.size(); ++j) {
      std::vector<Reg<F32>> y = normalized(held[j]);
      if (last_partial && j + 1 == held.size()) {
        Label skip = b.new_label("tail_done");
        b.bra_if(!*last_valid, skip); // the tail guard: no store past the row
        store_unit<E>(b, y_row, held_unit[j], g, y);
        b.place(skip);
      } else {
        store_unit<E>(b, y_row, held_unit[j], g, y);
      }
    }
  } else if (g.mode == SoftmaxMode::kOnChip) {
    auto y_first = unit_ptr(b, y_row, tid, g);
    auto y_unit = [&](std::uint32_t k) {
      return y_first + std::int64_t{k} * g.threads * g.unit_elems;
    };
    for (std::uint32_t j = 0; j < g.reg_units; ++j)
      common::store_f32<E>(b, y_unit(j), normalized(widen<E>(b, held_words[j])));
    for (std::uint32_t k = 0; k < g.stage_units; ++k) {
      std::optional<Label> skip;
      if (k == staged_last) {
        skip = b.new_label("staged_write_done");
        b.bra_if(!*staged_valid, *skip); // the tail guard: no store past the row
      }
      std::vector<Reg<F32>> v = widen<E>(b, load_raw(b, slot_of(k), g.unit_bytes / 4));
      common::store_f32<E>(b, y_unit(g.reg_units + k), normalized(v));
      if (skip) b.place(*skip);
    }
  } else {
    walk_row_units(b, tid, g, "write", [&](const std::vector<Reg<U32>>& us) {
      std::vector<std::vector<Reg<F32>>> v;
      for (Reg<U32> u : us)
        v.push_back(load_unit<E>(b, x_row, u, g)); // loads in flight
      for (std::size_t k = 0; k < us.size(); ++k)
        store_unit<E>(b, y_row, us[k], g, normalized(v[k]));
    });
  }
  b.ret();
  return finish_and_print(b, options);
}

} // namespace

ptxkit::Expected<GeneratedPtx> SoftmaxRows::build(const Config& c, const ptxgen::Target& target,
                                                  const GenOptions& options) {
  return common::with_dtype(c.dtype,
                            [&]<class E>() { return build_softmax<E>(c, target, options); });
}

PTXKIT_REGISTER_KERNEL(SoftmaxRows);

} // namespace ptxkit::kernels
