// flash_decode_reduce_builder.cpp: the flash-decoding combine pass as PTX on ptxgen, and its
// registration.
//
// Block (head = %ctaid.x, slot = %ctaid.y), 4 warps. n = ceil(len / chunk_size) chunks hold
// positions (len = min(seq_lens[slot], max_seq_len); len == 0 writes zeros and returns).
//   1. M = max_{i<n} m_i: per-thread max over i = tid, tid+128, ..., a shfl.bfly butterfly (every
//      lane holds the warp max), lane 0 parks it, bar.sync, every thread maxes the 4 warp values.
//   2. w_i = ex2(m_i - M) into shared memory; total = sum w_i l_i, reduced the same way.
//   3. Thread t: float4 f = t % (D/4) of chunks g, g + CG, ... (g = t / (D/4), CG = 512 / D),
//      four chunks' loads in flight per step; a chunk index past n is clamped to n-1 and its
//      weight forced to 0 (the tail guard: nothing past the slot's chunks is read).
//   4. The CG chunk groups are summed through shared memory; out = acc / total.
#include "common/attention_output.h"
#include "common/block_reduce.h"
#include "common/strided_loop.h"
#include "common/warp_reduce.h"
#include "flash_decode_reduce.h"

#include <array>
#include <bit>
#include <limits>
#include <memory>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

constexpr std::uint32_t kUnroll = 4; // chunks in flight per thread and step

} // namespace

