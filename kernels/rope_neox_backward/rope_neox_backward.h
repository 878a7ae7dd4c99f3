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

struct RopeNeoxBackward {
  using Config = RopeNeoxBatchedConfig;
  static constexpr std::string_view kName = "rope_neox_backward";
  static constexpr std::string_view kSummary =
      "RoPE NeoX backward: the inverse rotation of every token x head in one launch, positions "
      "from a u32 buffer, theta baked";
  static constexpr std::string_view kLimits = kRopeBatchedLimits;
  static constexpr std::uint32_t kMaxTestPos = 131072;

  static std::vector<NamedConfig<Config>> reference_configs() {
    return rope_batched_reference_configs();
  }
  static ptxkit::Expected<void> validate(const Config& c) { return validate_rope(c.geometry()); }
  static ptxkit::Expected<GeneratedPtx> build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options);
  static LaunchDims launch(const Config& c) { return rope_batched_launch(c); }
  static std::vector<ParamSpec> params(const Config& c) { return rope_batched_params(c); }
  static HostTensors make_inputs(const Config& c, std::uint64_t seed) {
    return rope_inputs(c.geometry(), c.num_tokens, kMaxTestPos, seed);
  }
  static ptxkit::Expected<HostTensors> reference(const Config& c, const HostTensors& in) {
    return rope_reference_tensors(c.geometry(), c.num_tokens, in, RopeDirection::kInverse, kName);
  }
  static Tolerance tolerance(const Config&, const HostTensors& in) {
    return rope_tolerance(in, "as rope_neox");
  }
  static std::vector<BenchCase> bench_cases() {
    return {{.name = "rope_neox_backward_65535x14x64",
             .config = "qwen05b_q",
             .sets = {"num_tokens=65535"},
             .shape = "65535 tokens x 14 heads x 64",
             .target = BenchTarget{.min_pct_of_copy = 80}}};
  }
};

} // namespace ptxkit::kernels
