// reference_decoder.h: the decoder's forward pass on the CPU in double precision, one token at a
// time per sequence with its own KV cache: the oracle the GPU decoder is checked against on small
// random models (Hugging Face transformers is the outside oracle, on the GPU machine).
//
// Per layer: h = RMSNorm(x) * w_in; q, k, v = projections of h (+ biases); RoPE NeoX at the
// token's position on q and k (element i pairs with i + head_dim/2, inverse frequency
// theta^(-2i/head_dim)); k, v appended to the cache; each query head attends to its KV group over
// positions 0..p with scale 1/sqrt(head_dim); x += o_proj(attention); h = RMSNorm(x) * w_post;
// x += down(silu(gate(h)) * up(h)). Then RMSNorm(x) * w_final and the LM head give the logits.
#pragma once

#include "ptxkit/decoder/weights.h"

#include <cstdint>
#include <vector>

namespace ptxkit::decoder {

class ReferenceDecoder {
public:
  // `weights` must outlive the decoder.
  explicit ReferenceDecoder(const ModelWeights& weights);

  // Feeds `token` to sequence `seq` (created on first use) at its next position; the logits.
  [[nodiscard]] Expected<std::vector<float>> step(std::size_t seq, std::uint32_t token);
  [[nodiscard]] std::size_t length(std::size_t seq) const;

  // The prompt, then `new_tokens` greedy tokens (argmax, first index on ties); the generated ids.
  [[nodiscard]] Expected<std::vector<std::uint32_t>>
  generate(std::size_t seq, const std::vector<std::uint32_t>& prompt, std::uint32_t new_tokens,
           std::vector<std::vector<float>>* logits_per_step = nullptr);

private:
  struct Sequence {
    // Per layer, per position: the RoPE-rotated key and the value, [kv_heads * head_dim].
    std::vector<std::vector<std::vector<double>>> k, v;
    std::size_t length = 0;
  };
  const ModelWeights& w_;
  std::vector<Sequence> seqs_;
};

// The index of the largest value, the first on ties (NaN never wins here: logits are finite).
[[nodiscard]] std::uint32_t argmax_first(const std::vector<float>& v);

} // namespace ptxkit::decoder
