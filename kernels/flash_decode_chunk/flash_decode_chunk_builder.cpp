// flash_decode_chunk_builder.cpp: the flash-decoding chunk pass as PTX on ptxgen, and its
// registration.
//
// Block (chunk = %ctaid.x, kv_head = %ctaid.y, slot = %ctaid.z), 4 warps; G = the query heads of
// the KV group, D = head_dim, C = chunk_size, all baked. Shared memory: q_scaled[G*D],
// scores[G*C] (scores, then their exponentials), warp_acc[4*G*D].
//   0. len = min(seq_lens[slot], max_seq_len); a chunk starting at or past len writes the empty
//      state (m = -inf, l = 0, o = 0) and returns. Rows past len inside the last chunk are clamped
//      to row len-1 for loading and their scores masked to -inf (weight exactly 0).
//   1. q_scaled = q[slot, group heads] * (scale * log2 e)               (float4 per thread)
//   2. scores: lane = (row group r8 = lane/8, part li = lane%8); the lane reads pieces of w
//      elements (w = 4 floats, or min(8, D/8) halves: one 16-byte load or less) at li*w + p*8w
//      of rows 16*i + 4*warp + r8, batches of n = 4 rows (2 for a last odd pair) loaded before
//      use, in the register order r ^ (li % n); heads in sets of up to 8/n, head slot u of the
//      lane is head u ^ (li / n % set) (its q read from a lane-dependent address). The set's dots
//      are summed over the 8 lanes by a split butterfly (common/split_reduce.h), which leaves
//      lane li with the dot of batch row li % n and head li / n % set: 7 shuffles for 8 dots,
//      where one butterfly per dot took 24. Every lane that holds a distinct dot stores it.
//   3. warp w takes heads w, w+4, ...: lanes hold positions lane + 32 j; m by shfl.bfly max,
//      e = ex2(s - m) written back over the scores, l by shfl.bfly sum; lane 0 stores (m, l).
//   4. o: lane = (sub-row, 16-byte piece f) with DV lanes per row (D/4 in f32, D/8 in halves);
//      warp w takes rows w*C/4 + sub-row*S + i for steps i < S (RS = 32/DV rows per warp step,
//      S = C/(4*RS)), up to 8 rows' V loads in flight, the weights of 4 (or 2) consecutive rows
//      in one vector load, acc[g] += e*v; the RS sub-rows folded by split butterflies over head
//      sets of up to RS heads (head slot u of the lane is u ^ (sub-row % set)), so each lane
//      stores one head of each set; warps summed through warp_acc, float4 stores.
// K and V are widened to f32 on load (common/dtype_access.h); everything after is f32, so the f32
// variant's PTX is the one this file emitted before kv_dtype existed.
#include "common/dtype_access.h"
#include "common/split_reduce.h"
#include "common/warp_reduce.h"
#include "flash_decode_chunk_pass.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <map>
#include <optional>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <type_traits>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

constexpr std::uint32_t kThreads = FlashDecodeChunk::kThreads;
constexpr std::uint32_t kWarps = FlashDecodeChunk::kWarps;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

using F4 = std::array<Reg<F32>, 4>;

// r + k, without an instruction when k is 0.
Reg<U32> add_imm(KernelBuilder& b, Reg<U32> r, std::uint32_t k) {
  return k == 0 ? r : b.add(r, b.imm<U32>(k));
}

// body(e4) for e4 = tid, tid + 128, ... < count: whole rounds unguarded, the last one behind a
// branch when count is not a multiple of the block size.
template <class F>
void for_each_strided(KernelBuilder& b, Reg<U32> tid, std::uint32_t count, F&& body) {
  for (std::uint32_t base = 0; base < count; base += kThreads) {
    Reg<U32> e4 = add_imm(b, tid, base);
    if (base + kThreads <= count) {
      body(e4);
      continue;
    }
    Label skip = b.new_label("strided_tail");
    b.bra_if(!b.setp(cmp::lt, e4, b.imm<U32>(count)), skip);
    body(e4);
    b.place(skip);
  }
}

