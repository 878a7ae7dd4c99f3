// var.h: Var<T>, the one mutable value of the builder: loop-carried state such as a running max.
//
// The defect it prevents: `let old_max = max_score;` copied a handle to a *mutable* register, so
// after the in-place max both names meant the new value and the online-softmax rescale became
// `sub.f32 %f27, %f8, %f8` (history: docs/design.md).
// Here a Var can be neither copied nor moved (`Var<F32> old = max_score;` does not compile), it is
// not an instruction operand, and the only way to see its value is read(), which emits a `mov`
// into a fresh SSA register: a snapshot that later assignments cannot change.
#pragma once

#include "ptxkit/ptxgen/emitter.h"

#include <cstdint>

namespace ptxkit::ptxgen {

class KernelBuilder;

template <PtxType T>
class Var {
public:
  using type = T;

  Var(const Var&) = delete;            // a copy would alias the mutable register
  Var& operator=(const Var&) = delete; // assign() a value instead
  Var(Var&&) = delete;                 // a moved-from Var would still name the register
  Var& operator=(Var&&) = delete;

  // Snapshot: `mov.<t> %new, %var;` and the fresh register.
  [[nodiscard]] Reg<T> read(Loc loc = Loc::current()) const {
    Reg<T> r = owner_->new_reg<T>();
    owner_->emit_mov(r.id(), T::id, Emitter::reg_op(storage_), loc);
    return r;
  }
  // `mov.<t> %var, value;`
  template <SourceOperand X>
  void assign(const X& value, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<operand_t<X>, T>,
                  "Var::assign: the value's PTX type must equal the variable's type");
    owner_->emit_mov(storage_.id(), T::id, Emitter::op(value), loc);
  }

  // The register behind the variable, for the printer-level tests only: using it as an operand
  // would bypass the snapshot rule, so instructions never accept it implicitly.
  std::uint32_t storage_id() const { return storage_.id(); }

private:
  friend class KernelBuilder; // only KernelBuilder::var creates one
  Var(Emitter* owner, Reg<T> storage) : owner_(owner), storage_(storage) {}

  Emitter* owner_;
  Reg<T> storage_;
};

} // namespace ptxkit::ptxgen
