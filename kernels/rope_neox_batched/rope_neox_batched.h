// rope_neox_batched.h: RoPE NeoX forward over a positions buffer: every token x every head in one
// launch (config, launch contract, reference): one launch instead of one per position.
//
// x and y are [num_tokens, num_heads, head_dim] f32 (y may be x); positions[t] (u32) is token t's
// position. Grid (blocks_per_row, num_tokens): token = %ctaid.y, so num_tokens is launch shape
// only and stays out of the PTX and the key; theta is baked. The config is
// common/rope_neox_batched_common.h's; the rotation, accuracy and emitter
// common/rope_neox_common.h's.
#pragma once

#include "common/rope_neox_batched_common.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct RopeNeoxBatched : RopeNeoxBatchedDefinition<RopeNeoxBatched> {
  static constexpr std::string_view kName = "rope_neox_batched";
  static constexpr std::string_view kSummary =
      "RoPE NeoX forward for every token x head in one launch, positions from a u32 buffer, "
      "theta baked";
  static constexpr RopeDirection kDirection = RopeDirection::kForward;
  static std::vector<BenchCase> bench_cases();
};

} // namespace ptxkit::kernels
