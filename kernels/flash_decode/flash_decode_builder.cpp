// flash_decode_builder.cpp: one-launch flash-decoding as PTX on ptxgen, and its registration.
//
// The chunk pass is flash_decode_chunk's (flash::emit_chunk_pass) with prefetch on: a lone launch
// of 4 warps per block is bound by its chain of dependent DRAM round trips, not by bandwidth, so
// seq_lens[slot], both cache pointers and q are requested at once, and every K and V row of the
// chunk (as the register budget allows) right after the pointers, before q's barrier, at rows
// clamped to max_seq_len - 1 (rows past len masked by selp). Its hooks add
//   arrival:  bar.sync (the block's partials are stored); thread 0: fence.acq_rel.gpu, old =
//             atom.add(counter, 1), last = old == n - 1, the last block stores 0 into the counter
//             and fences again (acquire); last is parked in shared memory, bar.sync, others ret.
//   combine (the last block, G = num_heads / num_kv_heads heads of the KV group, n chunks):
//     1. warp w takes heads w, w + 4, ...: M = max m_i (lanes over chunks, shfl.bfly), chunk
//        weights 2^(m_i - M) into shared memory, total = sum w_i l_i, lane 0 parks it;
//     2. thread t = (chunk group cg = t / (D/4), float4 f = t % (D/4)): for chunks i = cg,
//        cg + CG, ... (CG = 512 / D), two chunks per step, loads of all G heads' float4s
//        issued before the fmas (plain ld: the partials were written in this launch);
//     3. the CG chunk groups summed through shared memory, out = acc / total, float4 stores.
//   empty chunk: chunk 0 of an empty slot writes zeros to the group's out rows; others ret.
#include "common/attention_output.h"
#include "common/strided_loop.h"
#include "common/warp_reduce.h"
#include "flash_decode.h"
#include "flash_decode_chunk/flash_decode_chunk_pass.h"

#include <array>
#include <bit>
#include <limits>
#include <optional>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

constexpr std::uint32_t kThreads = FlashDecode::kThreads;
constexpr std::uint32_t kWarps = kThreads / 32;
constexpr std::uint32_t kUnroll = 2; // chunks per step of the combine (times G heads in flight)
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

using F4 = std::array<Reg<F32>, 4>;

struct Workspace {
  Ptr<Global, F32> part_max, part_sum, part_out;
  Ptr<Global, U32> counters;
  Ptr<Global, F32> out;
};

// The arrival: every thread learns whether its block is the last of its (slot, KV head) group.
Reg<Pred> arrive(KernelBuilder& b, const FlashDecodeConfig& c, const Workspace& ws,
                 const flash::ChunkBlock& k, Reg<U32> n) {
  auto flag = b.shared_array<U32>("last_block", 1, 4);
  b.bar_sync(0); // every partial of the block is stored
  {
    Label not_t0 = b.new_label("not_thread0");
    b.bra_if(!b.setp(cmp::eq, k.tid, b.imm<U32>(0)), not_t0);
    auto counter =
        ws.counters + b.mad_lo(k.slot, b.baked<U32>("num_kv_heads", c.num_kv_heads), k.kv_head);
    b.fence(sem::acq_rel, scope::gpu); // release: the block's partials before the arrival
    Reg<U32> old = b.atom_add(counter, b.imm<U32>(1));
    Reg<Pred> last = b.setp(cmp::eq, old, b.sub(n, b.imm<U32>(1)));
    {
      auto only_last = b.guard(last);
      b.st(counter, b.imm<U32>(0)); // every block of the group has arrived: reset for next launch
    }
    b.fence(sem::acq_rel, scope::gpu); // acquire: the other blocks' partials after the arrival
    b.st(flag, b.selp(b.imm<U32>(1), b.imm<U32>(0), last));
    b.place(not_t0);
  }
  b.bar_sync(0);
  return b.setp(cmp::ne, b.ld(flag), b.imm<U32>(0));
}

