// incremental_attention_builder.cpp: single-sequence decode attention as PTX on ptxgen, and its
// registration.
//
// Block = head (%ctaid.x), 32 warps. Lane l owns elements [l*E, l*E + E) of a row, E = head_dim/32
// (one ld.global.nc.v4 for head_dim 128). Warp w walks positions in pairs p, p+1 from 2w in steps
// of 64, both rows' loads issued before any arithmetic:
//   s0, s1  = q . k[p], q . k[p+1]       (q pre-scaled by scale * log2 e: one baked immediate;
//                                           shfl.bfly butterflies, so every lane holds each sum)
//   s1      = -inf when p+1 >= seq_len   (the tail guard: row p+1 is clamped to seq_len-1, so no
//                                           load ever passes the sequence's last position)
//   old     = m.read()                   (explicit snapshot BEFORE the in-place max)
//   m       = max(old, s0, s1)
//   corr    = ex2(old - m); w0 = ex2(s0 - m); w1 = ex2(s1 - m)
//   sum     = sum * corr + w0 + w1;  acc = acc * corr + w0 v[p] + w1 v[p+1]
// Then each warp parks (m, sum, acc) in shared memory, and thread t < head_dim combines the 32
// warps for element t: out = sum_w ex2(m_w - M) acc_w / sum_w ex2(m_w - M) sum_w.
#include "common/attention_output.h"
#include "common/vector_access.h"
#include "common/warp_reduce.h"
#include "incremental_attention.h"

#include <limits>
#include <memory>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

constexpr std::uint32_t kPair = 2; // positions per warp iteration

} // namespace