// The lanes' parts of the score step: lane = (row group lane / 8, part li = lane % 8).
struct ScoreLanes {
  Reg<U32> li, row_in_warp, li_elem;
};

ScoreLanes score_lanes(KernelBuilder& b, Reg<U32> lane, Reg<U32> warp, std::uint32_t w) {
  Reg<U32> li = b.and_(lane, b.imm<U32>(7));
  Reg<U32> row_in_warp = b.add(b.shl(warp, b.imm<U32>(2)), b.shr(lane, b.imm<U32>(3)));
  Reg<U32> li_elem = b.shl(li, b.imm<U32>(std::countr_zero(w)));
  return {li, row_in_warp, li_elem};
}

// The lanes' parts of the o step: lane = (sub-row, 16-byte piece f), dv lanes per row; the lane's
// rows are row_base + step for step = 0 .. steps-1 (consecutive, so their weights load as
// vectors), row_base = warp * C/4 + sub_row * steps.
struct ValueLanes {
  Reg<U32> f, sub_row, row_base, v_lane;
};

ValueLanes value_lanes(KernelBuilder& b, Reg<U32> lane, Reg<U32> warp, Reg<U32> chunk_base,
                       std::uint32_t dv, std::uint32_t steps, std::uint32_t chunk,
                       std::uint32_t vec) {
  Reg<U32> f = b.and_(lane, b.imm<U32>(dv - 1));
  Reg<U32> sub_row = b.shr(lane, b.imm<U32>(std::countr_zero(dv)));
  Reg<U32> row_base =
      b.mad_lo(warp, b.imm<U32>(chunk / kWarps), b.mul_lo(sub_row, b.imm<U32>(steps)));
  Reg<U32> f_elem = b.shl(f, b.imm<U32>(std::countr_zero(vec)));
  return {f, sub_row, row_base, b.add(chunk_base, f_elem)};
}

// The query heads split into sets of power-of-two sizes (largest first, at most `most`), for the
// split reductions of common/split_reduce.h: a set of 2^k heads is summed over k lane bits.
struct HeadSet {
  std::uint32_t first, size;
};

std::vector<HeadSet> head_sets(std::uint32_t heads, std::uint32_t most) {
  std::vector<HeadSet> sets;
  for (std::uint32_t h = 0; h < heads;) {
    std::uint32_t size = std::bit_floor(std::min(most, heads - h));
    sets.push_back({h, size});
    h += size;
  }
  return sets;
}