// The combine of the group's n chunks into out, by the last block.
void combine(KernelBuilder& b, const FlashDecodeConfig& c, const Workspace& ws,
             const flash::ChunkBlock& k, Reg<U32> n) {
  const std::uint32_t D = c.head_dim, G = c.group(), NC = c.num_chunks();
  const std::uint32_t d4 = D / 4, d4_shift = std::countr_zero(d4), groups = kThreads / d4;
  auto sw = b.shared_array<F32>("chunk_weight", std::uint64_t{G} * NC, 4);
  auto stotal = b.shared_array<F32>("head_total", G, 4);
  auto sred = b.shared_array<F32>("group_acc", std::uint64_t{groups} * G * D, 16);
  // num_chunks derives from max_seq_len and chunk_size (the chunk pass names it alike).
  const Imm<U32> num_chunks = b.baked<U32>("chunk_size", NC);
  const Imm<U32> head_dim = b.baked<U32>("head_dim", D);
  Reg<U32> row0 = b.mul_lo(k.head0, num_chunks); // partial row of (head0, chunk 0)
  Reg<U32> last = b.sub(n, b.imm<U32>(1));

  // ---- 1. per head: M, the chunk weights and the total ----
  for (std::uint32_t g0 = 0; g0 < G; g0 += kWarps) {
    Reg<U32> g = g0 == 0 ? k.warp : b.add(k.warp, b.imm<U32>(g0));
    std::optional<Label> skip;
    if (g0 + kWarps > G) {
      skip = b.new_label("weights_skip");
      b.bra_if(!b.setp(cmp::lt, g, b.imm<U32>(G)), *skip);
    }
    Reg<U32> row = b.mad_lo(g, num_chunks, row0);
    auto max_row = ws.part_max + row;
    auto sum_row = ws.part_sum + row;
    auto w_row = sw + b.mul_lo(g, num_chunks);
    Var<F32> m_local = b.var<F32>(b.imm<F32>(kNegInf), "m_local");
    {
      Var<U32> i = b.var<U32>(k.lane, "i");
      common::strided_loop(b, i, n, b.imm<U32>(32), {"max_loop", "max_done"}, [&](Reg<U32> iv) {
        m_local.assign(b.max(m_local.read(), b.ld(max_row + iv)));
      });
    }
    Reg<F32> big = common::warp_all_max(b, m_local.read());
    Var<F32> t_local = b.var<F32>(b.imm<F32>(0.0f), "total_local");
    {
      Var<U32> i = b.var<U32>(k.lane, "i");
      common::strided_loop(b, i, n, b.imm<U32>(32), {"weight_loop", "weight_done"},
                           [&](Reg<U32> iv) {
                             Reg<F32> w = b.ex2(b.sub(b.ld(max_row + iv), big), approx);
                             b.st(w_row + iv, w);
                             t_local.assign(b.fma(w, b.ld(sum_row + iv), t_local.read(), rn));
                           });
    }
    Reg<F32> total = common::warp_all_sum(b, t_local.read());
    {
      auto only_lane0 = b.guard(b.setp(cmp::eq, k.lane, b.imm<U32>(0)));
      b.st(stotal + g, total);
    }
    if (skip) b.place(*skip);
  }
  b.bar_sync(0);

  // ---- 2. weighted sums of the chunks' outputs, every head's float4 f ----
  Reg<U32> f_elem = b.shl(b.and_(k.tid, b.imm<U32>(d4 - 1)), b.imm<U32>(2));
  Reg<U32> cg = b.shr(k.tid, b.imm<U32>(d4_shift));
  auto acc = common::make_accumulators(b, std::size_t{G} * 4);
  {
    Var<U32> i = b.var<U32>(cg, "chunk");
    common::strided_loop(
        b, i, n, b.imm<U32>(kUnroll * groups), {"combine_loop", "combine_done"}, [&](Reg<U32> iv) {
          std::vector<Reg<F32>> weight;
          std::vector<F4> o;
          for (std::uint32_t u = 0; u < kUnroll; ++u) {
            Reg<U32> iu = u == 0 ? iv : b.add(iv, b.imm<U32>(u * groups));
            Reg<U32> ic = u == 0 ? iv : b.min(iu, last); // iv < n holds for u == 0
            std::optional<Reg<Pred>> in_range;
            if (u > 0) in_range = b.setp(cmp::lt, iu, n);
            for (std::uint32_t g = 0; g < G; ++g) {
              Reg<U32> elem =
                  b.mad_lo(b.add(row0, b.add(ic, b.imm<U32>(g * NC))), head_dim, f_elem);
              o.push_back(b.ld_v4(ws.part_out + elem));
              Reg<F32> w = b.ld(sw + b.add(ic, b.imm<U32>(g * NC)));
              weight.push_back(in_range ? b.selp(w, b.imm<F32>(0.0f), *in_range) : w);
            }
          }
          for (std::size_t x = 0; x < o.size(); ++x) {
            const std::size_t g = x % G;
            for (std::size_t j = 0; j < 4; ++j) {
              auto& a = acc[g * 4 + j]->var;
              a.assign(b.fma(weight[x], o[x][j], a.read(), rn));
            }
          }
        });
  }
  auto my_acc = sred + b.mad_lo(cg, b.imm<U32>(G * D), f_elem);
  for (std::uint32_t g = 0; g < G; ++g)
    b.st_v4(my_acc + g * D, {acc[g * 4]->var.read(), acc[g * 4 + 1]->var.read(),
                             acc[g * 4 + 2]->var.read(), acc[g * 4 + 3]->var.read()});
  b.bar_sync(0);

  // ---- 3. sum the chunk groups, divide, store: float4 e4 is head e4 / d4, f e4 % d4 ----
  for (std::uint32_t base = 0; base < G * d4; base += kThreads) {
    Reg<U32> e4 = base == 0 ? k.tid : b.add(k.tid, b.imm<U32>(base));
    std::optional<Label> skip;
    if (base + kThreads > G * d4) {
      skip = b.new_label("store_skip");
      b.bra_if(!b.setp(cmp::lt, e4, b.imm<U32>(G * d4)), *skip);
    }
    auto col = sred + b.shl(e4, b.imm<U32>(2));
    F4 o = b.ld_v4(col);
    for (std::uint32_t grp = 1; grp < groups; ++grp) {
      F4 x = b.ld_v4(col + grp * G * D);
      for (int j = 0; j < 4; ++j)
        o[j] = b.add(o[j], x[j]);
    }
    Reg<F32> total = b.ld(stotal + b.shr(e4, b.imm<U32>(d4_shift)));
    for (auto& x : o)
      x = b.div(x, total, rn);
    b.st_v4(ws.out + b.add(b.mul_lo(k.head0, head_dim), b.shl(e4, b.imm<U32>(2))), o);
    if (skip) b.place(*skip);
  }
  b.ret();
}

} // namespace

