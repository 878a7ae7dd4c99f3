// dtype.h: the element types a kernel's activations, weights and caches may have (a config field,
// baked into the PTX and so into the cache key), and the host side of the half formats.
//
// A kernel reads its half inputs, computes in f32 and rounds its outputs once, to nearest even.
// Its CPU reference does the same in double: it takes inputs that are exactly representable in
// the format (make_inputs rounds them with round_to) and rounds each output with round_to, so a
// device result and the reference differ by the f32 arithmetic plus at most one unit in the last
// place of the format (a rounding boundary crossed), which unit_roundoff() sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ptxkit/kernels/host_tensors.h>
#include <span>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

enum class DType : std::uint32_t { kF32, kF16, kBF16 };

// "f32", "f16", "bf16": the names a config field of this type accepts (reflect.h).
std::span<const std::string_view> ptxkit_enum_names(DType);
[[nodiscard]] std::string_view dtype_name(DType t);

// The element type of a buffer holding values of `t` (host_tensors.h).
[[nodiscard]] constexpr ElemType elem_type(DType t) {
  return t == DType::kF16 ? ElemType::kF16 : t == DType::kBF16 ? ElemType::kBF16 : ElemType::kF32;
}
[[nodiscard]] constexpr std::size_t dtype_bytes(DType t) {
  return t == DType::kF32 ? 4 : 2;
}

// Half the distance from 1 to the next value: 2^-24 (f32), 2^-11 (f16), 2^-8 (bf16). One
// rounding to nearest errs by at most this much, relative, for normal values.
[[nodiscard]] constexpr double unit_roundoff(DType t) {
  return t == DType::kF16 ? 0x1p-11 : t == DType::kBF16 ? 0x1p-8 : 0x1p-24;
}

// IEEE binary16 and bfloat16 bit patterns, rounded to nearest even from f32 (NaN stays NaN,
// overflow goes to infinity, f16 keeps its subnormals), and their exact f32 values.
[[nodiscard]] std::uint16_t f16_bits(float v);
[[nodiscard]] float f16_value(std::uint16_t bits);
[[nodiscard]] std::uint16_t bf16_bits(float v);
[[nodiscard]] float bf16_value(std::uint16_t bits);

// v rounded to the nearest value of `t` (f32: v itself).
[[nodiscard]] float round_to(DType t, float v);
[[nodiscard]] float round_to(DType t, double v);
void round_all(DType t, std::vector<float>& values);

} // namespace ptxkit::kernels
