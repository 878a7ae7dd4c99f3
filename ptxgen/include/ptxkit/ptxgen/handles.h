// handles.h: the small value handles a kernel is written with: Reg<T>, Imm<T>, Label, Guard.
//
// Values are SSA: a Reg<T> names a register that is written by exactly one builder call, so a
// copied handle names the same immutable value and copying is harmless (the stale-maximum defect
// needs a *mutable* register behind a copied handle; mutable state is Var<T>, see var.h). Handles
// are trivially copyable and small (asserted), like asmjit's operands.
#pragma once

#include "ptxkit/ptxgen/types.h"

#include <cstdint>
#include <type_traits>

namespace ptxkit::ptxgen {

class Emitter;

namespace detail {
// Only the builder mints register ids; this key keeps user code from fabricating handles.
struct RegKey {
  std::uint32_t id;
};
} // namespace detail

// An immutable value of PTX type T held in a virtual register.
template <PtxType T>
class Reg {
public:
  using type = T;
  explicit constexpr Reg(detail::RegKey key) : id_(key.id) {}
  constexpr std::uint32_t id() const { return id_; }
  friend constexpr bool operator==(Reg a, Reg b) { return a.id_ == b.id_; }

private:
  std::uint32_t id_;
};

// An immediate operand of type T: exact bits, plus (for baked immediates) the index of the
// config field it came from in its kernel's baked table (-1: a structural constant).
template <PtxType T>
class Imm {
public:
  using type = T;
  constexpr Imm(std::uint64_t bits, std::int32_t baked) : bits_(bits), baked_(baked) {}
  constexpr std::uint64_t bits() const { return bits_; }
  constexpr std::int32_t baked_index() const { return baked_; }

private:
  std::uint64_t bits_;
  std::int32_t baked_;
};

// A branch target. Create with KernelBuilder::new_label, place exactly once with place().
class Label {
public:
  explicit constexpr Label(detail::RegKey key) : id_(key.id) {}
  constexpr std::uint32_t id() const { return id_; }

private:
  std::uint32_t id_;
};

// A guard predicate: `@p` or, from `!p`, `@!p`.
struct Guard {
  constexpr Guard(Reg<Pred> p) : reg(p), negated(false) {} // NOLINT: implicit on purpose
  constexpr Guard(Reg<Pred> p, bool neg) : reg(p), negated(neg) {}
  Reg<Pred> reg;
  bool negated;
};
constexpr Guard operator!(Reg<Pred> p) {
  return Guard(p, true);
}
constexpr Guard operator!(Guard g) {
  return Guard(g.reg, !g.negated);
}

static_assert(std::is_trivially_copyable_v<Reg<F32>> && sizeof(Reg<F32>) == 4);
static_assert(std::is_trivially_copyable_v<Imm<F32>> && sizeof(Imm<F32>) == 16);
static_assert(std::is_trivially_copyable_v<Label> && sizeof(Label) == 4);
static_assert(std::is_trivially_copyable_v<Guard> && sizeof(Guard) <= 8);

template <class X>
struct IsReg : std::false_type {};
template <class T>
struct IsReg<Reg<T>> : std::true_type {};
template <class X>
struct IsImm : std::false_type {};
template <class T>
struct IsImm<Imm<T>> : std::true_type {};

// An instruction source operand: a Reg<T> or an Imm<T>. (A Var<T> is not: read it explicitly.)
template <class X>
concept SourceOperand = IsReg<X>::value || IsImm<X>::value;
template <SourceOperand X>
using operand_t = typename X::type;

} // namespace ptxkit::ptxgen
