// kv_scatter.h: write this decode step's K and V into the KV caches at each slot's position
// (config, launch contract, reference).
//
//   k_cache[s, kv, positions[s], :] = k_new[s, kv, :]     for every slot s < batch_size
//   v_cache[s, kv, positions[s], :] = v_new[s, kv, :]     and KV head kv < num_kv_heads
//
// The caches are [batch_size, num_kv_heads, max_seq_len, head_dim] in `dtype` (f32, f16 or bf16,
// the new rows in the same type; a half cache is what the flash-decoding kernels read): slot s's
// cache is the
// [num_kv_heads, max_seq_len, head_dim] block batched_incremental_attention reads through its
// K/V pointer arrays (pointer s = cache base + s * num_kv_heads * max_seq_len * head_dim).
//
// A position beyond capacity (positions[s] >= max_seq_len) is refused twice:
//   - on the host, KvScatter::check_positions (part of the launch contract: call it whenever the
//     positions are known on the host) returns an error naming the slot and position;
//   - on the device, a slot whose position is out of range writes nothing (its blocks exit
//     before any store), so a bad position in device memory can never write past its cache.
// The reference models the device guard (an out-of-range slot leaves its caches unchanged), so a
// device test can check the guard itself.
//
// Grid (ceil(chunks / T), batch_size) with chunks = num_kv_heads * head_dim / 4 chunks of 4
// elements per slot and T = min(256, chunks rounded up to a warp): each thread moves one chunk of K
// and one of V (.v4.f32, or .v2.b32 for halves: a bit copy, so the half scatter is exact and
// NaN payloads survive). The caches are read-modify-write buffers: their kOutput params name
// buffers that are also in make_inputs, and only the rows at the positions change.
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <span>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct KvScatterConfig {
  std::uint32_t head_dim = 128;
  std::uint32_t num_kv_heads = 2;
  std::uint32_t max_seq_len = 2048;
  std::uint32_t batch_size = 4;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("head_dim", c.head_dim,
            FieldSpec{.doc = "elements per head; the .v4 path needs a multiple of 4",
                      .min = 4.0,
                      .max = 1024.0,
                      .multiple_of = 4});
    v.field("num_kv_heads", c.num_kv_heads,
            FieldSpec{.doc = "KV heads per slot", .min = 1.0, .max = 1024.0});
    v.field("max_seq_len", c.max_seq_len,
            common::max_seq_len_field(
                "positions per KV head (the capacity; a position >= it is refused)"));
    v.field("batch_size", c.batch_size,
            common::launch_shape_field("slots per launch (grid.y)", common::kGridYZMax,
                                       "launch shape only: grid.y = batch_size and each block "
                                       "reads its slot from %ctaid.y and its position from "
                                       "positions[slot], so no PTX depends on it"));
    v.field("dtype", c.dtype,
            common::dtype_field("element type of k_new, v_new and the caches (f32, f16, bf16)"));
  }
};

struct KvScatter {
  PTXKIT_KERNEL_FUNCTIONS(KvScatterConfig);
  static constexpr std::string_view kName = "kv_scatter";
  static constexpr std::string_view kSummary =
      "KV-cache scatter: write each slot's new K and V rows at positions[slot] (f32, f16 or bf16, "
      "4 elements per access); a position >= max_seq_len is refused on the host (check_positions) "
      "and skipped on the device";
  static constexpr std::string_view kLimits =
      "head_dim a multiple of 4; num_kv_heads * max_seq_len * head_dim < 2^31 (32-bit offsets "
      "inside a slot's cache); batch_size in [1, 65535] (grid.y); positions[s] < max_seq_len "
      "(check_positions; the device skips a slot that breaks it)";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0, 0,
            "a copy into the caches (f32, f16 or bf16 bits moved unchanged): bit-exact, whole "
            "caches compared"};
  }

  // Host-side half of the launch contract: one position per slot, each < max_seq_len; the error
  // names the first bad slot and its position.
  static ptxkit::Expected<void> check_positions(const Config& c,
                                                std::span<const std::uint32_t> positions);
};

// Threads per block and blocks per slot of the launch.
std::uint32_t kv_scatter_threads(const KvScatterConfig& c);
std::uint32_t kv_scatter_blocks_per_slot(const KvScatterConfig& c);

// The reference: updates k_cache/v_cache in place (slots whose position is out of range are left
// unchanged, as on the device).
void kv_scatter_reference(const KvScatterConfig& c, const std::vector<float>& k_new,
                          const std::vector<float>& v_new,
                          const std::vector<std::uint32_t>& positions, std::vector<float>& k_cache,
                          std::vector<float>& v_cache);

} // namespace ptxkit::kernels
