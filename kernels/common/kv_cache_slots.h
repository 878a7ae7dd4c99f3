// kv_cache_slots.h: the launch contract the batched attention kernels share (batched
// incremental attention and the flash-decoding chunk pass take the same inputs, buffer for
// buffer): queries [batch, num_heads, head_dim], per-slot K/V caches [num_kv_heads, max_seq_len,
// head_dim] reached through pointer arrays, and per-slot lengths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ptxkit/kernels/host_tensors.h>
#include <ptxkit/ptxgen/expected.h>
#include <span>
#include <string_view>

namespace ptxkit::kernels::common {

struct KvCacheSlots {
  std::uint32_t head_dim = 0;
  std::uint32_t num_heads = 0;
  std::uint32_t num_kv_heads = 0;
  std::uint32_t max_seq_len = 0;
  std::uint32_t batch_size = 0;

  // Elements of one slot's K (or V) cache.
  [[nodiscard]] std::size_t slot_elems() const {
    return std::size_t{num_kv_heads} * max_seq_len * head_dim;
  }
  // Elements of q (and of the batched output).
  [[nodiscard]] std::size_t query_elems() const {
    return std::size_t{batch_size} * num_heads * head_dim;
  }
};

// The host-side half of the launch contract of a kernel that appends at each slot's position
// (kv_scatter, qkv_rope_append): one position per slot, each < max_seq_len; the error names
// `kernel`, the first bad slot and its position.
ptxkit::Expected<void> check_append_positions(std::string_view kernel, std::uint32_t batch_size,
                                              std::uint32_t max_seq_len,
                                              std::span<const std::uint32_t> positions);

// The "q" input.
ParamSpec query_param(const KvCacheSlots& s);
// The "k_ptrs" (or "v_ptrs") pointer array: batch_size pointers into "k_cache" ("v_cache"), a
// buffer of `elem` (f32, or a half type for a half KV cache).
ParamSpec cache_pointers_param(const KvCacheSlots& s, const char* name, const char* buffer,
                               ElemType elem = ElemType::kF32);
// The "seq_lens" input (u32, one per slot).
ParamSpec seq_lens_param(const KvCacheSlots& s);

// q, k_cache, v_cache uniform in [-1, 1) and seq_lens in [1, max_seq_len], deterministic in seed.
HostTensors kv_cache_slot_inputs(const KvCacheSlots& s, std::uint64_t seed);

} // namespace ptxkit::kernels::common
