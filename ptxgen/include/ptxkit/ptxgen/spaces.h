// spaces.h: state-space tags (Global, Shared, Local, Const, Param, Generic) and typed pointers.
//
// A Ptr<Space, T> is an address in one state space pointing at elements of PTX type T (`const T`
// for read-only data). ld/st take the space from the pointer's type, so `ld.shared` through a
// global pointer, or a store through a const pointer, does not compile.
//
// Addressing: shared pointers are 32-bit offsets in the CTA's shared window (a u32 register, as
// nvcc emits `mov.u32 %r, smem;` and `ld.shared.f32 [%r+4]`); every other space uses 64-bit
// addresses in u64 registers. A constant byte offset is folded into the address operand.
#pragma once

#include "ptxkit/ptxgen/handles.h"
#include "ptxkit/ptxgen/loc.h"

#include <cstdint>
#include <type_traits>

namespace ptxkit::ptxgen {

struct Global {
  static constexpr bool has_mod = true;
  static constexpr Mod mod = Mod::kGlobal;
  using addr_type = U64;
};
struct Shared {
  static constexpr bool has_mod = true;
  static constexpr Mod mod = Mod::kShared;
  using addr_type = U32;
};
struct Local {
  static constexpr bool has_mod = true;
  static constexpr Mod mod = Mod::kLocal;
  using addr_type = U64;
};
struct Const {
  static constexpr bool has_mod = true;
  static constexpr Mod mod = Mod::kConst;
  using addr_type = U64;
};
struct Param {
  static constexpr bool has_mod = true;
  static constexpr Mod mod = Mod::kParam;
  using addr_type = U64;
};
struct Generic {
  static constexpr bool has_mod = false;
  static constexpr Mod mod = Mod::kGlobal; // unused: generic addressing prints no space
  using addr_type = U64;
};

template <class S>
concept StateSpace =
    std::is_same_v<S, Global> || std::is_same_v<S, Shared> || std::is_same_v<S, Local> ||
    std::is_same_v<S, Const> || std::is_same_v<S, Param> || std::is_same_v<S, Generic>;

template <class T>
concept PointeeType = PtxType<std::remove_const_t<T>> && !PredType<std::remove_const_t<T>>;

// A typed address. Trivially copyable; arithmetic with a constant is free (folded into the
// operand), arithmetic with a register emits instructions through the owning builder.
template <StateSpace S, PointeeType T>
class Ptr {
public:
  using space = S;
  using element = std::remove_const_t<T>;
  using addr_type = typename S::addr_type;
  static constexpr bool is_const = std::is_const_v<T>;
  static constexpr std::int64_t element_bytes = element::bits / 8;

  constexpr Ptr(Emitter* owner, Reg<addr_type> base, std::int64_t offset_bytes)
      : owner_(owner), base_(base), offset_(offset_bytes) {}

  // Read-only view of a writable pointer.
  template <class U = T>
  requires(!std::is_const_v<U>) constexpr
  operator Ptr<S, const U>() const { // NOLINT: implicit on purpose
    return Ptr<S, const U>(owner_, base_, offset_);
  }

  // `p + i`: element i (a constant), folded into the address operand.
  constexpr Ptr operator+(std::int64_t index) const {
    return Ptr(owner_, base_, offset_ + index * element_bytes);
  }
  constexpr Ptr offset_bytes(std::int64_t bytes) const {
    return Ptr(owner_, base_, offset_ + bytes);
  }

  // `p + r`: element r (a register). Defined in builder.h; emits mul.wide/add (or mad for shared),
  // recorded at the line of `p + r` (Located captures it, see loc.h).
  Ptr operator+(Located<Reg<U32>> index) const;
  Ptr operator+(Located<Reg<U64>> index) const;
  Ptr operator+(Located<Reg<S32>> index) const;

  constexpr Emitter* owner() const { return owner_; }
  constexpr Reg<addr_type> base() const { return base_; }
  constexpr std::int64_t offset() const { return offset_; }

private:
  Emitter* owner_;
  Reg<addr_type> base_;
  std::int64_t offset_;
};

static_assert(std::is_trivially_copyable_v<Ptr<Global, const F32>>);
static_assert(sizeof(Ptr<Global, F32>) <= 24);

// The same address seen as elements of U, const as p is: e.g. a bf16 row read four elements at a
// time as .v2.b32 words. The caller answers for the alignment of what it then loads or stores.
template <PointeeType U, StateSpace S, PointeeType T>
constexpr auto reinterpret_ptr(Ptr<S, T> p) {
  using Out = std::conditional_t<std::is_const_v<T>, const std::remove_const_t<U>, U>;
  return Ptr<S, Out>(p.owner(), p.base(), p.offset());
}

template <class X>
struct IsPtr : std::false_type {};
template <class S, class T>
struct IsPtr<Ptr<S, T>> : std::true_type {};
template <class X>
concept PtrType = IsPtr<X>::value;

} // namespace ptxkit::ptxgen
