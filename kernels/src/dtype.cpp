// dtype.cpp: names of the element types, and f32 <-> f16/bf16 on the host, bit-exact with the
// device's cvt.rn (round to nearest, ties to even).
#include <array>
#include <bit>
#include <cmath>
#include <ptxkit/kernels/dtype.h>

namespace ptxkit::kernels {

namespace {
constexpr std::array<std::string_view, 3> kNames = {"f32", "f16", "bf16"};
} // namespace

std::span<const std::string_view> ptxkit_enum_names(DType) {
  return kNames;
}

std::string_view dtype_name(DType t) {
  return kNames[static_cast<std::size_t>(t)];
}

std::uint16_t bf16_bits(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  if (std::isnan(v)) return static_cast<std::uint16_t>((u >> 16) | 0x40); // quiet NaN
  // Round to nearest even on the 16 bits dropped; a carry into the exponent is the right result
  // (up to infinity on overflow).
  const std::uint32_t rounding = 0x7fff + ((u >> 16) & 1);
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}

float bf16_value(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t f16_bits(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000);
  const std::uint32_t abs = u & 0x7fffffff;
  if (abs > 0x7f800000) return static_cast<std::uint16_t>(sign | 0x7e00);  // NaN
  if (abs >= 0x477ff000) return static_cast<std::uint16_t>(sign | 0x7c00); // rounds past 65504
  const int exponent = static_cast<int>(abs >> 23) - 127;
  const std::uint32_t mantissa = (abs & 0x7fffff) | 0x800000; // with the implicit bit
  // Normal f16: exponent >= -14, 10 kept bits; subnormal: fewer kept bits, same rounding.
  const int shift = exponent >= -14 ? 13 : 13 + (-14 - exponent);
  // At or below half the smallest subnormal (2^-25, a tie with zero, which is even): zero.
  if (abs <= 0x33000000) return sign;
  const std::uint32_t kept = mantissa >> shift;
  const std::uint32_t rest = mantissa & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
  const std::uint32_t rounded = kept + ((rest > half || (rest == half && (kept & 1))) ? 1 : 0);
  if (exponent >= -14) {
    // kept holds the implicit bit at 2^10; the biased exponent adds on top (a carry out of the
    // mantissa bumps it, as it should).
    const std::uint32_t biased = static_cast<std::uint32_t>(exponent + 15);
    return static_cast<std::uint16_t>(sign | ((biased << 10) + (rounded - 0x400)));
  }
  return static_cast<std::uint16_t>(sign |
                                    rounded); // subnormal (a carry makes the smallest normal)
}

float f16_value(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1f;
  const std::uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

float round_to(DType t, float v) {
  switch (t) {
  case DType::kF16:
    return f16_value(f16_bits(v));
  case DType::kBF16:
    return bf16_value(bf16_bits(v));
  case DType::kF32:
    break;
  }
  return v;
}

// Through f32 first would round twice; the kernels round their f32 result once, and so does this
// (the double -> f32 step is what the kernel's own f32 arithmetic does).
float round_to(DType t, double v) {
  return round_to(t, static_cast<float>(v));
}

void round_all(DType t, std::vector<float>& values) {
  if (t == DType::kF32) return;
  for (float& v : values)
    v = round_to(t, v);
}

} // namespace ptxkit::kernels
