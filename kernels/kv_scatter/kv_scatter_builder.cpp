// kv_scatter_builder.cpp: the KV-cache scatter as PTX on ptxgen, and its registration.
//
// Block (%ctaid.x, slot = %ctaid.y), chunk c = %ctaid.x * T + %tid.x of the slot's
// num_kv_heads * head_dim / 4 chunks of 4 elements (f32, f16 or bf16):
//   pos = positions[slot]; if pos >= max_seq_len: exit   (device-side guard, block-uniform)
//   if c >= chunks: exit                                  (only when the grid overshoots)
//   kv = c / (head_dim/4), q = c % (head_dim/4)
//   k_cache[slot][kv][pos][4q..4q+3] = k_new[slot][c*4..c*4+3]   (and the same for V)
// Slot bases are 64-bit (batch * cache size may exceed 2^32 elements); offsets inside a slot are
// 32-bit (validated: num_kv_heads * max_seq_len * head_dim < 2^31).
#include "common/dtype_access.h"
#include "kv_scatter.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <type_traits>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

// One chunk of 4 elements, loaded and stored as raw bits: 16 bytes of f32 (.v4.f32) or 8 bytes
// of halves (.v2.b32). A scatter computes nothing, so the halves are never widened: the copy is
// exact for every bit pattern.
template <class E>
auto load_chunk(KernelBuilder& b, Ptr<Global, const E> p) {
  if constexpr (std::is_same_v<E, F32>)
    return b.ld_nc_v4(p);
  else
    return b.ld_nc_v2(reinterpret_ptr<B32>(p));
}

template <class E, class Chunk>
void store_chunk(KernelBuilder& b, Ptr<Global, E> p, const Chunk& v) {
  if constexpr (std::is_same_v<E, F32>)
    b.st_v4(p, v);
  else
    b.st_v2(reinterpret_ptr<B32>(p), v);
}

template <class E>
ptxkit::Expected<GeneratedPtx> build_scatter(const KvScatterConfig& c, const ptxgen::Target& target,
                                             const GenOptions& options) {
  const std::uint32_t threads = kv_scatter_threads(c);
  const std::uint32_t chunks = c.num_kv_heads * c.head_dim / 4;
  const std::uint32_t head_chunks = c.head_dim / 4;
  KernelBuilder b(std::string(KvScatter::kName), target);
  b.reqntid(threads);
  auto k_new = b.param<Ptr<Global, const E>>("k_new");
  auto v_new = b.param<Ptr<Global, const E>>("v_new");
  auto positions = b.param<Ptr<Global, const U32>>("positions");
  auto k_cache = b.param<Ptr<Global, E>>("k_cache");
  auto v_cache = b.param<Ptr<Global, E>>("v_cache");

  Reg<U32> tid = b.tid_x();
  Reg<U32> block = b.ctaid_x();
  Reg<U32> slot = b.ctaid_y();
  Label done = b.new_label("done");

  // The device-side guard: a position past the cache writes nothing.
  Reg<U32> pos = b.ld_nc(positions + slot);
  Reg<Pred> pos_ok = b.setp(cmp::lt, pos, b.baked<U32>("max_seq_len", c.max_seq_len));
  b.bra_if(!pos_ok, done);

  Reg<U32> chunk = b.mad_lo(block, b.baked<U32>("num_kv_heads", threads), tid);
  if (std::uint64_t{kv_scatter_blocks_per_slot(c)} * threads != chunks) {
    Reg<Pred> chunk_ok = b.setp(cmp::lt, chunk, b.baked<U32>("num_kv_heads", chunks));
    b.bra_if(!chunk_ok, done);
  }

  // Source: [slot][kv][head_dim], i.e. element slot * chunks * 4 + chunk * 4.
  Reg<U64> src_slot = b.mul_wide(slot, b.baked<U32>("num_kv_heads", chunks * 4));
  Reg<U32> src_elem = b.shl(chunk, b.imm<U32>(2));
  // Destination: [slot][kv][pos][head_dim] inside the slot's cache.
  Reg<U64> dst_slot =
      b.mul_wide(slot, b.baked<U32>("max_seq_len", c.num_kv_heads * c.max_seq_len * c.head_dim));
  Reg<U32> kv = b.div(chunk, b.baked<U32>("head_dim", head_chunks));
  Reg<U32> within = b.rem(chunk, b.baked<U32>("head_dim", head_chunks));
  Reg<U32> kv_pos = b.mad_lo(kv, b.baked<U32>("max_seq_len", c.max_seq_len), pos);
  Reg<U32> within4 = b.shl(within, b.imm<U32>(2));
  Reg<U32> dst_elem = b.mad_lo(kv_pos, b.baked<U32>("head_dim", c.head_dim), within4);

  auto k_src = (k_new + src_slot) + src_elem;
  auto v_src = (v_new + src_slot) + src_elem;
  auto k_dst = (k_cache + dst_slot) + dst_elem;
  auto v_dst = (v_cache + dst_slot) + dst_elem;
  auto k = load_chunk<E>(b, k_src);
  auto v = load_chunk<E>(b, v_src);
  store_chunk<E>(b, k_dst, k);
  store_chunk<E>(b, v_dst, v);
  b.place(done);
  b.ret();
  return finish_and_print(b, options);
}

} // namespace

ptxkit::Expected<GeneratedPtx> KvScatter::build(const Config& c, const ptxgen::Target& target,
                                                const GenOptions& options) {
  return common::with_dtype(c.dtype,
                            [&]<class E>() { return build_scatter<E>(c, target, options); });
}

PTXKIT_REGISTER_KERNEL(KvScatter);

} // namespace ptxkit::kernels
