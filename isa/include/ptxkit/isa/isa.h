// isa.h: the PTX instruction set as data: opcodes with their minimum target and PTX version
// and the facts the tools rely on, the forms that need newer targets, the fundamental types, the
// modifiers and special registers the tools name. Generated from instructions.def, forms.def,
// types.def, modifiers.def and special_registers.def, the only lists of each; no dependencies
// beyond the standard library.
//
// Why one table: the builder needs each instruction's spelling and the oldest target that has
// it, the verifier needs to know which instructions are pure, which access memory at an address,
// which are warp collectives or barriers. Kept apart, such lists drift (an opcode added to one
// list and not the other is a silent wrong answer); generated from one record per instruction,
// they cannot.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string_view>

namespace ptxkit::isa {

// ---------------------------------------------------------------------------------------------
// Instructions
// ---------------------------------------------------------------------------------------------

// One enumerator per record of instructions.def; kUnknown for any other spelling (a newer
// instruction, or a typo that ptxas will reject).
enum class Opcode : std::uint8_t {
  kUnknown,
#define PTXKIT_INSTRUCTION(e, spelling, sm, ptx, traits) e,
#include "ptxkit/isa/instructions.def"
#undef PTXKIT_INSTRUCTION
};

// What the table states about an instruction (bit flags; an instruction has any number).
enum Trait : std::uint32_t {
  // The results are a function of the operands alone: no memory, no thread identity beyond
  // special-register operands, no side effect, no carry flag (its `.cc` forms excepted: they
  // write the carry flag). Two such instructions with equal operands give equal results.
  kPure = 1u << 0,
  // The first operand is not written (stores, control flow, fences, cache hints). A few forms
  // of such instructions do write a register first operand (`wmma.load`, `multimem.ld_reduce`,
  // `mbarrier.arrive`'s state, `bar.red`, `tcgen05.ld`): their modifiers decide.
  kNoResult = 1u << 1,
  // Reads or writes memory at its one address operand, in the state space its modifiers name
  // (or a generic address): ld, ldu, st, atom, red, ldmatrix, stmatrix.
  kAddressedAccess = 1u << 2,
  // May write memory that ordinary loads read (stores, atomics, copies, surface writes).
  kWritesMemory = 1u << 3,
  // Executed by the lanes of a warp together (`.sync`/`.aligned` warp-level operations).
  kWarpCollective = 1u << 4,
  // Executed by the four warps of a warpgroup together (wgmma, setmaxnreg).
  kWarpgroupCollective = 1u << 5,
  // A CTA-level barrier (bar, barrier; `bar.warp.sync` is a warp-level form).
  kBarrier = 1u << 6,
  // Transfers control: branch, call, return, exit.
  kControlFlow = 1u << 7,
  // Reads the carry flag (addc, subc, madc).
  kReadsCarry = 1u << 8,
  // Needs an architecture-specific target (sm_90a, sm_100a, ...).
  kArchSpecific = 1u << 9,
  // A binary operator that is associative and commutative in its integer forms (add, mul, min,
  // max, and, or, xor): the operators a reduction tree may combine lanes with.
  kAssociative = 1u << 10,
  // Its sources may be written negated, `-%r2.h0` (vmad, PTX ISA 9.7.20.1); ptxas refuses
  // operand negation on every other instruction.
  kNegatableSources = 1u << 11,
};

struct InstructionInfo {
  Opcode opcode;
  std::string_view spelling;
  std::uint16_t min_sm;  // 0: every target
  std::uint16_t min_ptx; // PTX ISA version times ten
  std::uint32_t traits;
};

namespace detail {
using enum Trait;
inline constexpr InstructionInfo kInstructions[] = {
    {Opcode::kUnknown, "", 0, 0, 0},
#define PTXKIT_INSTRUCTION(e, spelling, sm, ptx, traits) {Opcode::e, spelling, sm, ptx, traits},
#include "ptxkit/isa/instructions.def"
#undef PTXKIT_INSTRUCTION
};
inline constexpr std::size_t kInstructionCount = std::size(kInstructions);

// The records sorted by spelling, for lookup by binary search.
inline constexpr auto kBySpelling = [] {
  std::array<const InstructionInfo*, kInstructionCount - 1> sorted{};
  for (std::size_t i = 1; i < kInstructionCount; ++i)
    sorted[i - 1] = &kInstructions[i];
  std::sort(sorted.begin(), sorted.end(), [](const InstructionInfo* a, const InstructionInfo* b) {
    return a->spelling < b->spelling;
  });
  return sorted;
}();
} // namespace detail

constexpr const InstructionInfo& info(Opcode op) {
  return detail::kInstructions[static_cast<std::size_t>(op)];
}
constexpr std::string_view spelling(Opcode op) {
  return info(op).spelling;
}
constexpr bool has(Opcode op, Trait t) {
  return (info(op).traits & t) != 0;
}
// The opcode spelled `s` (the first word of an instruction, without modifiers); kUnknown if
// PTX has none such.
constexpr Opcode opcode_from_spelling(std::string_view s) {
  const auto& sorted = detail::kBySpelling;
  auto it = std::lower_bound(
      sorted.begin(), sorted.end(), s,
      [](const InstructionInfo* a, std::string_view x) { return a->spelling < x; });
  return it != sorted.end() && (*it)->spelling == s ? (*it)->opcode : Opcode::kUnknown;
}
// Every instruction, in table order (kUnknown left out).
constexpr auto all_instructions() {
  return std::span<const InstructionInfo>(detail::kInstructions + 1, detail::kInstructionCount - 1);
}

// Forms of an instruction that need more than its own minimum (forms.def); kNone for none.
enum class Form : std::uint8_t {
  kNone,
#define PTXKIT_FORM(e, opcode, description, sm, ptx) e,
#include "ptxkit/isa/forms.def"
#undef PTXKIT_FORM
};

struct FormInfo {
  Form form;
  Opcode opcode;
  std::string_view description; // "setp.bf16"
  std::uint16_t min_sm;
  std::uint16_t min_ptx;
};

namespace detail {
inline constexpr FormInfo kForms[] = {
    {Form::kNone, Opcode::kUnknown, "", 0, 0},
#define PTXKIT_FORM(e, opcode, description, sm, ptx)                                               \
  {Form::e, Opcode::opcode, description, sm, ptx},
#include "ptxkit/isa/forms.def"
#undef PTXKIT_FORM
};
} // namespace detail

constexpr const FormInfo& info(Form f) {
  return detail::kForms[static_cast<std::size_t>(f)];
}

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

// How a type's bits are read.
enum class TypeKind : std::uint8_t {
  kPred,        // .pred
  kBits,        // .b8 .. .b128: untyped bits
  kUnsigned,    // .u8 .. .u64
  kSigned,      // .s8 .. .s64
  kFloat,       // .f32, .f64
  kHalf,        // .f16, .bf16
  kHalf2,       // .f16x2, .bf16x2: two halves packed in 32 bits
  kNarrowFloat, // .tf32 and the 8/6/4-bit formats (.e4m3, .e2m1x2, ...)
  kOpaque,      // .texref, .samplerref, .surfref
};

// One enumerator per record of types.def; kUnknown for any other spelling.
enum class Type : std::uint8_t {
  kUnknown,
#define PTXKIT_TYPE(e, spelling, bytes, kind) e,
#include "ptxkit/isa/types.def"
#undef PTXKIT_TYPE
};

struct TypeInfo {
  Type type;
  std::string_view spelling;
  std::uint8_t bytes;
  TypeKind kind;
};

namespace detail {
inline constexpr TypeInfo kTypes[] = {
    {Type::kUnknown, "", 0, TypeKind::kOpaque},
#define PTXKIT_TYPE(e, spelling, bytes, kind) {Type::e, spelling, bytes, TypeKind::kind},
#include "ptxkit/isa/types.def"
#undef PTXKIT_TYPE
};
} // namespace detail

constexpr const TypeInfo& info(Type t) {
  return detail::kTypes[static_cast<std::size_t>(t)];
}
constexpr std::string_view spelling(Type t) {
  return info(t).spelling;
}
// Size in bytes of one element (0 for kUnknown and the opaque types; 1 for .pred).
constexpr unsigned size_bytes(Type t) {
  return info(t).bytes;
}
constexpr unsigned size_bits(Type t) {
  return t == Type::kPred ? 1 : 8 * info(t).bytes;
}
constexpr TypeKind kind(Type t) {
  return info(t).kind;
}
namespace detail {
// Types by first character (bit i: kTypes[i]), so that a lookup of a word that is no type (most
// modifiers: "global", "sync") compares no strings.
struct TypeIndex {
  std::array<std::uint64_t, 128> by_first{};
  std::size_t max_size = 0;
};
static_assert(std::size(kTypes) <= 64);
inline constexpr TypeIndex kTypeIndex = [] {
  TypeIndex x;
  for (std::size_t i = 1; i < std::size(kTypes); ++i) {
    x.by_first[static_cast<unsigned char>(kTypes[i].spelling[0]) & 127] |= std::uint64_t{1} << i;
    x.max_size = std::max(x.max_size, kTypes[i].spelling.size());
  }
  return x;
}();
} // namespace detail

// The type spelled `s` (without the dot); kUnknown if none.
constexpr Type type_from_spelling(std::string_view s) {
  const detail::TypeIndex& x = detail::kTypeIndex;
  if (s.empty() || s.size() > x.max_size || static_cast<unsigned char>(s[0]) > 127)
    return Type::kUnknown;
  for (std::uint64_t m = x.by_first[static_cast<unsigned char>(s[0])]; m != 0; m &= m - 1) {
    const TypeInfo& t = detail::kTypes[static_cast<std::size_t>(std::countr_zero(m))];
    if (t.spelling == s) return t.type;
  }
  return Type::kUnknown;
}

// Every type, in table order (kUnknown left out).
constexpr auto all_types() {
  return std::span<const TypeInfo>(detail::kTypes + 1, std::size(detail::kTypes) - 1);
}

// ---------------------------------------------------------------------------------------------
// Modifiers and special registers
// ---------------------------------------------------------------------------------------------

// One enumerator per record of modifiers.def.
enum class Modifier : std::uint8_t {
#define PTXKIT_MODIFIER(e, spelling) e,
#include "ptxkit/isa/modifiers.def"
#undef PTXKIT_MODIFIER
};

constexpr std::string_view spelling(Modifier m) {
  switch (m) {
#define PTXKIT_MODIFIER(e, s)                                                                      \
  case Modifier::e:                                                                                \
    return s;
#include "ptxkit/isa/modifiers.def"
#undef PTXKIT_MODIFIER
  }
  return "?";
}

// One enumerator per record of special_registers.def.
enum class SpecialRegister : std::uint8_t {
#define PTXKIT_SPECIAL_REGISTER(e, spelling, type) e,
#include "ptxkit/isa/special_registers.def"
#undef PTXKIT_SPECIAL_REGISTER
};

constexpr std::string_view spelling(SpecialRegister r) {
  switch (r) {
#define PTXKIT_SPECIAL_REGISTER(e, s, type)                                                        \
  case SpecialRegister::e:                                                                         \
    return s;
#include "ptxkit/isa/special_registers.def"
#undef PTXKIT_SPECIAL_REGISTER
  }
  return "?";
}
constexpr Type type(SpecialRegister r) {
  switch (r) {
#define PTXKIT_SPECIAL_REGISTER(e, s, t)                                                           \
  case SpecialRegister::e:                                                                         \
    return Type::t;
#include "ptxkit/isa/special_registers.def"
#undef PTXKIT_SPECIAL_REGISTER
  }
  return Type::kUnknown;
}

} // namespace ptxkit::isa
