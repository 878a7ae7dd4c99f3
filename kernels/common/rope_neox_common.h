// rope_neox_common.h: what the three RoPE NeoX kernels share: the geometry, the PTX emitter and the
// CPU reference (rope_neox, rope_neox_batched and rope_neox_backward differ only in where the
// position comes from and in the sign of the rotation).
//
// x and y are in the geometry's element type (f32, f16 or bf16): halves are widened on load,
// rotated in f32 exactly as f32 is, and the result rounded once (to nearest even) on store.
//
// NeoX ("half rotation") layout: a head of head_dim elements is rotated in pairs
// (i, i + head_dim/2), i < head_dim/2, by the angle pos * inv_freq(i) with
//   inv_freq(i) = theta^(-2i / head_dim).
// Forward:  y[i] = x[i] cos - x[i+h] sin,   y[i+h] = x[i] sin + x[i+h] cos.
// Inverse (the backward pass, R^T): y[i] = x[i] cos + x[i+h] sin,  y[i+h] = x[i+h] cos - x[i] sin.
//
// The kernel computes inv_freq and the angle in f64, so the rotation is as accurate at position
// 500000 as at position 5: inv_freq(i) = r^i with r = theta^(-2/head_dim) is the product of the
// baked f64 immediates r^(2^b) over the set bits b of i (then times r, r^2, r^3 for the other
// pairs of a .v4 group); every one of them is reported as coming from the field theta (1 ulp of
// theta changes these immediates and so the cache key). angle = pos * inv_freq is reduced modulo
// 2pi in f64 (rint, two-constant Cody-Waite with fma), rounded to f32 in [-pi, pi], where
// sin.approx/cos.approx are accurate to 2^-20.9; the rotation itself is f32 fma.
// Tolerance against the double reference, for |x| <= 1 and any u32 position: |y - ref| <= 2e-6.
// Measured on an H200 (2026-11-30): max |err| 6.0e-7 at positions < 32768 (an f32 inv_freq, as
// HF computes it, is off by 2.9e-3 there); 4.0-4.1 TB/s for rope_neox_batched and
// rope_neox_backward at 65535 tokens x 14 heads x 64 and 16384 x 32 x 128 (98% of the 4.15 TB/s
// copy bandwidth: the ~31 f64 operations per thread stay hidden behind the memory traffic on
// GPUs with full-rate f64; consumer parts with 1/64-rate f64 may become compute-bound).
#pragma once

#include <array>
#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <ptxkit/ptxgen/target.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct RopeGeometry {
  std::uint32_t head_dim = 64;
  std::uint32_t num_heads = 14;
  float theta = 1e6f;
  DType dtype = DType::kF32; // element type of x and y
};

enum class RopeDirection { kForward, kInverse };

// The geometry fields every RoPE config declares alike (num_heads' doc differs per kernel).
constexpr FieldSpec rope_head_dim_field() {
  return FieldSpec{.doc = "elements per head (even: pairs (i, i + head_dim/2)); .v4 when "
                          "head_dim % 8 == 0",
                   .min = 2.0,
                   .max = 1024.0,
                   .multiple_of = 2};
}
constexpr FieldSpec rope_theta_field() {
  return FieldSpec{.doc = "RoPE base: inv_freq = theta^(-2i/head_dim) (1e6 Qwen2.5, 1e4 Llama)",
                   .min = 1.0,
                   .max = 1e9,
                   .min_exclusive = true};
}

// Pairs handled by one thread: 4 (two .v4 loads, two .v4 stores) when head_dim/2 is a multiple of
// 4, else 1 (scalar). Either way every access stays inside its head: no tail can run past a row.
[[nodiscard]] std::uint32_t rope_pairs_per_thread(const RopeGeometry& g);
// Threads per token row: num_heads * head_dim/2 / pairs_per_thread.
[[nodiscard]] std::uint32_t rope_groups_per_row(const RopeGeometry& g);
// Block size: the row's groups rounded up to a warp, at most 128.
[[nodiscard]] std::uint32_t rope_threads(const RopeGeometry& g);
// Blocks per token row (grid.x).
[[nodiscard]] std::uint32_t rope_blocks_per_row(const RopeGeometry& g);

// Cross-field rules shared by the three kernels (head_dim even; the row fits 32-bit offsets).
[[nodiscard]] ptxkit::Expected<void> validate_rope(const RopeGeometry& g);

// The PTX of one RoPE kernel. `batched`: the token is %ctaid.y and its position positions[token];
// otherwise there is one token and its position is pos[0]. Parameters: input, output, and
// "positions" (batched) or "pos" (one u32); input may equal output (in place).
[[nodiscard]] ptxkit::Expected<GeneratedPtx>
build_rope(std::string_view kernel_name, const RopeGeometry& g, bool batched,
           RopeDirection direction, const ptxgen::Target& target, const GenOptions& options);

// The emitter's two halves, for kernels that rotate heads as part of a larger job
// (qkv_rope_append): inv_freq(pair0) = theta^(-2 pair0 / head_dim) in f64, a product of baked
// powers over the set bits of pair0 (a multiple of rope_pairs_per_thread(g)); and the rotation of
// the pairs (x1[k], x2[k]), k < x1.size(), at pair0 + k by the angle pos * inv_freq (f64, reduced
// to [-pi, pi]), returned as {y1, y2} in f32.
[[nodiscard]] ptxgen::Reg<ptxgen::F64>
rope_inv_freq(ptxgen::KernelBuilder& b, const RopeGeometry& g, ptxgen::Reg<ptxgen::U32> pair0);
[[nodiscard]] std::array<std::vector<ptxgen::Reg<ptxgen::F32>>, 2>
rope_rotate(ptxgen::KernelBuilder& b, const RopeGeometry& g, ptxgen::Reg<ptxgen::F64> pos_d,
            ptxgen::Reg<ptxgen::F64> inv_freq0, const std::vector<ptxgen::Reg<ptxgen::F32>>& x1,
            const std::vector<ptxgen::Reg<ptxgen::F32>>& x2, RopeDirection direction);

// The CPU reference in double, each output rounded to g.dtype: x is
// [positions.size(), num_heads, head_dim].
[[nodiscard]] std::vector<float> rope_reference(const RopeGeometry& g, const std::vector<float>& x,
                                                const std::vector<std::uint32_t>& positions,
                                                RopeDirection direction);

// The host buffers a RoPE kernel is checked with: x in [-1, 1) (values of g.dtype), positions in
// [0, max_pos).
[[nodiscard]] HostTensors rope_inputs(const RopeGeometry& g, std::uint32_t tokens,
                                      std::uint32_t max_pos, std::uint64_t seed);

// The device tolerance at the inputs' largest position ("positions"): the f32 inv_freq's error
// grows with the angle, abs (1e-5 + 1.5e-7 * max position) * sqrt(2); a half output adds one
// rounding boundary of its format (rel 2 * unit roundoff). `why` (a literal) is the f32 reason.
[[nodiscard]] Tolerance rope_tolerance(const RopeGeometry& g, const HostTensors& in,
                                       std::string_view why);

// The input, output and position parameters (`positions_param` "positions" or "pos").
[[nodiscard]] std::vector<ParamSpec> rope_params(const RopeGeometry& g, std::uint32_t tokens,
                                                 const char* positions_param);

// Checks the inputs' sizes and runs rope_reference into "out".
[[nodiscard]] ptxkit::Expected<HostTensors>
rope_reference_tensors(const RopeGeometry& g, std::uint32_t tokens, const HostTensors& in,
                       RopeDirection direction, std::string_view kernel_name);

} // namespace ptxkit::kernels
