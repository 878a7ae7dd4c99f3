// ir.h: the builder's output: a kernel as a list of typed PTX instructions over virtual registers.
//
// This is the arch-neutral core's data model: registers are (class, number) pairs, instructions
// are an opcode, modifiers, types and operands, all as table enums (isa/table.h), so the printer
// spells every piece from the one table. A Kernel is a plain value: copyable, comparable by print.
#pragma once

#include "ptxkit/ptxgen/isa/table.h"
#include "ptxkit/ptxgen/target.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxkit::ptxgen {

// Where a builder call was made (from std::source_location; file names have static storage).
struct SourceLoc {
  const char* file = "";
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

enum class OperandKind : std::uint8_t {
  kReg,     // %r3
  kImm,     // 0f3F800000, 42
  kAddr,    // [%rd4+8]
  kSymAddr, // [name+8]
  kSymbol,  // name (mov.u32 %r1, smem;)
  kLabel,   // $L_loop_0
  kVec,     // {%f1, %f2}
  kSreg,    // %tid.x
};

struct Operand {
  OperandKind kind = OperandKind::kReg;
  TypeId type = TypeId::kB32;      // kImm: how the bits print
  std::uint32_t reg = 0;           // kReg, kAddr: register id; kLabel: label id
  std::uint64_t bits = 0;          // kImm
  std::int64_t offset = 0;         // kAddr, kSymAddr
  std::int32_t baked = -1;         // kImm: index into Kernel::baked, or -1
  bool negated = false;            // kReg of a predicate: printed `!%p1`
  Sreg sreg = Sreg::kTidX;         // kSreg
  std::vector<std::uint32_t> regs; // kVec
  std::string symbol;              // kSymAddr, kSymbol
};

struct Instr {
  Op op = Op::kMov;
  std::vector<Mod> mods;     // printed after the opcode, in order
  std::vector<TypeId> types; // printed after the modifiers, in order
  std::vector<Operand> operands;
  bool guarded = false;
  bool guard_negated = false;
  std::uint32_t guard_reg = 0;
  bool is_label = false; // a label placement; `label` names it, nothing else is printed
  std::uint32_t label = 0;
  SourceLoc loc;
};

struct RegInfo {
  RegClass cls;
  std::uint32_t number; // within its class, from 1 (nvcc style: %r1 is the first)
};

struct ParamDecl {
  std::string name;
  TypeId type;
};

// A `.shared`/`.local`/`.const` array declared in the kernel body (const and extern shared
// arrays: module scope, named <kernel>_<name>).
struct ArrayDecl {
  Mod space;
  std::string name;
  TypeId element;
  std::uint64_t count;
  std::uint32_t align;
  std::vector<std::uint64_t> init;           // element bits, for `.const` initialisers
  std::vector<std::int32_t> init_baked = {}; // per element: Kernel::baked index, or -1
  bool is_extern = false;                    // `.extern .shared ... name[]` (dynamic, module scope)
};

struct LabelInfo {
  std::string name;     // as given to new_label
  std::string ptx_name; // as printed
  std::uint32_t placed = 0;
  bool used = false;
  SourceLoc first_use;
  SourceLoc first_place;
  SourceLoc second_place;
};

struct BakedInfo {
  std::string field; // config field name
  std::string value; // the value as text (shortest round-trip form)
};

struct Kernel {
  std::string name;
  Target target;
  std::vector<ParamDecl> params;
  std::vector<RegInfo> regs;                 // by register id
  std::array<std::uint32_t, 6> reg_counts{}; // by RegClass
  std::vector<ArrayDecl> arrays;
  std::vector<LabelInfo> labels;
  std::vector<BakedInfo> baked;
  std::vector<Instr> body;
  std::optional<std::array<std::uint32_t, 3>> reqntid;
  std::optional<std::array<std::uint32_t, 3>> maxntid;
  std::optional<std::uint32_t> minnctapersm;
};

} // namespace ptxkit::ptxgen
