// qkv_rope_append_builder.cpp: the fused bias + RoPE + KV append as PTX on ptxgen, and its
// registration.
//
// Block (%ctaid.x, slot = %ctaid.y), group g = %ctaid.x * T + %tid.x of the slot's
// heads_in_row * (head_dim/2) / V groups of V pairs:
//   if g >= groups: exit                                  (only the last block is partial)
//   pos = positions[slot]; if pos >= max_seq_len: exit    (the device guard, block-uniform)
//   head = g / (half / V), pair0 = (g % (half / V)) * V
//   x1 = qkv[slot][head][pair0 ..], x2 = qkv[slot][head][pair0 + half ..]  (+ bias, f32 add)
//   y = head < num_heads + num_kv_heads ? RoPE(x1, x2) : (x1, x2)
//   head < num_heads:                q[slot][head][pair0 ..]                       = y
//   head < num_heads + num_kv_heads: k_cache[slot][head - num_heads][pos][pair0 ..] = y
//   otherwise:                       v_cache[slot][head - num_heads - num_kv_heads][pos][..] = y
// The rotation is computed for V heads too and discarded by selp: V heads are 2 of every
// heads_in_row heads, and one instruction stream keeps the warps converged.
// Slot bases are 64-bit (mul.wide); offsets inside a slot are 32-bit (validated).
#include "common/dtype_access.h"
#include "qkv_rope_append.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;
} // namespace

ptxkit::Expected<GeneratedPtx> QkvRopeAppend::build(const Config& c, const ptxgen::Target& target,
                                                    const GenOptions& options) {
  const RopeGeometry g = c.geometry();
  const std::uint32_t V = rope_pairs_per_thread(g);
  const std::uint32_t half = c.head_dim / 2;
  const std::uint32_t threads = qkv_rope_append_threads(c);
  const std::uint32_t groups = rope_groups_per_row(g);

  KernelBuilder b(std::string(kName), target);
  b.reqntid(threads);
  auto qkv = b.param<Ptr<Global, const F32>>("qkv");
  std::optional<Ptr<Global, const F32>> bias;
  if (c.has_bias) bias = b.param<Ptr<Global, const F32>>("bias");
  auto positions = b.param<Ptr<Global, const U32>>("positions");
  auto q = b.param<Ptr<Global, F32>>("q");
  auto k_cache = b.param<Ptr<Global, F32>>("k_cache");
  auto v_cache = b.param<Ptr<Global, F32>>("v_cache");

  // One emitting call per statement where the order matters (argument evaluation order is
  // unspecified, and g++ and clang must print the same PTX).
  Reg<U32> block = b.ctaid_x();
  Reg<U32> group = b.mad_lo(block, b.imm<U32>(threads), b.tid_x());
  Label done = b.new_label("done");
  if (std::uint64_t{qkv_rope_append_blocks_per_slot(c)} * threads != groups)
    b.bra_if(!b.setp(cmp::lt, group, b.baked<U32>("num_heads", groups)), done);
  Reg<U32> slot = b.ctaid_y();
  Reg<U32> pos = b.ld_nc(positions + slot);
  b.bra_if(!b.setp(cmp::lt, pos, b.baked<U32>("max_seq_len", c.max_seq_len)), done);
  Reg<F64> pos_d = b.cvt<F64>(pos, rn); // exact for every u32

  const Imm<U32> groups_per_head = b.baked<U32>("head_dim", half / V);
  Reg<U32> head = b.div(group, groups_per_head);
  Reg<U32> pair0 = b.mul_lo(b.sub(group, b.mul_lo(head, groups_per_head)), b.imm<U32>(V));
  Reg<U32> in_head = b.mad_lo(head, b.baked<U32>("head_dim", c.head_dim), pair0);
  Reg<U64> row = b.mul_wide(slot, b.baked<U32>("num_heads", c.heads_in_row() * c.head_dim));
  auto x1p = (qkv + row) + in_head;
  auto x2p = x1p + static_cast<std::int64_t>(half);
  std::vector<Reg<F32>> x1 = common::load_f32<F32>(b, x1p, V, common::LoadPath::kReadOnly);
  std::vector<Reg<F32>> x2 = common::load_f32<F32>(b, x2p, V, common::LoadPath::kReadOnly);
  if (bias) {
    auto b1p = *bias + in_head;
    auto b2p = b1p + static_cast<std::int64_t>(half);
    std::vector<Reg<F32>> b1 = common::load_f32<F32>(b, b1p, V, common::LoadPath::kReadOnly);
    std::vector<Reg<F32>> b2 = common::load_f32<F32>(b, b2p, V, common::LoadPath::kReadOnly);
    for (std::uint32_t k = 0; k < V; ++k) {
      x1[k] = b.add(x1[k], b1[k]);
      x2[k] = b.add(x2[k], b2[k]);
    }
  }

  Reg<F64> inv_freq0 = rope_inv_freq(b, g, pair0);
  auto [r1, r2] = rope_rotate(b, g, pos_d, inv_freq0, x1, x2, RopeDirection::kForward);
  Reg<Pred> rotated =
      b.setp(cmp::lt, head, b.baked<U32>("num_heads", c.num_heads + c.num_kv_heads));
  std::vector<Reg<F32>> y1, y2;
  for (std::uint32_t k = 0; k < V; ++k) {
    y1.push_back(b.selp(r1[k], x1[k], rotated));
    y2.push_back(b.selp(r2[k], x2[k], rotated));
  }

  // Queries: [slot][head][head_dim].
  Label to_cache = b.new_label("to_cache");
  b.bra_if(!b.setp(cmp::lt, head, b.baked<U32>("num_heads", c.num_heads)), to_cache);
  Reg<U64> q_row = b.mul_wide(slot, b.baked<U32>("num_heads", c.num_heads * c.head_dim));
  auto q1p = (q + q_row) + in_head;
  common::store_f32<F32>(b, q1p, y1);
  common::store_f32<F32>(b, q1p + static_cast<std::int64_t>(half), y2);
  b.bra(done);

  // Keys and values: [slot][kv][pos][head_dim] of their cache.
  b.place(to_cache);
  Reg<U32> kv_k = b.sub(head, b.baked<U32>("num_heads", c.num_heads));
  Reg<Pred> is_k = b.setp(cmp::lt, kv_k, b.baked<U32>("num_kv_heads", c.num_kv_heads));
  Reg<U32> kv_v = b.sub(kv_k, b.baked<U32>("num_kv_heads", c.num_kv_heads));
  Reg<U32> kv = b.selp(kv_k, kv_v, is_k);
  Reg<U32> kv_pos = b.mad_lo(kv, b.baked<U32>("max_seq_len", c.max_seq_len), pos);
  Reg<U32> in_cache = b.mad_lo(kv_pos, b.baked<U32>("head_dim", c.head_dim), pair0);
  Reg<U64> cache_slot =
      b.mul_wide(slot, b.baked<U32>("max_seq_len", c.num_kv_heads * c.max_seq_len * c.head_dim));
  Label to_v = b.new_label("to_v");
  b.bra_if(!is_k, to_v);
  auto k1p = (k_cache + cache_slot) + in_cache;
  common::store_f32<F32>(b, k1p, y1);
  common::store_f32<F32>(b, k1p + static_cast<std::int64_t>(half), y2);
  b.bra(done);
  b.place(to_v);
  auto v1p = (v_cache + cache_slot) + in_cache;
  common::store_f32<F32>(b, v1p, y1);
  common::store_f32<F32>(b, v1p + static_cast<std::int64_t>(half), y2);
  b.place(done);
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(QkvRopeAppend);

} // namespace ptxkit::kernels
