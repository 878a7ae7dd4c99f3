// isa/table.h: the builder's names for the ISA table's records (ptxkit/isa/isa.h) and the
// register classes its virtual registers are declared in.
//
// Opcodes, types, modifiers and special registers are the ISA table's enums (one list each, in
// ptxkit/isa/*.def, shared with the verifier); the builder adds only what is its own: which
// `.reg` class holds a value of each type, and how its registers are named.
#pragma once

#include "ptxkit/isa/isa.h"

#include <array>
#include <cstdint>
#include <string_view>

namespace ptxkit::ptxgen {

using TypeId = isa::Type;
using Op = isa::Opcode;
using Mod = isa::Modifier;
using Sreg = isa::SpecialRegister;
using isa::spelling;

// The `.reg` classes, in the order their declarations are printed: (declared type, register
// prefix) as nvcc names them (%p, %rs, %r, %rd, %f, %fd).
enum class RegClass : std::uint8_t { kPred, kB16, kB32, kB64, kF32, kF64 };
struct RegClassInfo {
  RegClass cls;
  std::string_view decl;   // "b32"
  std::string_view prefix; // "%r"
};
inline constexpr std::array<RegClassInfo, 6> kRegClasses = {{
    {RegClass::kPred, "pred", "%p"},
    {RegClass::kB16, "b16", "%rs"},
    {RegClass::kB32, "b32", "%r"},
    {RegClass::kB64, "b64", "%rd"},
    {RegClass::kF32, "f32", "%f"},
    {RegClass::kF64, "f64", "%fd"},
}};
inline constexpr int kNumRegClasses = static_cast<int>(kRegClasses.size());

constexpr std::string_view decl_spelling(RegClass c) {
  return kRegClasses[static_cast<std::size_t>(c)].decl;
}
constexpr std::string_view reg_prefix(RegClass c) {
  return kRegClasses[static_cast<std::size_t>(c)].prefix;
}

constexpr unsigned type_bits(TypeId t) {
  return isa::size_bits(t);
}
// The class a value of type t lives in: predicates in %p, f32/f64 in their own classes, every
// other type (integers, bits, halves and packed halves) in the integer class of its width.
constexpr RegClass reg_class(TypeId t) {
  if (t == TypeId::kPred) return RegClass::kPred;
  if (t == TypeId::kF32) return RegClass::kF32;
  if (t == TypeId::kF64) return RegClass::kF64;
  unsigned bits = type_bits(t);
  return bits <= 16 ? RegClass::kB16 : bits <= 32 ? RegClass::kB32 : RegClass::kB64;
}

} // namespace ptxkit::ptxgen
