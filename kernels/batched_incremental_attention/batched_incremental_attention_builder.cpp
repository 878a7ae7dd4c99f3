// batched_incremental_attention_builder.cpp: the batched attention as PTX on ptxgen, and
// its registration.
//
// Block (head = %ctaid.x, slot = %ctaid.y), 32 threads. Lane l owns elements l, l+32, ... of the
// head (head_dim / 32 of them, all in registers). Per position p < min(seq_lens[slot],
// max_seq_len):
//   dot   = sum over lanes of q . k[p]        (shfl.down tree, then shfl.idx from lane 0)
//   s     = dot * (scale * log2 e)             (one baked immediate: scores in the log2 domain)
//   old   = m.read()                           (explicit snapshot BEFORE the in-place max)
//   m     = max(m, s)
//   corr  = ex2(old - m);  w = ex2(s - m)
//   sum   = sum * corr + w;  acc[j] = acc[j] * corr + w * v[p][j]
// then out = acc / sum (0 when the slot is empty). A copy of the running max that aliases its
// register (the rescale would read `sub.f32 %f27, %f8, %f8`) cannot be written here:
// a Var<F32> cannot be copied, and its value is only reachable through read().
#include "batched_incremental_attention.h"
#include "common/attention_output.h"
#include "common/warp_reduce.h"

#include <cmath>
#include <limits>
#include <memory>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

} // namespace

ptxkit::Expected<GeneratedPtx> BatchedIncrementalAttention::build(const Config& c,
                                                                  const ptxgen::Target& target,
                                                                  const GenOptions& options) {
  const std::uint32_t per_lane = c.head_dim / 32;
  KernelBuilder b(std::string(kName), target);
  b.reqntid(32);
  auto q = b.param<Ptr<Global, const F32>>("q");
  auto k_ptrs = b.param<Ptr<Global, const U64>>("k_ptrs");
  auto v_ptrs = b.param<Ptr<Global, const U64>>("v_ptrs");
  auto out = b.param<Ptr<Global, F32>>("out");
  auto seq_lens = b.param<Ptr<Global, const U32>>("seq_lens");

  Reg<U32> head = b.ctaid_x();
  Reg<U32> slot = b.ctaid_y();
  Reg<U32> lane = b.tid_x();

  // This slot's length, clamped to the cache so a bad length never reads past it.
  Reg<U32> seq_len =
      b.min(b.ld(b.element(seq_lens, slot)), b.baked<U32>("max_seq_len", c.max_seq_len));
  auto k_cache = b.global_ptr<const F32>(b.ld(b.element(k_ptrs, slot)));
  auto v_cache = b.global_ptr<const F32>(b.ld(b.element(v_ptrs, slot)));

  // q/out row: (slot * num_heads + head) * head_dim.
  const Imm<U32> head_dim = b.baked<U32>("head_dim", c.head_dim);
  Reg<U32> qrow = b.mul_lo(b.mad_lo(slot, b.baked<U32>("num_heads", c.num_heads), head), head_dim);
  Reg<U32> qlane = b.add(qrow, lane);
  // GQA: kv_head = head / (num_heads / num_kv_heads); K/V head base kv_head*max_seq_len*head_dim.
  Reg<U32> kv_head = b.div(head, b.baked<U32>("num_kv_heads", c.num_heads / c.num_kv_heads));
  Reg<U32> kv_base =
      b.mul_lo(kv_head, b.baked<U32>("max_seq_len", c.max_seq_len * c.head_dim)); // elements
  Reg<U32> kv_lane = b.add(kv_base, lane);

  auto q_lane = b.element(q, qlane);
  std::vector<Reg<F32>> qv;
  for (std::uint32_t j = 0; j < per_lane; ++j)
    qv.push_back(b.ld_nc(q_lane + j * 32));

  // Online-softmax state and the output accumulators.
  const float neg_inf = -std::numeric_limits<float>::infinity();
  Var<F32> m = b.var<F32>(b.imm<F32>(neg_inf), "running_max");
  Var<F32> sum = b.var<F32>(b.imm<F32>(0.0f), "sum_exp");
  auto acc = common::make_accumulators(b, per_lane);
  const Imm<F32> scale_log2e = b.baked<F32>(
      "scale", static_cast<float>(static_cast<double>(c.effective_scale()) * 1.4426950408889634));

  Var<U32> pos = b.var<U32>(b.imm<U32>(0), "pos");
  Var<U32> kv_off = b.var<U32>(kv_lane, "kv_offset"); // element offset of k[pos][lane]
  Label loop = b.new_label("seq_loop");
  Label done = b.new_label("seq_done");
  b.place(loop);
  {
    Reg<U32> p = pos.read();
    b.bra_if(!b.setp(cmp::lt, p, seq_len), done);
    Reg<U32> off = kv_off.read();
    auto k_row = b.element(k_cache, off); // &k[pos][lane]
    auto v_row = b.element(v_cache, off); // &v[pos][lane]
    Reg<F32> dot = b.mul(qv[0], b.ld_nc(k_row));
    for (std::uint32_t j = 1; j < per_lane; ++j)
      dot = b.fma(qv[j], b.ld_nc(k_row + j * 32), dot, rn);
    // After the shfl.down tree only lane 0 holds the full dot product: broadcast it from lane 0
    // before any lane uses it.
    dot = common::warp_sum_to_lane0_broadcast(b, dot);
    Reg<F32> s = b.mul(dot, scale_log2e);

    // The rescale: snapshot the old max explicitly, then update the running max in place.
    Reg<F32> old_max = m.read();
    Reg<F32> new_max = b.max(old_max, s);
    m.assign(new_max);
    Reg<F32> corr = b.ex2(b.sub(old_max, new_max), approx);
    Reg<F32> w = b.ex2(b.sub(s, new_max), approx);
    sum.assign(b.fma(sum.read(), corr, w, rn));
    for (std::uint32_t j = 0; j < per_lane; ++j) {
      Reg<F32> v = b.ld_nc(v_row + j * 32);
      acc[j]->var.assign(b.fma(w, v, b.mul(acc[j]->var.read(), corr), rn));
    }
    pos.assign(b.add(p, b.imm<U32>(1)));
    kv_off.assign(b.add(off, head_dim));
    b.bra(loop);
  }
  b.place(done);

  // out = acc / sum; an empty slot (sum == 0) writes zeros instead of 0 * inf.
  Reg<F32> total = sum.read();
  Reg<F32> inv = b.rcp(total, rn);
  Reg<F32> inv_or_zero = b.selp(inv, b.imm<F32>(0.0f), b.setp(cmp::gt, total, b.imm<F32>(0.0f)));
  auto out_lane = b.element(out, qlane);
  for (std::uint32_t j = 0; j < per_lane; ++j)
    b.st(out_lane + j * 32, b.mul(acc[j]->var.read(), inv_or_zero));
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(BatchedIncrementalAttention);

} // namespace ptxkit::kernels
