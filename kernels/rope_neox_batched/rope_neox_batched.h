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

struct RopeNeoxBatched {
  using Config = RopeNeoxBatchedConfig;
  static constexpr std::string_view kName = "rope_neox_batched";
  static constexpr std::string_view kSummary =
      "RoPE NeoX forward for every token x head in one launch, positions from a u32 buffer, "
      "theta baked";
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
    return rope_reference_tensors(c.geometry(), c.num_tokens, in, RopeDirection::kForward, kName);
  }
  static Tolerance tolerance(const Config&, const HostTensors& in) {
    return rope_tolerance(in, "as rope_neox");
  }
  static std::vector<BenchCase> bench_cases();
};

} // namespace ptxkit::kernels
