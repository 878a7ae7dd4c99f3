// rope_neox_reference.cpp: rope_neox's launch contract, inputs, reference and reference configs.
#include "rope_neox.h"

namespace ptxkit::kernels {

std::vector<NamedConfig<RopeNeoxConfig>> RopeNeox::reference_configs() {
  return {
      {"qwen05b_q", "Qwen2.5-0.5B queries: 14 heads, head_dim 64, theta 1e6",
       RopeNeoxConfig{.head_dim = 64, .num_heads = 14, .theta = 1e6f}},
      {"qwen05b_k", "Qwen2.5-0.5B keys: 2 KV heads, head_dim 64, theta 1e6",
       RopeNeoxConfig{.head_dim = 64, .num_heads = 2, .theta = 1e6f}},
      {"llama", "Llama: 32 heads, head_dim 128, theta 1e4",
       RopeNeoxConfig{.head_dim = 128, .num_heads = 32, .theta = 1e4f}},
      {"qwen05b_q_bf16", "Qwen2.5-0.5B queries in bf16: 14 heads, head_dim 64, theta 1e6",
       RopeNeoxConfig{.head_dim = 64, .num_heads = 14, .theta = 1e6f, .dtype = DType::kBF16}},
      {"qwen05b_k_bf16", "Qwen2.5-0.5B keys in bf16: 2 KV heads, head_dim 64, theta 1e6",
       RopeNeoxConfig{.head_dim = 64, .num_heads = 2, .theta = 1e6f, .dtype = DType::kBF16}},
      {"llama_f16", "Llama in f16: 32 heads, head_dim 128, theta 1e4",
       RopeNeoxConfig{.head_dim = 128, .num_heads = 32, .theta = 1e4f, .dtype = DType::kF16}},
  };
}

ptxkit::Expected<void> RopeNeox::validate(const Config& c) {
  return validate_rope(c.geometry());
}

LaunchDims RopeNeox::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = rope_blocks_per_row(c.geometry());
  d.block[0] = rope_threads(c.geometry());
  return d;
}

std::vector<ParamSpec> RopeNeox::params(const Config& c) {
  return rope_params(c.geometry(), 1, "pos");
}

HostTensors RopeNeox::make_inputs(const Config& c, std::uint64_t seed) {
  return rope_inputs(c.geometry(), 1, kMaxTestPos, seed);
}

ptxkit::Expected<HostTensors> RopeNeox::reference(const Config& c, const HostTensors& in) {
  return rope_reference_tensors(c.geometry(), 1, in, RopeDirection::kForward, kName);
}

} // namespace ptxkit::kernels
