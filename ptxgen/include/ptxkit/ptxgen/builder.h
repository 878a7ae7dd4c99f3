// builder.h: KernelBuilder, the typed PTX builder: the arch-neutral Emitter plus the instruction
// families of isa/ (arithmetic, logic, conversion, memory, control, matrix, async copies).
//
// Usage:
//   KernelBuilder b("axpy", target);
//   auto x = b.param<Ptr<Global, const F32>>("x");
//   auto y = b.param<Ptr<Global, F32>>("y");
//   Reg<U32> i = b.tid_x();
//   Reg<F32> v = b.add(b.ld(x + i), b.ld(y + i));
//   b.st(y + i, v);
//   b.ret();
//   Expected<Kernel> k = b.finish();
// Every emitting call takes a trailing Loc (defaulted to the caller's line), recorded for `.loc`;
// `p + i` with a register index records the line of that expression (Located, loc.h).
#pragma once

#include "ptxkit/ptxgen/emitter.h"
#include "ptxkit/ptxgen/isa/arith.h"
#include "ptxkit/ptxgen/isa/async_copy.h"
#include "ptxkit/ptxgen/isa/control.h"
#include "ptxkit/ptxgen/isa/convert.h"
#include "ptxkit/ptxgen/isa/logic.h"
#include "ptxkit/ptxgen/isa/matrix.h"
#include "ptxkit/ptxgen/isa/memory.h"
#include "ptxkit/ptxgen/var.h"

#include <string>
#include <string_view>

namespace ptxkit::ptxgen {

class KernelBuilder : public Emitter,
                      public ArithOps<KernelBuilder>,
                      public LogicOps<KernelBuilder>,
                      public ConvertOps<KernelBuilder>,
                      public MemoryOps<KernelBuilder>,
                      public ControlOps<KernelBuilder>,
                      public MatrixOps<KernelBuilder>,
                      public AsyncCopyOps<KernelBuilder> {
public:
  KernelBuilder(std::string kernel_name, Target target) : Emitter(std::move(kernel_name), target) {}

  // A loop-carried variable initialised with `init` (`mov`). The name documents the generator;
  // PTX registers are unnamed. Use as: `Var<F32> m = b.var<F32>(b.imm<F32>(-inf), "max");`
  template <PtxType T, class X>
  Var<T> var(const X& init, std::string_view name = {}, Loc loc = Loc::current()) {
    (void)name;
    detail::check_operand<X>();
    static_assert(std::is_same_v<detail::operand_or_void_t<X>, T>,
                  "ptxgen: a Var's initial value has the Var's type");
    Reg<T> storage = new_reg<T>();
    emit_mov(storage.id(), T::id, Emitter::op(init), loc);
    return Var<T>(this, storage);
  }
  // Same as v.read(): a snapshot of the variable's current value in a fresh register.
  template <PtxType T>
  [[nodiscard]] Reg<T> read(const Var<T>& v, Loc loc = Loc::current()) {
    return v.read(loc);
  }
  // v = max(v, x) in place, through an explicit snapshot.
  template <PtxType T, class X, ModSet M = NoMods>
  void max_inplace(Var<T>& v, const X& x, M m = {}, Loc loc = Loc::current()) {
    v.assign(this->max(v.read(loc), x, m, loc), loc);
  }
  // v = v + x in place, through an explicit snapshot.
  template <PtxType T, class X, ModSet M = NoMods>
  void add_inplace(Var<T>& v, const X& x, M m = {}, Loc loc = Loc::current()) {
    v.assign(this->add(v.read(loc), x, m, loc), loc);
  }

  // Resolve name clashes between the families and std (min/max/abs are members here).
  using ArithOps<KernelBuilder>::min;
  using ArithOps<KernelBuilder>::max;
};

// ---- pointer arithmetic with a register index (declared in spaces.h) ----
namespace detail {
template <class S, class T, class I>
Ptr<S, T> index_ptr(const Ptr<S, T>& p, Reg<I> index, const Loc& loc) {
  auto& b = static_cast<KernelBuilder&>(*p.owner());
  constexpr std::uint32_t size = static_cast<std::uint32_t>(Ptr<S, T>::element_bytes);
  if constexpr (std::is_same_v<typename S::addr_type, U32>) {
    static_assert(!std::is_same_v<I, U64>, "ptxgen: shared pointers index with u32 or s32");
    if constexpr (std::is_same_v<I, U32>) {
      Reg<U32> a = b.mad_lo(index, imm<U32>(size), p.base(), loc);
      return Ptr<S, T>(&b, a, p.offset());
    } else {
      Reg<S32> a = b.mul_lo(index, imm<S32>(static_cast<std::int32_t>(size)), loc);
      Reg<U32> au = b.bitcast<U32>(a, loc);
      return Ptr<S, T>(&b, b.add(au, p.base(), NoMods{}, loc), p.offset());
    }
  } else {
    Reg<U64> bytes = [&] {
      if constexpr (std::is_same_v<I, U64>) {
        return b.mul_lo(index, imm<U64>(size), loc);
      } else if constexpr (std::is_same_v<I, U32>) {
        return b.mul_wide(index, imm<U32>(size), loc);
      } else {
        return b.bitcast<U64>(b.mul_wide(index, imm<S32>(static_cast<std::int32_t>(size)), loc),
                              loc);
      }
    }();
    return Ptr<S, T>(&b, b.add(p.base(), bytes, NoMods{}, loc), p.offset());
  }
}
} // namespace detail

template <StateSpace S, PointeeType T>
Ptr<S, T> Ptr<S, T>::operator+(Located<Reg<U32>> index) const {
  return detail::index_ptr(*this, index.value, index.loc);
}
template <StateSpace S, PointeeType T>
Ptr<S, T> Ptr<S, T>::operator+(Located<Reg<U64>> index) const {
  return detail::index_ptr(*this, index.value, index.loc);
}
template <StateSpace S, PointeeType T>
Ptr<S, T> Ptr<S, T>::operator+(Located<Reg<S32>> index) const {
  return detail::index_ptr(*this, index.value, index.loc);
}

} // namespace ptxkit::ptxgen