ptxkit::Expected<GeneratedPtx> IncrementalAttention::build(const Config& c,
                                                           const ptxgen::Target& target,
                                                           const GenOptions& options) {
  const std::uint32_t e = c.head_dim / 32;
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  auto q = b.param<Ptr<Global, const F32>>("q");
  auto k_cache = b.param<Ptr<Global, const F32>>("k_cache");
  auto v_cache = b.param<Ptr<Global, const F32>>("v_cache");
  auto out = b.param<Ptr<Global, F32>>("out");
  auto seq_len_ptr = b.param<Ptr<Global, const U32>>("seq_len");
  auto sm_max = b.shared_array<F32>("warp_max", kWarps, 4);
  auto sm_sum = b.shared_array<F32>("warp_sum", kWarps, 4);
  auto sm_acc = b.shared_array<F32>("warp_acc", std::uint64_t{kWarps} * c.head_dim, 16);

  Reg<U32> head = b.ctaid_x();
  Reg<U32> tid = b.tid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  const Imm<U32> head_dim = b.baked<U32>("head_dim", c.head_dim);
  Reg<U32> out_row = b.mul_lo(head, head_dim); // q/out row of this head

  // The sequence length, clamped to the cache so a bad length never reads past it.
  Reg<U32> len = b.min(b.ld(seq_len_ptr), b.baked<U32>("max_seq_len", c.max_seq_len));
  Label empty = b.new_label("empty_sequence");
  b.bra_if(b.setp(cmp::eq, len, b.imm<U32>(0)), empty);
  Reg<U32> last = b.sub(len, b.imm<U32>(1));

  // This lane's slice of q, pre-scaled into the log2 domain.
  Reg<U32> lane_elem = b.mul_lo(lane, b.imm<U32>(e));
  const Imm<F32> scale_log2e = b.baked<F32>(
      "scale", static_cast<float>(static_cast<double>(c.effective_scale()) * 1.4426950408889634));
  std::vector<Reg<F32>> qv =
      common::load_vector(b, q + b.add(out_row, lane_elem), e, common::LoadPath::kReadOnly);
  for (auto& x : qv)
    x = b.mul(x, scale_log2e);

  // GQA: kv_head = head / (num_heads / num_kv_heads); its rows start at kv_head * max_seq_len.
  Reg<U32> kv_head = b.div(head, b.baked<U32>("num_kv_heads", c.num_heads / c.num_kv_heads));
  Reg<U32> kv_lane =
      b.mad_lo(kv_head, b.baked<U32>("max_seq_len", c.max_seq_len * c.head_dim), lane_elem);

  const float neg_inf = -std::numeric_limits<float>::infinity();
  Var<F32> m = b.var<F32>(b.imm<F32>(neg_inf), "running_max");
  Var<F32> sum = b.var<F32>(b.imm<F32>(0.0f), "sum_exp");
  auto acc = common::make_accumulators(b, e);

  Var<U32> pos = b.var<U32>(b.mul_lo(warp, b.imm<U32>(kPair)), "pos");
  Label loop = b.new_label("seq_loop");
  Label done = b.new_label("seq_done");
  b.place(loop);
  {
    Reg<U32> p0 = pos.read();
    b.bra_if(!b.setp(cmp::lt, p0, len), done);
    // Tail guard: the pair's second row exists only when p0 + 1 < len; otherwise it re-reads row
    // len-1 (in bounds) and its score is forced to -inf, so its weight is exactly 0.
    Reg<U32> p1 = b.add(p0, b.imm<U32>(1));
    Reg<Pred> has_p1 = b.setp(cmp::lt, p1, len);
    Reg<U32> p1_row = b.min(p1, last);
    Reg<U32> off0 = b.mad_lo(p0, head_dim, kv_lane);
    Reg<U32> off1 = b.mad_lo(p1_row, head_dim, kv_lane);
    std::vector<Reg<F32>> k0 =
        common::load_vector(b, k_cache + off0, e, common::LoadPath::kReadOnly);
    std::vector<Reg<F32>> k1 =
        common::load_vector(b, k_cache + off1, e, common::LoadPath::kReadOnly);
    std::vector<Reg<F32>> v0 =
        common::load_vector(b, v_cache + off0, e, common::LoadPath::kReadOnly);
    std::vector<Reg<F32>> v1 =
        common::load_vector(b, v_cache + off1, e, common::LoadPath::kReadOnly);
    Reg<F32> d0 = b.mul(qv[0], k0[0]);
    Reg<F32> d1 = b.mul(qv[0], k1[0]);
    for (std::uint32_t j = 1; j < e; ++j) {
      d0 = b.fma(qv[j], k0[j], d0, rn);
      d1 = b.fma(qv[j], k1[j], d1, rn);
    }
    Reg<F32> s0 = common::warp_all_sum(b, d0);
    Reg<F32> s1 = b.selp(common::warp_all_sum(b, d1), b.imm<F32>(neg_inf), has_p1);

    // The rescale: snapshot the old max explicitly, then update the running max in place.
    Reg<F32> old_max = m.read();
    Reg<F32> new_max = b.max(old_max, b.max(s0, s1));
    m.assign(new_max);
    Reg<F32> corr = b.ex2(b.sub(old_max, new_max), approx);
    Reg<F32> w0 = b.ex2(b.sub(s0, new_max), approx);
    Reg<F32> w1 = b.ex2(b.sub(s1, new_max), approx);
    sum.assign(b.fma(sum.read(), corr, b.add(w0, w1), rn));
    for (std::uint32_t j = 0; j < e; ++j) {
      Reg<F32> scaled = b.mul(acc[j]->var.read(), corr);
      acc[j]->var.assign(b.fma(w1, v1[j], b.fma(w0, v0[j], scaled, rn), rn));
    }
    pos.assign(b.add(p0, b.imm<U32>(kPair * kWarps)));
    b.bra(loop);
  }
  b.place(done);

  // Park this warp's state: lane 0 writes (max, sum), every lane its slice of acc.
  Reg<F32> warp_max = m.read();
  Reg<F32> warp_total = sum.read();
  auto max_slot = sm_max + warp;
  auto sum_slot = sm_sum + warp;
  {
    auto only_lane0 = b.guard(b.setp(cmp::eq, lane, b.imm<U32>(0)));
    b.st(max_slot, warp_max);
    b.st(sum_slot, warp_total);
  }
  auto my_acc = sm_acc + b.mad_lo(warp, head_dim, lane_elem);
  if (e == 4) {
    b.st_v4(my_acc,
            {acc[0]->var.read(), acc[1]->var.read(), acc[2]->var.read(), acc[3]->var.read()});
  } else if (e == 2) {
    b.st_v2(my_acc, {acc[0]->var.read(), acc[1]->var.read()});
  } else {
    b.st(my_acc, acc[0]->var.read());
  }
  b.bar_sync(0);

  // Thread t < head_dim combines the warps for element t (rescaled to the common max M);
  // seq_len == 0 writes a zero output row.
  common::store_head_row(b, out, out_row, tid, head_dim, empty, [&] {
    Reg<F32> big = b.ld(sm_max + 0);
    for (std::uint32_t w = 1; w < kWarps; ++w)
      big = b.max(big, b.ld(sm_max + w));
    Reg<F32> total = b.mov(b.imm<F32>(0.0f));
    Reg<F32> o = b.mov(b.imm<F32>(0.0f));
    auto acc_col = sm_acc + tid;
    for (std::uint32_t w = 0; w < kWarps; ++w) {
      Reg<F32> scale_w = b.ex2(b.sub(b.ld(sm_max + w), big), approx);
      total = b.fma(b.ld(sm_sum + w), scale_w, total, rn);
      o = b.fma(b.ld(acc_col + w * c.head_dim), scale_w, o, rn);
    }
    return std::pair{o, total};
  });
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(IncrementalAttention);

} // namespace ptxkit::kernels