template <class E>
void emit_pass(KernelBuilder& b, const FlashDecodeChunkConfig& c, const flash::ChunkPassIo& io,
               const flash::ChunkPassHooks& hooks, const flash::ChunkPassOptions& opt) {
  const std::uint32_t D = c.head_dim, C = c.chunk_size, G = c.group(), NC = c.num_chunks();
  const std::uint32_t d4 = D / 4;                      // float4s per row of the partials
  const std::uint32_t d4_shift = std::countr_zero(d4); // D is a power of two
  // Elements of K/V per 16-byte load: 4 floats or 8 halves.
  const std::uint32_t vec = std::is_same_v<E, F32> ? 4 : 8;
  const std::uint32_t bytes = std::is_same_v<E, F32> ? 4 : 2;
  // Score step: each lane reads D/8 elements of a row in pieces of w (one 16-byte load of f32, or
  // 8 or 4 halves): piece p covers elements li * w + p * 8w; C/16 rows per lane.
  const std::uint32_t w = std::min(vec, D / 8), pieces = D / (8 * w), rows_per_lane = C / 16;
  // O step: dv lanes per row, one 16-byte load each; rs rows per warp step, `steps` per warp.
  const std::uint32_t dv = D / vec, rs = 32 / dv, steps = C / (kWarps * rs);
  // With prefetch, the rows of K (then of V) whose loads fit the budget are issued up front.
  const std::uint32_t k_row_words = D / 8 * bytes / 4, v_row_words = 4;
  const std::uint32_t k_pre =
      opt.prefetch ? std::min(rows_per_lane, flash::kPrefetchWords / k_row_words) : 0;
  std::uint32_t v_pre =
      opt.prefetch ? std::min(steps, (flash::kPrefetchWords - k_pre * k_row_words) / v_row_words)
                   : 0;
  // Named copies, not a structured binding: the lambdas below capture them, which clang 14
  // refuses for bindings.
  const auto q = io.q;
  const auto k_ptrs = io.k_ptrs;
  const auto v_ptrs = io.v_ptrs;
  const auto part_max = io.part_max;
  const auto part_sum = io.part_sum;
  const auto part_out = io.part_out;
  const auto seq_lens = io.seq_lens;
  auto sq = b.shared_array<F32>("q_scaled", std::uint64_t{G} * D, 16);
  auto ss = b.shared_array<F32>("scores", std::uint64_t{G} * C, 16);
  auto sacc = b.shared_array<F32>("warp_acc", std::uint64_t{kWarps} * G * D, 16);

  Reg<U32> chunk = b.ctaid_x();
  Reg<U32> kv_head = b.ctaid_y();
  Reg<U32> slot = b.ctaid_z();
  Reg<U32> tid = b.tid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));

  const Imm<U32> head_dim = b.baked<U32>("head_dim", D);
  const Imm<U32> chunk_size = b.baked<U32>("chunk_size", C);
  const Imm<U32> num_chunks = b.baked<U32>("chunk_size", NC);
  // With prefetch the length and both cache pointers are requested together (independent loads).
  Reg<U32> seq_len = b.ld(seq_lens + slot);
  std::optional<Reg<U64>> k_addr, v_addr;
  if (opt.prefetch) {
    k_addr = b.ld(k_ptrs + slot);
    v_addr = b.ld(v_ptrs + slot);
  }
  Reg<U32> len = b.min(seq_len, b.baked<U32>("max_seq_len", c.max_seq_len));
  Reg<U32> start = b.mul_lo(chunk, chunk_size);
  // First query head of the group, and its partial row (head g of the group adds g * NC).
  Reg<U32> head0 = b.mad_lo(slot, b.baked<U32>("num_heads", c.num_heads),
                            b.mul_lo(kv_head, b.baked<U32>("num_kv_heads", G)));
  Reg<U32> part0 = b.mad_lo(head0, num_chunks, chunk);
  const flash::ChunkBlock block{chunk, kv_head, slot, tid, lane, warp, len, head0};

  // q of the group: float4 e4 of the group for e4 = tid, tid + 128, ... < G * d4. With prefetch
  // its loads are issued with the pointers' (a partial last round loads a clamped float4 and
  // skips the store), and scaled and stored once the K/V loads are out.
  std::optional<Ptr<Global, const F32>> q_group;
  std::vector<std::pair<Reg<U32>, F4>> q_pre;
  if (opt.prefetch) q_group = q + b.mul_lo(head0, head_dim);
  if (opt.prefetch)
    for (std::uint32_t base = 0; base < G * d4; base += kThreads) {
      Reg<U32> e4 = add_imm(b, tid, base);
      Reg<U32> e4_load = base + kThreads <= G * d4 ? e4 : b.min(e4, b.imm<U32>(G * d4 - 1));
      q_pre.emplace_back(e4, b.ld_nc_v4(*q_group + b.shl(e4_load, b.imm<U32>(2))));
    }

  Label empty = b.new_label("empty_chunk");
  auto branch_if_empty = [&] { b.bra_if(!b.setp(cmp::lt, start, len), empty); };
  if (!opt.prefetch) branch_if_empty();

  // Rows of this chunk: [start, start + n_valid). Without prefetch, loads clamp to the last
  // valid row. With prefetch, they clamp only to the cache's last row (no dependence on len, so
  // they go out with the pointers); rows past len are then masked by selp: scores to -inf, V to
  // 0 (the cache past len may hold anything, NaN included).
  std::optional<Reg<U32>> n_valid_early, last_local;
  if (!opt.prefetch) {
    n_valid_early = b.min(b.sub(len, start), chunk_size);
    last_local = b.sub(*n_valid_early, b.imm<U32>(1));
  } else if (c.max_seq_len % C != 0) {
    last_local =
        b.min(b.sub(b.baked<U32>("max_seq_len", c.max_seq_len - 1), start), b.imm<U32>(C - 1));
  }
  // The slot's caches: the pointer arrays hold generic addresses of global buffers.
  auto k_cache = b.global_ptr<const E>(opt.prefetch ? *k_addr : b.ld(k_ptrs + slot));
  auto v_cache = b.global_ptr<const E>(opt.prefetch ? *v_addr : b.ld(v_ptrs + slot));
  auto clamp = [&](Reg<U32> row) { return last_local ? b.min(row, *last_local) : row; };
  // Element offset of row `start` of this KV head in the slot's cache.
  Reg<U32> chunk_base =
      b.mad_lo(start, head_dim, b.mul_lo(kv_head, b.baked<U32>("max_seq_len", c.max_seq_len * D)));

  // One row's part of K (score step) or of V (o step), widened to f32. Prefetched rows use plain
  // loads: ptxas may sink ld.global.nc past bar.sync to its first use, but not a plain load.
  const auto path = opt.prefetch ? common::LoadPath::kPlain : common::LoadPath::kReadOnly;
  std::optional<ScoreLanes> sl;
  auto load_k = [&](Reg<U32> row) {
    auto k_row = k_cache + b.mad_lo(clamp(row), head_dim, b.add(chunk_base, sl->li_elem));
    std::vector<Reg<F32>> row_k;
    for (std::uint32_t p = 0; p < pieces; ++p)
      for (Reg<F32> x : common::load_f32<E>(b, k_row + p * 8 * w, w, path))
        row_k.push_back(x);
    return row_k;
  };
  std::optional<ValueLanes> vl;
  auto v_row_of = [&](std::uint32_t step) { return add_imm(b, vl->row_base, step); };
  auto load_v = [&](Reg<U32> row) {
    return common::load_f32<E>(b, v_cache + b.mad_lo(clamp(row), head_dim, vl->v_lane), vec, path);
  };
  // The score step takes the lane's rows in batches of n = 4 (2 for the last when rows_per_lane %
  // 4 == 2). Entry r = r0 + i of batch (r0, n) reads row r0 + (i ^ (li % n)) of the lane's 16-row
  // stride: the 8 lanes of a row group hold the batch's rows in different register orders, as the
  // split reduction of the dot products wants (common/split_reduce.h).
  auto batch_rows = [&](std::uint32_t r0) { return std::min(4u, rows_per_lane - r0); };
  auto k_row = [&](std::uint32_t r) {
    const std::uint32_t r0 = r - r % 4, i = r - r0;
    Reg<U32> perm = b.and_(sl->li, b.imm<U32>(batch_rows(r0) - 1));
    Reg<U32> local = i == 0 ? perm : b.xor_(perm, b.imm<U32>(i));
    return b.mad_lo(local, b.imm<U32>(16), add_imm(b, sl->row_in_warp, r0 * 16));
  };
  std::vector<std::vector<Reg<F32>>> k_pre_vals, v_pre_vals;
  if (opt.prefetch) {
    sl = score_lanes(b, lane, warp, w);
    for (std::uint32_t r = 0; r < k_pre; ++r)
      k_pre_vals.push_back(load_k(k_row(r)));
    vl = value_lanes(b, lane, warp, chunk_base, dv, steps, C, vec);
    for (std::uint32_t s = 0; s < v_pre; ++s)
      v_pre_vals.push_back(load_v(v_row_of(s)));
  }
  // ---- 1. q of the group, pre-scaled into the log2 domain ----
  const Imm<F32> scale_log2e = b.baked<F32>(
      "scale", static_cast<float>(static_cast<double>(c.effective_scale()) * 1.4426950408889634));
  if (opt.prefetch) {
    for (std::size_t r = 0; r < q_pre.size(); ++r) {
      auto& [e4, x] = q_pre[r];
      for (auto& v : x)
        v = b.mul(v, scale_log2e);
      Reg<U32> elem = b.shl(e4, b.imm<U32>(2));
      if ((r + 1) * kThreads <= G * d4) {
        b.st_v4(sq + elem, x);
        continue;
      }
      Label skip = b.new_label("q_tail");
      b.bra_if(!b.setp(cmp::lt, e4, b.imm<U32>(G * d4)), skip);
      b.st_v4(sq + elem, x);
      b.place(skip);
    }
  } else {
    q_group = q + b.mul_lo(head0, head_dim);
    for_each_strided(b, tid, G * d4, [&](Reg<U32> e4) {
      Reg<U32> elem = b.shl(e4, b.imm<U32>(2));
      F4 x = b.ld_nc_v4(*q_group + elem);
      for (auto& v : x)
        v = b.mul(v, scale_log2e);
      b.st_v4(sq + elem, x);
    });
  }
  b.bar_sync(0);
  // With prefetch a chunk past len leaves only here: the loads above are out before anything
  // waits on len (a branch before them would let ptxas sink them past it).
  if (opt.prefetch) branch_if_empty();
  Reg<U32> n_valid = n_valid_early ? *n_valid_early : b.min(b.sub(len, start), chunk_size);

  // ---- 2. scores, 8 lanes per row ----
  {
    if (!sl) sl = score_lanes(b, lane, warp, w);
    const Reg<U32> li = sl->li, row_in_warp = sl->row_in_warp, li_elem = sl->li_elem;
    for (std::uint32_t r0 = 0; r0 < rows_per_lane; r0 += 4) {
      const std::uint32_t n = batch_rows(r0), rb = std::countr_zero(n);
      std::vector<std::vector<Reg<F32>>> k_vals; // register slot t: row r0 + (t ^ (li % n))
      for (std::uint32_t t = 0; t < n; ++t)
        k_vals.push_back(r0 + t < k_pre ? k_pre_vals[r0 + t] : load_k(k_row(r0 + t)));
      // The lane ends with the dot of batch row li % n (one head of each set): its score slot.
      Reg<U32> my_row =
          b.mad_lo(b.and_(li, b.imm<U32>(n - 1)), b.imm<U32>(16), add_imm(b, row_in_warp, r0 * 16));
      Reg<Pred> valid = b.setp(cmp::lt, my_row, n_valid);
      // Sets of up to 8 / n heads: a set's hs * n dots are summed over the 8 lanes of the row
      // group by a split reduction over lane bits 1, 2, 4 (row bits first, then head bits), and
      // plain butterflies over the bits left.
      for (const HeadSet& set : head_sets(G, 8 / n)) {
        const std::uint32_t k = rb + std::countr_zero(set.size);
        // Head slot u of the lane is head set.first + (u ^ hperm).
        std::optional<Reg<U32>> hperm;
        if (set.size > 1) hperm = b.and_(b.shr(li, b.imm<U32>(rb)), b.imm<U32>(set.size - 1));
        std::vector<Reg<F32>> dots; // slot u * n + t
        for (std::uint32_t u = 0; u < set.size; ++u) {
          Reg<U32> q_off = li_elem;
          if (hperm)
            q_off = b.mad_lo(u == 0 ? *hperm : b.xor_(*hperm, b.imm<U32>(u)), head_dim, li_elem);
          auto q_part = sq + q_off + set.first * D;
          std::vector<Reg<F32>> qg;
          for (std::uint32_t p = 0; p < pieces; ++p)
            for (std::uint32_t j = 0; j < w; j += 4)
              for (Reg<F32> x : b.ld_v4(q_part + (p * 8 * w + j)))
                qg.push_back(x);
          for (std::uint32_t t = 0; t < n; ++t) {
            Reg<F32> dot = b.mul(qg[0], k_vals[t][0]);
            for (std::size_t j = 1; j < qg.size(); ++j)
              dot = b.fma(qg[j], k_vals[t][j], dot, rn);
            dots.push_back(dot);
          }
        }
        std::vector<std::uint32_t> deltas;
        for (std::uint32_t j = 0; j < k; ++j)
          deltas.push_back(1u << j);
        Reg<F32> dot = common::split_all_sum(b, dots, deltas);
        for (std::uint32_t d = 1u << k; d < 8; d *= 2)
          dot = b.add(dot, b.shfl_bfly(dot, b.imm<U32>(d)));
        Reg<F32> s = b.selp(dot, b.imm<F32>(kNegInf), valid);
        auto slot_s = ss + (hperm ? b.mad_lo(*hperm, chunk_size, my_row) : my_row) + set.first * C;
        if (k == 3) {
          b.st(slot_s, s);
          continue;
        }
        // Lanes that differ only in the plain bits hold the same sum: the lowest stores it.
        auto only_writer = b.guard(b.setp(cmp::lt, li, b.imm<U32>(1u << k)));
        b.st(slot_s, s);
      }
    }
  }
  // With prefetch, V rows past the budget are issued now (K's registers are free), so their
  // round trip overlaps the softmax.
  for (; v_pre < (opt.prefetch ? steps : 0); ++v_pre)
    v_pre_vals.push_back(load_v(v_row_of(v_pre)));
  b.bar_sync(0);

  // ---- 3. softmax over the chunk, one warp per head ----
  for (std::uint32_t g0 = 0; g0 < G; g0 += kWarps) {
    Reg<U32> g = add_imm(b, warp, g0);
    std::optional<Label> skip;
    if (g0 + kWarps > G) {
      skip = b.new_label("softmax_skip");
      b.bra_if(!b.setp(cmp::lt, g, b.imm<U32>(G)), *skip);
    }
    auto s_row = ss + b.mad_lo(g, chunk_size, lane);
    std::vector<Reg<F32>> s;
    for (std::uint32_t j = 0; j < C / 32; ++j)
      s.push_back(b.ld(s_row + j * 32));
    Reg<F32> m = s[0];
    for (std::size_t j = 1; j < s.size(); ++j)
      m = b.max(m, s[j]);
    m = common::warp_all_max(b, m);
    Reg<F32> l = b.mov(b.imm<F32>(0.0f));
    for (std::uint32_t j = 0; j < C / 32; ++j) {
      Reg<F32> e = b.ex2(b.sub(s[j], m), approx);
      b.st(s_row + j * 32, e);
      l = b.add(l, e);
    }
    l = common::warp_all_sum(b, l);
    Reg<U32> part = b.mad_lo(g, num_chunks, part0);
    auto max_slot = part_max + part;
    auto sum_slot = part_sum + part;
    {
      auto only_lane0 = b.guard(b.setp(cmp::eq, lane, b.imm<U32>(0)));
      b.st(max_slot, m);
      b.st(sum_slot, l);
    }
    if (skip) b.place(*skip);
  }
  b.bar_sync(0);

  // ---- 4. o = sum_p e_p v[p], rows split over the warps ----
  {
    if (!vl) vl = value_lanes(b, lane, warp, chunk_base, dv, steps, C, vec);
    const Reg<U32> f = vl->f, sub_row = vl->sub_row, lane_row = vl->row_base;
    // The rs sub-rows of a warp step are folded by split reductions over head sets of up to rs
    // heads: head slot u of a set is head first + (u ^ (sub_row % size)), so the weights load
    // from lane-dependent addresses and the lane ends with head first + sub_row % size.
    const std::vector<HeadSet> sets = head_sets(G, rs);
    // Per set size: the permutation and the lane's weight offset of each slot (at step 0, head
    // 0; the set's first head adds an immediate), so that sets of one size share registers.
    std::map<std::uint32_t, std::optional<Reg<U32>>> perm_of;
    std::map<std::uint32_t, std::vector<Reg<U32>>> slot_off;
    std::vector<std::vector<std::vector<Reg<F32>>>> acc; // per set, slot, element
    for (const HeadSet& set : sets) {
      if (!perm_of.contains(set.size)) {
        std::optional<Reg<U32>> perm;
        if (set.size > 1) perm = b.and_(sub_row, b.imm<U32>(set.size - 1));
        std::vector<Reg<U32>> offs;
        for (std::uint32_t u = 0; u < set.size; ++u)
          offs.push_back(
              perm ? b.mad_lo(u == 0 ? *perm : b.xor_(*perm, b.imm<U32>(u)), chunk_size, lane_row)
                   : lane_row);
        perm_of.emplace(set.size, perm);
        slot_off.emplace(set.size, offs);
      }
      Reg<F32> z = b.mov(b.imm<F32>(0.0f));
      acc.emplace_back(set.size, std::vector<Reg<F32>>(vec, z));
    }
    // Weights of consecutive steps load as one vector where the steps allow it.
    const std::uint32_t e_vec = steps % 4 == 0 ? 4 : steps % 2 == 0 ? 2 : 1;
    const std::uint32_t batch = std::min<std::uint32_t>(8, steps);
    for (std::uint32_t s0 = 0; s0 < steps; s0 += batch) {
      const std::uint32_t n = std::min(batch, steps - s0);
      std::vector<Reg<U32>> rows;
      std::vector<std::vector<Reg<F32>>> vrow;
      for (std::uint32_t i = 0; i < n; ++i) {
        Reg<U32> row = v_row_of(s0 + i);
        rows.push_back(row);
        vrow.push_back(s0 + i < v_pre ? v_pre_vals[s0 + i] : load_v(row));
      }
      for (std::uint32_t i0 = 0; i0 < n; i0 += e_vec) {
        // e[set][u][i]: the weight of step s0 + i0 + i (masked rows hold exactly 0).
        std::vector<std::vector<std::vector<Reg<F32>>>> e(sets.size());
        for (std::size_t si = 0; si < sets.size(); ++si)
          for (Reg<U32> off : slot_off.at(sets[si].size)) {
            auto at = ss + off + (sets[si].first * C + s0 + i0);
            std::vector<Reg<F32>> x;
            if (e_vec == 4)
              for (Reg<F32> v : b.ld_v4(at))
                x.push_back(v);
            else if (e_vec == 2)
              for (Reg<F32> v : b.ld_v2(at))
                x.push_back(v);
            else
              x.push_back(b.ld(at));
            e[si].push_back(x);
          }
        for (std::uint32_t i = i0; i < i0 + e_vec; ++i) {
          if (opt.prefetch) {
            // Rows past len were loaded as they are: 0 * NaN would poison the sums.
            Reg<Pred> in_len = b.setp(cmp::lt, rows[i], n_valid);
            for (auto& x : vrow[i])
              x = b.selp(x, b.imm<F32>(0.0f), in_len);
          }
          for (std::size_t si = 0; si < sets.size(); ++si)
            for (std::size_t u = 0; u < acc[si].size(); ++u)
              for (std::uint32_t j = 0; j < vec; ++j)
                acc[si][u][j] = b.fma(e[si][u][i - i0], vrow[i][j], acc[si][u][j], rn);
        }
      }
    }
    // Fold the sub-rows of each warp step (lanes f, f + dv, ...), then store the lane's head.
    auto warp_acc =
        sacc + b.mad_lo(warp, b.imm<U32>(G * D), b.shl(f, b.imm<U32>(std::countr_zero(vec))));
    for (std::size_t si = 0; si < sets.size(); ++si) {
      const std::uint32_t k = std::countr_zero(sets[si].size);
      std::vector<std::uint32_t> deltas;
      for (std::uint32_t j = 0; j < k; ++j)
        deltas.push_back(dv << j);
      std::vector<Reg<F32>> o = common::split_all_sum(b, acc[si], deltas);
      for (std::uint32_t d = dv << k; d < 32; d *= 2)
        for (auto& x : o)
          x = b.add(x, b.shfl_bfly(x, b.imm<U32>(d)));
      const std::optional<Reg<U32>>& perm = perm_of.at(sets[si].size);
      auto my_acc = (perm ? warp_acc + b.mul_lo(*perm, head_dim) : warp_acc) + sets[si].first * D;
      auto store = [&] {
        for (std::uint32_t j = 0; j < vec; j += 4)
          b.st_v4(my_acc + j, {o[j], o[j + 1], o[j + 2], o[j + 3]});
      };
      if (dv << k == 32) {
        store();
        continue;
      }
      // Sub-rows that differ only in the plain bits hold the same sum: the lowest stores it.
      auto only_writer = b.guard(b.setp(cmp::lt, sub_row, b.imm<U32>(1u << k)));
      store();
    }
  }
  b.bar_sync(0);
  // Sum the 4 warps' partial o and store it: float4 e4 of the group is head e4 / d4, f e4 % d4.
  for_each_strided(b, tid, G * d4, [&](Reg<U32> e4) {
    auto col = sacc + b.shl(e4, b.imm<U32>(2));
    F4 o = b.ld_v4(col);
    for (std::uint32_t w = 1; w < kWarps; ++w) {
      F4 x = b.ld_v4(col + w * G * D);
      for (int j = 0; j < 4; ++j)
        o[j] = b.add(o[j], x[j]);
    }
    Reg<U32> g = b.shr(e4, b.imm<U32>(d4_shift));
    Reg<U32> fe = b.shl(b.and_(e4, b.imm<U32>(d4 - 1)), b.imm<U32>(2));
    Reg<U32> elem = b.mad_lo(b.mad_lo(g, num_chunks, part0), head_dim, fe);
    b.st_v4(part_out + elem, o);
  });
  if (hooks.after_partials)
    hooks.after_partials(block);
  else
    b.ret();

  // ---- a chunk past the slot's length ----
  b.place(empty);
  if (hooks.at_empty) {
    hooks.at_empty(block);
    return;
  }
  {
    Reg<F32> zero = b.mov(b.imm<F32>(0.0f));
    Label heads_done = b.new_label("empty_heads_done");
    b.bra_if(!b.setp(cmp::lt, tid, b.imm<U32>(G)), heads_done);
    Reg<U32> part = b.mad_lo(tid, num_chunks, part0);
    b.st(part_max + part, b.imm<F32>(kNegInf));
    b.st(part_sum + part, zero);
    b.place(heads_done);
    for_each_strided(b, tid, G * d4, [&](Reg<U32> e4) {
      Reg<U32> g = b.shr(e4, b.imm<U32>(d4_shift));
      Reg<U32> fe = b.shl(b.and_(e4, b.imm<U32>(d4 - 1)), b.imm<U32>(2));
      Reg<U32> elem = b.mad_lo(b.mad_lo(g, num_chunks, part0), head_dim, fe);
      b.st_v4(part_out + elem, {zero, zero, zero, zero});
    });
  }
  b.ret();
}

} // namespace

