// rope_neox_backward.h: the backward pass of batched RoPE NeoX: the inverse rotation R^T(pos)
// applied to the gradient, every token x head in one launch. Without it, dW_q and dW_k would be
// computed in the rotated frame.
//
//   dx[i] = dy[i] cos + dy[i+d/2] sin,   dx[i+d/2] = dy[i+d/2] cos - dy[i] sin
//
// Same config, layout, launch contract and limits as rope_neox_batched
// (common/rope_neox_batched_common.h); applying rope_neox_batched and then this kernel at the same
// positions is the identity.
#pragma once

#include "common/rope_neox_batched_common.h"

namespace ptxkit::kernels {

struct RopeNeoxBackward : RopeNeoxBatchedDefinition<RopeNeoxBackward> {
  static constexpr std::string_view kName = "rope_neox_backward";
  static constexpr std::string_view kSummary =
      "RoPE NeoX backward: the inverse rotation of every token x head in one launch, positions "
      "from a u32 buffer, theta baked";
  static constexpr RopeDirection kDirection = RopeDirection::kInverse;
  static std::vector<BenchCase> bench_cases() {
    return {{.name = "rope_neox_backward_65535x14x64",
             .config = "qwen05b_q",
             .sets = {"num_tokens=65535"},
             .shape = "65535 tokens x 14 heads x 64",
             .target = BenchTarget{.min_pct_of_copy = 80}}};
  }
};

} // namespace ptxkit::kernels