std::uint64_t flash_decode_shared_bytes(const FlashDecodeConfig& c) {
  const std::uint64_t g = c.group();
  return c.shared_bytes() + 4 * (g * c.num_chunks() + g * 512 + g + 1);
}

ptxkit::Expected<GeneratedPtx> FlashDecode::build(const Config& c, const ptxgen::Target& target,
                                                  const GenOptions& options) {
  const std::uint32_t C = c.chunk_size, G = c.group(), D = c.head_dim;
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  // The register budget of the occupancy the chunk pass had before its split reductions: 5 blocks
  // per SM in f32 (96 registers), 4 with halves (128, their prefetched chunk fills 64 words).
  b.minnctapersm(c.kv_dtype == DType::kF32 ? 5 : 4);
  const flash::ChunkPassIo io = flash::declare_chunk_pass_io(b);
  Workspace ws{io.part_max, io.part_sum, io.part_out, b.param<Ptr<Global, U32>>("counters"),
               b.param<Ptr<Global, F32>>("out")};
  // n = ceil(len / chunk_size): the chunks that hold positions, the blocks that arrive.
  auto chunks_of = [&](const flash::ChunkBlock& k) {
    return b.div(b.add(k.len, b.imm<U32>(C - 1)), b.baked<U32>("chunk_size", C));
  };
  flash::ChunkPassHooks hooks;
  hooks.after_partials = [&](const flash::ChunkBlock& k) {
    Reg<U32> n = chunks_of(k);
    Label not_last = b.new_label("not_last");
    b.bra_if(!arrive(b, c, ws, k, n), not_last);
    combine(b, c, ws, k, n);
    b.place(not_last);
    b.ret();
  };
  hooks.at_empty = [&](const flash::ChunkBlock& k) {
    // Only an empty slot's chunk 0 has work: its group's out rows are zeros.
    Label done = b.new_label("empty_done");
    b.bra_if(b.setp(cmp::ne, b.or_(k.len, k.chunk), b.imm<U32>(0)), done);
    auto rows = ws.out + b.mul_lo(k.head0, b.baked<U32>("head_dim", D));
    for (std::uint32_t base = 0; base < G * D; base += kThreads) {
      Reg<U32> e = base == 0 ? k.tid : b.add(k.tid, b.imm<U32>(base));
      auto in_rows = b.guard(b.setp(cmp::lt, e, b.imm<U32>(G * D)));
      b.st(rows + e, b.imm<F32>(0.0f));
    }
    b.place(done);
    b.ret();
  };
  flash::emit_chunk_pass(b, c, io, hooks, {.prefetch = true});
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(FlashDecode);

} // namespace ptxkit::kernels
