// immediates.cpp: immediate values as bits and as text: f32 -> f16/bf16 rounding, shortest
// round-trip decimal text for baked-immediate reports.
//
// Kept out of the headers because the rounding code is bit twiddling that no kernel needs to see.
#include "ptxkit/ptxgen/isa/convert.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>

namespace ptxkit::ptxgen::detail {

std::uint16_t f32_to_f16_bits(float v) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(v);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t man = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (man ? 0x200u : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u); // overflow -> inf
  if (e <= 0) {                                                   // subnormal or zero
    if (e < -10) return static_cast<std::uint16_t>(sign);
    man |= 0x800000u;
    unsigned shift = static_cast<unsigned>(14 - e);
    std::uint32_t half = man >> shift;
    std::uint32_t rem = man & ((1u << shift) - 1u);
    std::uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
  std::uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half; // may carry into inf: correct
  return static_cast<std::uint16_t>(sign | half);
}

std::uint16_t f32_to_bf16_bits(float v) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(v);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu)) {
    return static_cast<std::uint16_t>((x >> 16) | 0x40u); // quiet NaN
  }
  std::uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>((x + rounding) >> 16);
}

std::string value_text(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
std::string value_text(float v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
std::string value_text(std::int64_t v) {
  return std::to_string(v);
}
std::string value_text(std::uint64_t v) {
  return std::to_string(v);
}

} // namespace ptxkit::ptxgen::detail
