// decoder.h: a Qwen2 / Llama decoder on the GPU, built from the library kernels and run through
// the runtime (every kernel generated for the device, verified, loaded through the kernel cache and
// launched against its launch contract).
//
// A step feeds one token to each of `batch` slots (sequences), each at its own position, and gives
// every slot's greedy next token (and, on request, its logits). The whole step is planned once
// when the decoder is made: a fixed list of launches over fixed device buffers, whose only
// per-step inputs (token ids, positions, lengths) are read by the kernels from device memory. So
// a step is: upload three small arrays, run the plan (one CUDA graph replay, the graph captured
// at the first step), download the next ids. Per layer:
//   h = RMSNorm(x)                                  rmsnorm (first layer; later ones come fused)
//   qkv = [W_q; W_k; W_v] h                          one GEMV per weight mode (one launch for
//                                                   all slots: each weight read once per slot)
//   q, k = RoPE NeoX(qkv (+ biases)) at each slot's position; cache[slot][position] = k, v
//                                                   qkv_rope_append (one launch)
//   a = attention over positions 0..position         flash_decode (GQA, one launch)
//   x = x + W_o a;  h = RMSNorm(x)                   GEMV, fused_residual_rmsnorm
//   x = x + W_down (silu(W_gate h) * W_up h)          GEMV, swiglu, GEMV, fused_residual_rmsnorm
// (the last fused norm of a layer applies the next layer's input norm, or the final norm), then
// logits = W_head h and the greedy id per slot (argmax_partial, argmax_final). Activations, the KV
// caches and the arithmetic are f32; the weights are f32, bf16 (gemv_half) or Q4_K (q4k_gemv).
#pragma once

#include "ptxkit/decoder/weights.h"

#include <cstdint>
#include <memory>
#include <ptxkit/ptxgen/target.h>
#include <ptxkit/runtime/buffer.h>
#include <ptxkit/runtime/context.h>
#include <ptxkit/runtime/kernel_cache.h>
#include <ptxkit/runtime/module.h>
#include <span>
#include <string>
#include <vector>

namespace ptxkit::decoder {

namespace rt = ptxkit::runtime;

enum class WeightMode { kF32, kBF16, kQ4K };
[[nodiscard]] std::string_view weight_mode_name(WeightMode m);

struct DecoderOptions {
  WeightMode weights = WeightMode::kF32;
  std::uint32_t batch = 1;          // slots decoded together in one step
  std::uint32_t max_seq_len = 2048; // positions each slot's KV cache holds
  // Replay the step as one CUDA graph (captured at the first step) instead of launching its
  // kernels one by one: the same launches, without their per-kernel host work.
  bool use_graph = true;
};

// One kernel launch of the plan: the function, its launch shape and its arguments (device
// addresses), in the order of the kernel's parameters.
struct PlannedLaunch {
  std::string kernel; // the library kernel's name, for messages and tests
  const rt::Function* function = nullptr;
  rt::LaunchDims dims;
  std::vector<rt::cu::DevicePtr> args;
};

struct StepResult {
  std::vector<std::uint32_t> next; // [batch] greedy ids (argmax, first index on ties)
  std::vector<float> logits;       // [batch, vocab] when asked for, else empty
};

class Decoder {
public:
  // Uploads the weights (converted to the mode's format) and plans the step. The weights are not
  // kept: the host copy may be freed afterwards.
  [[nodiscard]] static rt::Expected<Decoder> create(rt::KernelCache& cache,
                                                    const ptxgen::Target& target,
                                                    const ModelWeights& weights,
                                                    const DecoderOptions& options);

  // Feeds tokens[s] to slot s at positions[s] (the slot's current length: 0 for its first token;
  // positions may differ between slots). Refuses ids outside the vocabulary and positions at or
  // past max_seq_len before anything runs.
  [[nodiscard]] rt::Expected<StepResult> step(rt::Stream& stream,
                                              std::span<const std::uint32_t> tokens,
                                              std::span<const std::uint32_t> positions,
                                              bool want_logits = false);

  // Where a step's time goes: the step at (tokens, positions) run as launches one by one with an
  // event after each, microseconds per planned launch in plan order. The plan is first run once
  // untimed, so the device is still busy with it while the host queues the timed launches and
  // each interval is device time (a kernel plus the gap between two stream launches, which a
  // graph replay shortens), not the host's launch rate. The step is run twice at the same
  // positions: the caches end as after one step.
  [[nodiscard]] rt::Expected<std::vector<double>>
  profile_step(rt::Stream& stream, std::span<const std::uint32_t> tokens,
               std::span<const std::uint32_t> positions);

  [[nodiscard]] const std::vector<PlannedLaunch>& plan() const { return plan_; }
  [[nodiscard]] const ModelConfig& config() const { return config_; }
  [[nodiscard]] const DecoderOptions& options() const { return options_; }
  // Bytes of weights on the device (what one step reads at least once).
  [[nodiscard]] std::uint64_t weight_bytes() const { return weight_bytes_; }

  Decoder(Decoder&&) noexcept;
  Decoder& operator=(Decoder&&) noexcept;
  ~Decoder();

private:
  struct State; // device buffers and loaded functions
  // Checks the step's inputs and uploads them (ids, positions, lengths).
  rt::Expected<void> upload_inputs(rt::Stream& stream, std::span<const std::uint32_t> tokens,
                                   std::span<const std::uint32_t> positions);
  // Queues launch i of the plan on `stream`.
  rt::Expected<void> launch(std::size_t i, const rt::Stream& stream) const;
  Decoder() = default;
  ModelConfig config_;
  DecoderOptions options_;
  std::unique_ptr<State> state_;
  std::vector<PlannedLaunch> plan_;
  std::uint64_t weight_bytes_ = 0;
};

} // namespace ptxkit::decoder
