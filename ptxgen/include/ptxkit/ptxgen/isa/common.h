// isa/common.h: helpers shared by the instruction families: operand checks and materialisation.
//
// Every family is a CRTP mixin of KernelBuilder (builder.h) that checks types and modifiers with
// static_asserts naming the PTX rule, then emits through the arch-neutral Emitter.
#pragma once

#include "ptxkit/ptxgen/emitter.h"

#include <type_traits>

namespace ptxkit::ptxgen::detail {

template <class X>
struct IsVarLike : std::false_type {};

// Operand X's PTX type, or void for a non-operand (so a static_assert can report it cleanly).
template <class X>
struct OperandTypeOr {
  using type = void;
};
template <SourceOperand X>
struct OperandTypeOr<X> {
  using type = operand_t<X>;
};
template <class X>
using operand_or_void_t = typename OperandTypeOr<X>::type;

template <class X>
constexpr void check_operand() {
  static_assert(SourceOperand<X>,
                "ptxgen: an instruction operand must be a Reg<T> or an Imm<T>; a Var<T> "
                "is read explicitly with var.read() (a snapshot register)");
}

// The PTX type an instruction is spelled with when only the width matters (mov, ld, st of
// halves): f16/bf16 -> b16, f16x2/bf16x2 -> b32, everything else unchanged.
constexpr TypeId storage_type(TypeId t) {
  switch (t) {
  case TypeId::kF16:
  case TypeId::kBF16:
    return TypeId::kB16;
  case TypeId::kF16x2:
  case TypeId::kBF16x2:
    return TypeId::kB32;
  default:
    return t;
  }
}

// PTX has no f16/bf16 immediates in arithmetic: an Imm of a half type goes through a register.
template <SourceOperand X>
Operand source(Emitter& e, const X& x, const Loc& loc) {
  using T = operand_t<X>;
  if constexpr (IsImm<X>::value && HalfType<T>) {
    Reg<T> r = e.new_reg<T>();
    e.emit_mov(r.id(), T::id, Emitter::imm_op(x), loc);
    return Emitter::reg_op(r);
  } else {
    return Emitter::op(x);
  }
}

} // namespace ptxkit::ptxgen::detail