ptxkit::Expected<GeneratedPtx>
FlashDecodeReduce::build(const Config& c, const ptxgen::Target& target, const GenOptions& options) {
  const std::uint32_t D = c.head_dim, C = c.chunk_size, NC = c.num_chunks();
  const std::uint32_t d4 = D / 4, d4_shift = std::countr_zero(d4), groups = kThreads / d4;
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  auto part_max = b.param<Ptr<Global, const F32>>("partial_max");
  auto part_sum = b.param<Ptr<Global, const F32>>("partial_sum");
  auto part_out = b.param<Ptr<Global, const F32>>("partial_out");
  auto out = b.param<Ptr<Global, F32>>("out");
  auto seq_lens = b.param<Ptr<Global, const U32>>("seq_lens");
  auto sw = b.shared_array<F32>("chunk_weight", NC, 4);
  auto red_max = b.shared_array<F32>("warp_max", kWarps, 4);
  auto red_sum = b.shared_array<F32>("warp_total", kWarps, 4);
  auto sred = b.shared_array<F32>("group_acc", std::uint64_t{groups} * D, 16);

  Reg<U32> head = b.ctaid_x();
  Reg<U32> slot = b.ctaid_y();
  Reg<U32> tid = b.tid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<Pred> is_lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  const Imm<U32> head_dim = b.baked<U32>("head_dim", D);

  Reg<U32> sh = b.mad_lo(slot, b.baked<U32>("num_heads", c.num_heads), head);
  Reg<U32> out_row = b.mul_lo(sh, head_dim);
  Reg<U32> row0 = b.mul_lo(sh, b.baked<U32>("chunk_size", NC)); // first partial row
  Reg<U32> len = b.min(b.ld(seq_lens + slot), b.baked<U32>("max_seq_len", c.max_seq_len));
  Label empty = b.new_label("empty_slot");
  b.bra_if(b.setp(cmp::eq, len, b.imm<U32>(0)), empty);
  Reg<U32> n = b.div(b.add(len, b.imm<U32>(C - 1)), b.baked<U32>("chunk_size", C));
  Reg<U32> last = b.sub(n, b.imm<U32>(1));
  auto max_row = part_max + row0;
  auto sum_row = part_sum + row0;

  // ---- 1. M = max over the slot's chunks ----
  Var<F32> m_local = b.var<F32>(b.imm<F32>(-std::numeric_limits<float>::infinity()), "m_local");
  {
    Var<U32> i = b.var<U32>(tid, "i");
    common::strided_loop(b, i, n, b.imm<U32>(kThreads), {"max_loop", "max_done"}, [&](Reg<U32> iv) {
      m_local.assign(b.max(m_local.read(), b.ld_nc(max_row + iv)));
    });
  }
  Reg<F32> m = common::warp_all_max(b, m_local.read());
  auto my_max = red_max + warp;
  Reg<F32> big = common::combine_warp_slots(b, m, my_max, is_lane0, red_max, kWarps,
                                            [&b](Reg<F32> x, Reg<F32> y) { return b.max(x, y); });

  // ---- 2. chunk weights 2^(m_i - M) and the total sum ----
  Var<F32> t_local = b.var<F32>(b.imm<F32>(0.0f), "total_local");
  {
    Var<U32> i = b.var<U32>(tid, "i");
    common::strided_loop(
        b, i, n, b.imm<U32>(kThreads), {"weight_loop", "weight_done"}, [&](Reg<U32> iv) {
          Reg<F32> w = b.ex2(b.sub(b.ld_nc(max_row + iv), big), approx); // the rescale of chunk i
          b.st(sw + iv, w);
          t_local.assign(b.fma(w, b.ld_nc(sum_row + iv), t_local.read(), rn));
        });
  }
  Reg<F32> t = common::warp_all_sum(b, t_local.read());
  auto my_total = red_sum + warp;
  Reg<F32> total = common::combine_warp_slots(b, t, my_total, is_lane0, red_sum, kWarps,
                                              [&b](Reg<F32> x, Reg<F32> y) { return b.add(x, y); });

  // ---- 3. weighted sum of the chunks' outputs, float4 per thread ----
  Reg<U32> f_elem = b.shl(b.and_(tid, b.imm<U32>(d4 - 1)), b.imm<U32>(2));
  Reg<U32> group = b.shr(tid, b.imm<U32>(d4_shift));
  auto acc = common::make_accumulators(b, 4);
  {
    Var<U32> i = b.var<U32>(group, "chunk");
    Label loop = b.new_label("combine_loop");
    Label done = b.new_label("combine_done");
    b.place(loop);
    Reg<U32> iv = i.read();
    b.bra_if(!b.setp(cmp::lt, iv, n), done);
    std::vector<Reg<F32>> weight;
    std::vector<std::array<Reg<F32>, 4>> o;
    for (std::uint32_t u = 0; u < kUnroll; ++u) {
      Reg<U32> iu = u == 0 ? iv : b.add(iv, b.imm<U32>(u * groups));
      Reg<U32> ic = u == 0 ? iv : b.min(iu, last); // iv < n already holds for u == 0
      Reg<U32> elem = b.mad_lo(b.add(row0, ic), head_dim, f_elem);
      o.push_back(b.ld_nc_v4(part_out + elem));
      Reg<F32> w = b.ld(sw + ic);
      weight.push_back(u == 0 ? w : b.selp(w, b.imm<F32>(0.0f), b.setp(cmp::lt, iu, n)));
    }
    for (std::uint32_t u = 0; u < kUnroll; ++u)
      for (int j = 0; j < 4; ++j)
        acc[static_cast<std::size_t>(j)]->var.assign(
            b.fma(weight[u], o[u][static_cast<std::size_t>(j)],
                  acc[static_cast<std::size_t>(j)]->var.read(), rn));
    i.assign(b.add(iv, b.imm<U32>(kUnroll * groups)));
    b.bra(loop);
    b.place(done);
  }
  auto my_acc = sred + b.mad_lo(group, head_dim, f_elem);
  b.st_v4(my_acc, {acc[0]->var.read(), acc[1]->var.read(), acc[2]->var.read(), acc[3]->var.read()});
  b.bar_sync(0);

  // ---- 4. sum the chunk groups; out = acc / total (an empty slot: zeros) ----
  common::store_head_row(b, out, out_row, tid, head_dim, empty, [&] {
    auto col = sred + tid;
    Reg<F32> o = b.ld(col);
    for (std::uint32_t g = 1; g < groups; ++g)
      o = b.add(o, b.ld(col + g * D));
    return std::pair{o, total};
  });
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(FlashDecodeReduce);

} // namespace ptxkit::kernels