void flash::emit_chunk_pass(KernelBuilder& b, const FlashDecodeChunkConfig& c,
                            const ChunkPassIo& io, const ChunkPassHooks& hooks,
                            const ChunkPassOptions& options) {
  common::with_dtype(c.kv_dtype, [&]<class E>() { emit_pass<E>(b, c, io, hooks, options); });
}

flash::ChunkPassIo flash::declare_chunk_pass_io(KernelBuilder& b) {
  // Braced initialization runs left to right: the parameters are declared in this order.
  return ChunkPassIo{
      .q = b.param<Ptr<Global, const F32>>("q"),
      .k_ptrs = b.param<Ptr<Global, const U64>>("k_ptrs"),
      .v_ptrs = b.param<Ptr<Global, const U64>>("v_ptrs"),
      .part_max = b.param<Ptr<Global, F32>>("partial_max"),
      .part_sum = b.param<Ptr<Global, F32>>("partial_sum"),
      .part_out = b.param<Ptr<Global, F32>>("partial_out"),
      .seq_lens = b.param<Ptr<Global, const U32>>("seq_lens"),
  };
}

ptxkit::Expected<GeneratedPtx>
FlashDecodeChunk::build(const Config& c, const ptxgen::Target& target, const GenOptions& options) {
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  // The occupancy the pass had before its split reductions in f32: 5 blocks per SM (96 registers).
  // With halves, 96 registers spill: 4 blocks (128).
  b.minnctapersm(c.kv_dtype == DType::kF32 ? 5 : 4);
  const flash::ChunkPassIo io = flash::declare_chunk_pass_io(b);
  flash::emit_chunk_pass(b, c, io);
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(FlashDecodeChunk);

} // namespace ptxkit::kernels
