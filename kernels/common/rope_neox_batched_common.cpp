// rope_neox_batched_common.cpp: the launch contract, parameters and reference configs that
// rope_neox_batched and rope_neox_backward share.
#include "rope_neox_batched_common.h"

namespace ptxkit::kernels {

std::vector<NamedConfig<RopeNeoxBatchedConfig>> rope_batched_reference_configs() {
  return {
      {"qwen05b_q", "Qwen2.5-0.5B queries: 14 heads, head_dim 64, theta 1e6, 2048 tokens",
       RopeNeoxBatchedConfig{.head_dim = 64, .num_heads = 14, .theta = 1e6f, .num_tokens = 2048}},
      {"qwen05b_k", "Qwen2.5-0.5B keys: 2 KV heads, head_dim 64, theta 1e6, 2048 tokens",
       RopeNeoxBatchedConfig{.head_dim = 64, .num_heads = 2, .theta = 1e6f, .num_tokens = 2048}},
      {"llama", "Llama: 32 heads, head_dim 128, theta 1e4, 512 tokens",
       RopeNeoxBatchedConfig{.head_dim = 128, .num_heads = 32, .theta = 1e4f, .num_tokens = 512}},
      {"qwen05b_q_bf16", "Qwen2.5-0.5B queries in bf16: 14 heads, head_dim 64, 2048 tokens",
       RopeNeoxBatchedConfig{.head_dim = 64,
                             .num_heads = 14,
                             .theta = 1e6f,
                             .num_tokens = 2048,
                             .dtype = DType::kBF16}},
      {"qwen05b_k_bf16", "Qwen2.5-0.5B keys in bf16: 2 KV heads, head_dim 64, 2048 tokens",
       RopeNeoxBatchedConfig{.head_dim = 64,
                             .num_heads = 2,
                             .theta = 1e6f,
                             .num_tokens = 2048,
                             .dtype = DType::kBF16}},
      {"llama_f16", "Llama in f16: 32 heads, head_dim 128, theta 1e4, 512 tokens",
       RopeNeoxBatchedConfig{.head_dim = 128,
                             .num_heads = 32,
                             .theta = 1e4f,
                             .num_tokens = 512,
                             .dtype = DType::kF16}},
  };
}

LaunchDims rope_batched_launch(const RopeNeoxBatchedConfig& c) {
  LaunchDims d;
  d.grid[0] = rope_blocks_per_row(c.geometry());
  d.grid[1] = c.num_tokens;
  d.block[0] = rope_threads(c.geometry());
  return d;
}

std::vector<ParamSpec> rope_batched_params(const RopeNeoxBatchedConfig& c) {
  return rope_params(c.geometry(), c.num_tokens, "positions");
}

} // namespace ptxkit::kernels
