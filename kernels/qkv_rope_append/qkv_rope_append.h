// qkv_rope_append.h: what a decoder layer does between its fused Q/K/V projection and attention,
// in one launch (config, launch contract, reference):
//
//   x = qkv[s] + bias                                   (bias only when has_bias: Qwen2's q/k/v)
//   q[s, h]                          = RoPE(x head h,            positions[s])   h < num_heads
//   k_cache[s, kv, positions[s], :]  = RoPE(x head num_heads + kv, positions[s])
//   v_cache[s, kv, positions[s], :]  =      x head num_heads + num_kv_heads + kv
//
// for every slot s < batch_size and KV head kv < num_kv_heads. qkv is the output of one GEMV over
// the concatenated [Wq; Wk; Wv] ([batch_size, (num_heads + 2 num_kv_heads) head_dim] f32); the
// caches are kv_scatter's layout, [batch_size, num_kv_heads, max_seq_len, head_dim] f32, which
// flash_decode reads. Separately this is bias_add, two rope_neox_batched and kv_scatter: four
// launches and three round trips of q, k and v through memory, which in a decode step (a few KB
// of data) cost far more in launch latency than in bytes.
//
// The rotation is rope_neox_batched's (common/rope_neox_common.h: inv_freq and the angle in f64,
// sin/cos.approx on the reduced angle, f32 fma), so the tolerance is RoPE's. One thread per
// group of pairs (i, i + head_dim/2) of one head (4 pairs when head_dim/2 % 4 == 0, .v4
// accesses; else 1); V heads are moved by the same groups without rotation.
//
// A position past the cache (positions[s] >= max_seq_len) is refused on the host
// (check_positions) and writes nothing on the device: the slot's blocks exit before any store,
// q included. The reference models that guard.
#pragma once

#include "common/config_fields.h"
#include "common/rope_neox_common.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <span>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct QkvRopeAppendConfig {
  std::uint32_t head_dim = 64;
  std::uint32_t num_heads = 14;
  std::uint32_t num_kv_heads = 2;
  float theta = 1e6f;
  bool has_bias = true;
  std::uint32_t max_seq_len = 2048;
  std::uint32_t batch_size = 1;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("head_dim", c.head_dim, rope_head_dim_field());
    v.field("num_heads", c.num_heads,
            FieldSpec{.doc = "query heads per slot", .min = 1.0, .max = 1024.0});
    v.field("num_kv_heads", c.num_kv_heads,
            FieldSpec{.doc = "key/value heads per slot", .min = 1.0, .max = 1024.0});
    v.field("theta", c.theta, rope_theta_field());
    v.field("has_bias", c.has_bias,
            FieldSpec{.doc = "add a [(num_heads + 2 num_kv_heads) head_dim] bias before the "
                             "rotation (Qwen2's q/k/v biases); false: no bias parameter"});
    v.field("max_seq_len", c.max_seq_len,
            common::max_seq_len_field(
                "positions per KV head in the caches (a position >= it is refused)"));
    v.field("batch_size", c.batch_size,
            common::launch_shape_field("slots per launch (grid.y)", common::kGridYZMax,
                                       "launch shape only: grid.y = batch_size and each block "
                                       "reads its slot from %ctaid.y and its position from "
                                       "positions[slot], so no PTX depends on it"));
  }

  [[nodiscard]] std::uint32_t heads_in_row() const { return num_heads + 2 * num_kv_heads; }
  // The geometry of the rotation (its dtype f32); num_heads counts every head of a qkv row.
  [[nodiscard]] RopeGeometry geometry() const {
    return {head_dim, heads_in_row(), theta, DType::kF32};
  }
};

struct QkvRopeAppend {
  PTXKIT_KERNEL_FUNCTIONS(QkvRopeAppendConfig);
  static constexpr std::string_view kName = "qkv_rope_append";
  static constexpr std::string_view kSummary =
      "a fused Q/K/V projection's output, biased, RoPE NeoX on Q and K, K and V appended to the "
      "KV caches at each slot's position: bias_add + 2 rope_neox_batched + kv_scatter in one "
      "launch (f32)";
  static constexpr std::string_view kLimits =
      "head_dim even in [2, 1024]; (num_heads + 2 num_kv_heads) * head_dim < 2^31 and "
      "num_kv_heads * max_seq_len * head_dim < 2^31 (32-bit offsets inside a slot); theta finite "
      "and > 1; batch_size in [1, 65535] (grid.y); positions[s] < max_seq_len (check_positions; "
      "the device skips a slot that breaks it); f32 only";

  static Tolerance tolerance(const Config& c, const HostTensors& in);
  static std::vector<BenchCase> bench_cases();

  // Host-side half of the launch contract: one position per slot, each < max_seq_len; the error
  // names the first bad slot and its position.
  static ptxkit::Expected<void> check_positions(const Config& c,
                                                std::span<const std::uint32_t> positions);
};

// Threads per block and blocks per slot of the launch.
std::uint32_t qkv_rope_append_threads(const QkvRopeAppendConfig& c);
std::uint32_t qkv_rope_append_blocks_per_slot(const QkvRopeAppendConfig& c);

} // namespace ptxkit::kernels
