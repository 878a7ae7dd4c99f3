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
//      of rows 16*i + 4*warp + r8, batches of up to 4 rows loaded before use, dot with q_scaled
//      of each head, shfl.bfly 4/2/1 (all 8 lanes hold the sum), li == 0 stores.
//   3. warp w takes heads w, w+4, ...: lanes hold positions lane + 32 j; m by shfl.bfly max,
//      e = ex2(s - m) written back over the scores, l by shfl.bfly sum; lane 0 stores (m, l).
//   4. o: lane = (sub-row, 16-byte piece f) with DV lanes per row (D/4 in f32, D/8 in halves);
//      warp w takes rows 4*RS*i + RS*w + sub-row (RS = 32/DV rows per warp step), up to 8 rows'
//      V loads in flight, acc[g] += e*v; sub-rows folded with shfl.bfly, warps summed through
//      warp_acc, float4 stores.
// K and V are widened to f32 on load (common/dtype_access.h); everything after is f32, so the f32
// variant's PTX is the one this file emitted before kv_dtype existed.
#include "common/dtype_access.h"
#include "common/warp_reduce.h"
#include "flash_decode_chunk_pass.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
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

template <class E>
void emit_pass(KernelBuilder& b, const FlashDecodeChunkConfig& c, const flash::ChunkPassIo& io,
               const flash::ChunkPassHooks& hooks) {
  const std::uint32_t D = c.head_dim, C = c.chunk_size, G = c.group(), NC = c.num_chunks();
  const std::uint32_t d4 = D / 4;                      // float4s per row of the partials
  const std::uint32_t d4_shift = std::countr_zero(d4); // D is a power of two
  // Elements of K/V per 16-byte load: 4 floats or 8 halves.
  const std::uint32_t vec = std::is_same_v<E, F32> ? 4 : 8;
  auto [q, k_ptrs, v_ptrs, part_max, part_sum, part_out, seq_lens] = io;
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
  Reg<U32> len = b.min(b.ld(seq_lens + slot), b.baked<U32>("max_seq_len", c.max_seq_len));
  Reg<U32> start = b.mul_lo(chunk, chunk_size);
  // First query head of the group, and its partial row (head g of the group adds g * NC).
  Reg<U32> head0 = b.mad_lo(slot, b.baked<U32>("num_heads", c.num_heads),
                            b.mul_lo(kv_head, b.baked<U32>("num_kv_heads", G)));
  Reg<U32> part0 = b.mad_lo(head0, num_chunks, chunk);
  const flash::ChunkBlock block{chunk, kv_head, slot, tid, lane, warp, len, head0};

  Label empty = b.new_label("empty_chunk");
  b.bra_if(!b.setp(cmp::lt, start, len), empty);

  // Rows of this chunk: [start, start + n_valid); loads clamp to row `last`.
  Reg<U32> n_valid = b.min(b.sub(len, start), chunk_size);
  Reg<U32> last_local = b.sub(n_valid, b.imm<U32>(1));
  // The slot's caches: the pointer arrays hold generic addresses of global buffers.
  auto k_cache = b.global_ptr<const E>(b.ld(k_ptrs + slot));
  auto v_cache = b.global_ptr<const E>(b.ld(v_ptrs + slot));
  // Element offset of row `start` of this KV head in the slot's cache.
  Reg<U32> chunk_base =
      b.mad_lo(start, head_dim, b.mul_lo(kv_head, b.baked<U32>("max_seq_len", c.max_seq_len * D)));

  // ---- 1. q of the group, pre-scaled into the log2 domain ----
  const Imm<F32> scale_log2e = b.baked<F32>(
      "scale", static_cast<float>(static_cast<double>(c.effective_scale()) * 1.4426950408889634));
  auto q_group = q + b.mul_lo(head0, head_dim);
  for_each_strided(b, tid, G * d4, [&](Reg<U32> e4) {
    Reg<U32> elem = b.shl(e4, b.imm<U32>(2));
    F4 x = b.ld_nc_v4(q_group + elem);
    for (auto& v : x)
      v = b.mul(v, scale_log2e);
    b.st_v4(sq + elem, x);
  });
  b.bar_sync(0);

  // ---- 2. scores, 8 lanes per row ----
  {
    // Each lane reads D/8 elements of a row in pieces of w (one 16-byte load of f32, or 8 or 4
    // halves): piece p covers elements li * w + p * 8w.
    const std::uint32_t w = std::min(vec, D / 8), pieces = D / (8 * w);
    Reg<U32> li = b.and_(lane, b.imm<U32>(7));
    Reg<U32> row_in_warp = b.add(b.shl(warp, b.imm<U32>(2)), b.shr(lane, b.imm<U32>(3)));
    Reg<U32> li_elem = b.shl(li, b.imm<U32>(std::countr_zero(w)));
    Reg<Pred> writer = b.setp(cmp::eq, li, b.imm<U32>(0));
    const std::uint32_t rows_per_lane = C / 16;
    const std::uint32_t batch = std::min<std::uint32_t>(4, rows_per_lane);
    for (std::uint32_t r0 = 0; r0 < rows_per_lane; r0 += batch) {
      const std::uint32_t n = std::min(batch, rows_per_lane - r0);
      std::vector<Reg<U32>> rows;                // chunk-local row of each batch entry
      std::vector<Reg<Pred>> valid;              // row < n_valid
      std::vector<std::vector<Reg<F32>>> k_vals; // its D/8 elements, widened to f32
      for (std::uint32_t i = 0; i < n; ++i) {
        Reg<U32> row = add_imm(b, row_in_warp, (r0 + i) * 16);
        rows.push_back(row);
        valid.push_back(b.setp(cmp::lt, row, n_valid));
        Reg<U32> off = b.mad_lo(b.min(row, last_local), head_dim, b.add(chunk_base, li_elem));
        auto k_row = k_cache + off;
        std::vector<Reg<F32>> row_k;
        for (std::uint32_t p = 0; p < pieces; ++p)
          for (Reg<F32> x :
               common::load_f32<E>(b, k_row + p * 8 * w, w, common::LoadPath::kReadOnly))
            row_k.push_back(x);
        k_vals.push_back(std::move(row_k));
      }
      for (std::uint32_t g = 0; g < G; ++g) {
        auto q_part = sq + add_imm(b, li_elem, g * D);
        std::vector<Reg<F32>> qg;
        for (std::uint32_t p = 0; p < pieces; ++p)
          for (std::uint32_t j = 0; j < w; j += 4)
            for (Reg<F32> x : b.ld_v4(q_part + (p * 8 * w + j)))
              qg.push_back(x);
        for (std::uint32_t i = 0; i < n; ++i) {
          Reg<F32> dot = b.mul(qg[0], k_vals[i][0]);
          for (std::size_t j = 1; j < qg.size(); ++j)
            dot = b.fma(qg[j], k_vals[i][j], dot, rn);
          // Butterfly inside the 8-lane group: every lane of the group ends with the full dot.
          dot = common::warp_all_sum(b, dot, {.width = 8});
          Reg<F32> s = b.selp(dot, b.imm<F32>(kNegInf), valid[i]);
          auto slot_s = ss + add_imm(b, rows[i], g * C);
          auto only_writer = b.guard(writer);
          b.st(slot_s, s);
        }
      }
    }
  }
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
    const std::uint32_t dv = D / vec;              // lanes per row, one 16-byte load each
    const std::uint32_t rs = 32 / dv;              // rows per warp step
    const std::uint32_t steps = C / (kWarps * rs); // steps per warp
    Reg<U32> f = b.and_(lane, b.imm<U32>(dv - 1));
    Reg<U32> sub_row = b.shr(lane, b.imm<U32>(std::countr_zero(dv)));
    Reg<U32> row_in_step = b.mad_lo(warp, b.imm<U32>(rs), sub_row);
    Reg<U32> f_elem = b.shl(f, b.imm<U32>(std::countr_zero(vec)));
    Reg<U32> v_lane = b.add(chunk_base, f_elem);
    std::vector<std::vector<Reg<F32>>> acc;
    for (std::uint32_t g = 0; g < G; ++g) {
      Reg<F32> z = b.mov(b.imm<F32>(0.0f));
      acc.emplace_back(vec, z);
    }
    const std::uint32_t batch = std::min<std::uint32_t>(8, steps);
    for (std::uint32_t s0 = 0; s0 < steps; s0 += batch) {
      const std::uint32_t n = std::min(batch, steps - s0);
      std::vector<Reg<U32>> rows;
      std::vector<std::vector<Reg<F32>>> vrow;
      for (std::uint32_t i = 0; i < n; ++i) {
        Reg<U32> row = add_imm(b, row_in_step, (s0 + i) * kWarps * rs);
        rows.push_back(row);
        vrow.push_back(
            common::load_f32<E>(b, v_cache + b.mad_lo(b.min(row, last_local), head_dim, v_lane),
                                vec, common::LoadPath::kReadOnly));
      }
      for (std::uint32_t i = 0; i < n; ++i) {
        auto e_col = ss + rows[i];
        for (std::uint32_t g = 0; g < G; ++g) {
          Reg<F32> w = b.ld(e_col + g * C); // masked rows hold exactly 0
          for (std::uint32_t j = 0; j < vec; ++j)
            acc[g][j] = b.fma(w, vrow[i][j], acc[g][j], rn);
        }
      }
    }
    // Fold the sub-rows of each warp step (lanes f, f + dv, ...): every lane gets the sum.
    common::for_each_butterfly_level(b, {.width = 32, .down_to = dv}, [&](Imm<U32> delta) {
      for (auto& a : acc)
        for (auto& x : a)
          x = b.add(x, b.shfl_bfly(x, delta));
    });
    Label folded = b.new_label("folded");
    if (rs > 1) b.bra_if(!b.setp(cmp::eq, sub_row, b.imm<U32>(0)), folded);
    auto my_acc =
        sacc + b.mad_lo(warp, b.imm<U32>(G * D), b.shl(f, b.imm<U32>(std::countr_zero(vec))));
    for (std::uint32_t g = 0; g < G; ++g)
      for (std::uint32_t j = 0; j < vec; j += 4)
        b.st_v4(my_acc + (g * D + j), {acc[g][j], acc[g][j + 1], acc[g][j + 2], acc[g][j + 3]});
    b.place(folded);
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
                            const ChunkPassIo& io, const ChunkPassHooks& hooks) {
  common::with_dtype(c.kv_dtype, [&]<class E>() { emit_pass<E>(b, c, io, hooks); });
}

ptxkit::Expected<GeneratedPtx>
FlashDecodeChunk::build(const Config& c, const ptxgen::Target& target, const GenOptions& options) {
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  flash::ChunkPassIo io{
      .q = b.param<Ptr<Global, const F32>>("q"),
      .k_ptrs = b.param<Ptr<Global, const U64>>("k_ptrs"),
      .v_ptrs = b.param<Ptr<Global, const U64>>("v_ptrs"),
      .part_max = b.param<Ptr<Global, F32>>("partial_max"),
      .part_sum = b.param<Ptr<Global, F32>>("partial_sum"),
      .part_out = b.param<Ptr<Global, F32>>("partial_out"),
      .seq_lens = b.param<Ptr<Global, const U32>>("seq_lens"),
  };
  flash::emit_chunk_pass(b, c, io);
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(FlashDecodeChunk);

} // namespace ptxkit::kernels
