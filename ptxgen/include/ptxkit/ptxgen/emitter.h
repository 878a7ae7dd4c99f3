// emitter.h: the arch-neutral core of the builder: register allocation, instruction emission,
// labels, parameters, arrays, baked immediates, guards and the build-time error list.
//
// The typed instruction families (isa/*.h) are thin layers over this class: they check operand
// types and modifiers at compile time, then append an Instr. Errors that only show at run time
// (a label never placed, a feature the target lacks, a bad name) are recorded with the C++ line
// that caused them and returned by finish(), never thrown.
#pragma once

#include "ptxkit/ptxgen/expected.h"
#include "ptxkit/ptxgen/handles.h"
#include "ptxkit/ptxgen/ir.h"
#include "ptxkit/ptxgen/loc.h"
#include "ptxkit/ptxgen/spaces.h"
#include "ptxkit/ptxgen/target.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::ptxgen {

inline SourceLoc to_loc(const Loc& l) {
  return SourceLoc{l.file_name(), l.line(), l.column()};
}

class Emitter {
public:
  Emitter(std::string kernel_name, Target target);
  Emitter(const Emitter&) = delete;
  Emitter& operator=(const Emitter&) = delete;

  const Target& target() const { return kernel_.target; }
  const std::string& name() const { return kernel_.name; }

  // ---- kernel-level declarations ----
  // `.reqntid x, y, z` / `.maxntid x, y, z` / `.minnctapersm n` on the entry.
  void reqntid(std::uint32_t x, std::uint32_t y = 1, std::uint32_t z = 1);
  void maxntid(std::uint32_t x, std::uint32_t y = 1, std::uint32_t z = 1);
  void minnctapersm(std::uint32_t n);

  // ---- labels ----
  Label new_label(std::string_view name);
  // Places the label here. Placing a label twice is an error reported by finish().
  void place(Label label, Loc loc = Loc::current());

  // ---- the result ----
  // The kernel, or the first recorded error (label used but never placed, placed twice, target
  // lacks a feature, bad or duplicate name), naming the label and the C++ line.
  Expected<Kernel> finish();
  // Every error recorded so far (finish() reports the first).
  const std::vector<Error>& errors() const { return errors_; }

  // ---- guards ----
  // While a GuardScope lives, every emitted instruction is predicated (`@p` / `@!p`).
  class GuardScope {
  public:
    GuardScope(const GuardScope&) = delete;
    GuardScope& operator=(const GuardScope&) = delete;
    ~GuardScope();

  private:
    friend class Emitter;
    explicit GuardScope(Emitter* e) : e_(e) {}
    Emitter* e_;
  };
  [[nodiscard]] GuardScope guard(Guard g);

  // ---- low level: used by the instruction families (isa/*.h) ----
  template <PtxType T>
  Reg<T> new_reg() {
    return Reg<T>(detail::RegKey{alloc_reg(T::id)});
  }
  std::uint32_t alloc_reg(TypeId type);
  void emit(Instr instr, const Loc& loc);
  void error(std::string message, const Loc& loc);
  // Records an error unless the target has `form` (its ISA table record's minimum target and
  // PTX ISA version); returns whether it has. Every emitted instruction is checked the same way
  // against its own record, in emit().
  bool require(isa::Form form, const Loc& loc);
  void note_label_use(Label label, const Loc& loc);
  std::int32_t add_baked(std::string field, std::string value);
  // Declares a `.param` and returns its name (validated, unique).
  std::string declare_param(std::string_view name, TypeId type, const Loc& loc);
  // Declares an array in `space` and returns its name (validated, unique).
  std::string declare_array(Mod space, std::string_view name, TypeId element, std::uint64_t count,
                            std::uint32_t align, std::vector<std::uint64_t> init, const Loc& loc,
                            std::vector<std::int32_t> init_baked = {});
  // Declares the kernel's dynamic shared memory (`.extern .shared`, sized at launch).
  std::string declare_dynamic_shared(std::string_view name, TypeId element, std::uint32_t align,
                                     const Loc& loc);

  template <PtxType T>
  static Operand reg_op(Reg<T> r) {
    Operand o;
    o.kind = OperandKind::kReg;
    o.reg = r.id();
    return o;
  }
  template <PtxType T>
  static Operand imm_op(Imm<T> i) {
    Operand o;
    o.kind = OperandKind::kImm;
    o.type = T::id;
    o.bits = i.bits();
    o.baked = i.baked_index();
    return o;
  }
  template <SourceOperand X>
  static Operand op(const X& x) {
    if constexpr (IsReg<X>::value) {
      return reg_op(x);
    } else {
      return imm_op(x);
    }
  }
  static Operand addr_op(std::uint32_t reg, std::int64_t offset) {
    Operand o;
    o.kind = OperandKind::kAddr;
    o.reg = reg;
    o.offset = offset;
    return o;
  }
  static Operand sym_addr_op(std::string symbol, std::int64_t offset) {
    Operand o;
    o.kind = OperandKind::kSymAddr;
    o.symbol = std::move(symbol);
    o.offset = offset;
    return o;
  }
  static Operand symbol_op(std::string symbol) {
    Operand o;
    o.kind = OperandKind::kSymbol;
    o.symbol = std::move(symbol);
    return o;
  }
  static Operand vec_op(std::vector<std::uint32_t> regs) {
    Operand o;
    o.kind = OperandKind::kVec;
    o.regs = std::move(regs);
    return o;
  }
  static Operand sreg_op(Sreg r) {
    Operand o;
    o.kind = OperandKind::kSreg;
    o.sreg = r;
    return o;
  }
  static Operand label_op(Label l) {
    Operand o;
    o.kind = OperandKind::kLabel;
    o.reg = l.id();
    return o;
  }
  // Convenience: one instruction `op.mods.types operands`.
  void emit_op(Op op, std::vector<Mod> mods, std::vector<TypeId> types,
               std::vector<Operand> operands, const Loc& loc);
  // `mov.<type> dst, src` into an existing register (Var assignment, predicated loads).
  void emit_mov(std::uint32_t dst, TypeId type, Operand src, const Loc& loc);

private:
  std::string unique_name(std::string_view name, const Loc& loc, std::string_view what);
  // The instruction's own requirements (its ISA table record), checked for each one emitted.
  bool require_instruction(Op op, const Loc& loc);
  bool require_target(std::string_view what, unsigned min_sm, unsigned min_ptx, bool arch_specific,
                      const Loc& loc);

  Kernel kernel_;
  std::vector<Error> errors_;
  std::vector<std::string> names_; // every module-visible name of this kernel
  bool guarded_ = false;
  Guard guard_{Reg<Pred>(detail::RegKey{0})};
  bool finished_ = false;
};

} // namespace ptxkit::ptxgen
