// isa/table.h: enums generated from isa/table.def and their PTX spellings.
//
// Everything that names a piece of PTX syntax (type, register class, opcode, modifier, special
// register) is an enum here, spelled only through the functions below, which read the same table.
#pragma once

#include <cstdint>
#include <string_view>

namespace ptxkit::ptxgen {

enum class RegClass : std::uint8_t {
#define PTXKIT_REG_CLASS(e, decl, prefix) e,
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_REG_CLASS
};
inline constexpr int kNumRegClasses = 6;

enum class TypeId : std::uint8_t {
#define PTXKIT_TYPE(e, spelling, cls, bits) e,
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_TYPE
};

enum class Op : std::uint8_t {
#define PTXKIT_OP(e, spelling) e,
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_OP
};

enum class Mod : std::uint8_t {
#define PTXKIT_MOD(e, spelling) e,
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_MOD
};

enum class Sreg : std::uint8_t {
#define PTXKIT_SREG(e, spelling, type) e,
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_SREG
};

constexpr std::string_view spelling(TypeId t) {
  switch (t) {
#define PTXKIT_TYPE(e, s, cls, bits)                                                               \
  case TypeId::e:                                                                                  \
    return s;
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_TYPE
  }
  return "?";
}
constexpr RegClass reg_class(TypeId t) {
  switch (t) {
#define PTXKIT_TYPE(e, s, cls, bits)                                                               \
  case TypeId::e:                                                                                  \
    return RegClass::cls;
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_TYPE
  }
  return RegClass::kB32;
}
constexpr unsigned type_bits(TypeId t) {
  switch (t) {
#define PTXKIT_TYPE(e, s, cls, bits)                                                               \
  case TypeId::e:                                                                                  \
    return bits;
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_TYPE
  }
  return 0;
}
constexpr std::string_view decl_spelling(RegClass c) {
  switch (c) {
#define PTXKIT_REG_CLASS(e, decl, prefix)                                                          \
  case RegClass::e:                                                                                \
    return decl;
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_REG_CLASS
  }
  return "?";
}
constexpr std::string_view reg_prefix(RegClass c) {
  switch (c) {
#define PTXKIT_REG_CLASS(e, decl, prefix)                                                          \
  case RegClass::e:                                                                                \
    return prefix;
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_REG_CLASS
  }
  return "?";
}
constexpr std::string_view spelling(Op op) {
  switch (op) {
#define PTXKIT_OP(e, s)                                                                            \
  case Op::e:                                                                                      \
    return s;
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_OP
  }
  return "?";
}
constexpr std::string_view spelling(Mod m) {
  switch (m) {
#define PTXKIT_MOD(e, s)                                                                           \
  case Mod::e:                                                                                     \
    return s;
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_MOD
  }
  return "?";
}
constexpr std::string_view spelling(Sreg r) {
  switch (r) {
#define PTXKIT_SREG(e, s, type)                                                                    \
  case Sreg::e:                                                                                    \
    return s;
#include "ptxkit/ptxgen/isa/table.def"
#undef PTXKIT_SREG
  }
  return "?";
}

} // namespace ptxkit::ptxgen
