// rope_neox_batched_common.h: what rope_neox_batched and rope_neox_backward share: the config
// (every token x head in one launch, token = %ctaid.y, position = positions[token]), its limits,
// reference configs, launch shape and parameters. The two kernels differ only in the direction of
// the rotation.
#pragma once

#include "config_fields.h"
#include "rope_neox_common.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct RopeNeoxBatchedConfig {
  std::uint32_t head_dim = 64;
  std::uint32_t num_heads = 14;
  float theta = 1e6f;
  std::uint32_t num_tokens = 2048;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("head_dim", c.head_dim, rope_head_dim_field());
    v.field("num_heads", c.num_heads,
            FieldSpec{.doc = "heads per token", .min = 1.0, .max = 65536.0});
    v.field("theta", c.theta, rope_theta_field());
    v.field("num_tokens", c.num_tokens,
            common::launch_shape_field("tokens per launch (grid.y), one position each",
                                       common::kGridYZMax,
                                       "launch shape only: grid.y = num_tokens and each block "
                                       "reads its token from %ctaid.y and its position from "
                                       "positions[token], so no PTX depends on it"));
    v.field("dtype", c.dtype,
            common::dtype_field("element type of x and out (f32, f16, bf16); the rotation is f32"));
  }

  [[nodiscard]] RopeGeometry geometry() const { return {head_dim, num_heads, theta, dtype}; }
};

// The limits text and reference configs the batched forward and the backward kernels share.
inline constexpr std::string_view kRopeBatchedLimits =
    "head_dim even in [2, 1024] (.v4 when head_dim % 8 == 0, scalar otherwise); "
    "num_heads * head_dim < 2^31; theta finite and > 1; num_tokens in [1, 65535] (grid.y); "
    "any u32 positions; output may alias input; dtype f32, f16 or bf16 (x and out)";
std::vector<NamedConfig<RopeNeoxBatchedConfig>> rope_batched_reference_configs();
LaunchDims rope_batched_launch(const RopeNeoxBatchedConfig& c);
std::vector<ParamSpec> rope_batched_params(const RopeNeoxBatchedConfig& c);

// The definition members the two kernels share (KernelDefinition, kernel.h). `Kernel` derives from
// it and adds kName, kSummary, kDirection (the rotation: forward or inverse) and bench_cases.
template <class Kernel>
struct RopeNeoxBatchedDefinition {
  using Config = RopeNeoxBatchedConfig;
  static constexpr std::string_view kLimits = kRopeBatchedLimits;
  static constexpr std::uint32_t kMaxTestPos = 131072;

  static std::vector<NamedConfig<Config>> reference_configs() {
    return rope_batched_reference_configs();
  }
  static ptxkit::Expected<void> validate(const Config& c) { return validate_rope(c.geometry()); }
  // Token = %ctaid.y, its position positions[token].
  static ptxkit::Expected<GeneratedPtx> build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
    return build_rope(Kernel::kName, c.geometry(), /*batched=*/true, Kernel::kDirection, target,
                      options);
  }
  static LaunchDims launch(const Config& c) { return rope_batched_launch(c); }
  static std::vector<ParamSpec> params(const Config& c) { return rope_batched_params(c); }
  static HostTensors make_inputs(const Config& c, std::uint64_t seed) {
    return rope_inputs(c.geometry(), c.num_tokens, kMaxTestPos, seed);
  }
  static ptxkit::Expected<HostTensors> reference(const Config& c, const HostTensors& in) {
    return rope_reference_tensors(c.geometry(), c.num_tokens, in, Kernel::kDirection,
                                  Kernel::kName);
  }
  static Tolerance tolerance(const Config& c, const HostTensors& in) {
    return rope_tolerance(c.geometry(), in, "as rope_neox");
  }
};

} // namespace ptxkit::kernels
