// function_ir.h: one PTX function flattened into dense arrays: instructions, registers, register
// mentions (defs and uses) and resolved branch targets.
//
// Why: every analysis (CFG, SSA, uniformity) and every rule asks the same questions of an
// instruction — which registers does it write, which does it read, under which guard, where does
// it jump — and must not re-derive them from names. FunctionIR answers them with integer ids:
//   - InstId: position of an instruction in the function body, nested `{ }` scopes flattened in
//     source order (they are not control flow).
//   - RegId: one per declared register; `.reg .b32 %r<100>` declares 100 ids. Names resolve to the
//     innermost enclosing scope that declares them, so an inline-asm block's `{ .reg .pred p; }`
//     and an outer `p` are distinct registers. Identifiers without '%' that name a declared
//     register (inline asm does this) are registers too.
//   - Mentions: every register an instruction names, with its operand position and whether the
//     instruction writes (def) or reads (use) it. Address bases and coordinates are uses; the
//     destination (operand 0: a register, a `{}` vector or a `p|q` pair) is a def except for the
//     opcodes that write no register (bra, brx, st, red, bar without .red, ...). `call`'s first
//     parenthesized list (the return values) is a def. The accumulator of wgmma.mma_async (`d`)
//     is read and written (a use and a def mention each), unless its scale-d operand is the
//     immediate 0, which ignores the old accumulator.
//   - Labels are scoped like registers; a label written at the very end of a body resolves to
//     InstId == size() (falling off the end: the function returns).
#pragma once

#include "ptxkit/verifier/ast.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptxkit::verifier::analysis {

using InstId = std::uint32_t;
using RegId = std::uint32_t;
using BlockId = std::uint32_t;
inline constexpr std::uint32_t kNoId = ~std::uint32_t{0};

// What an instruction does to control flow.
enum class ControlKind : std::uint8_t {
  kNone,     // falls through (call included)
  kBranch,   // bra
  kIndirect, // brx.idx (targets from its .branchtargets list)
  kReturn,   // ret
  kExit,     // exit
  kTrap,     // trap
};

// A vector register (`.reg .v4 .f32 %acc;`) is one register per element (%acc.x ... %acc.w):
// an instruction naming the whole vector mentions every element, `%acc.y` only its own.
inline constexpr std::uint8_t kNoElement = 0xff;

struct RegInfo {
  const VarDecl* decl = nullptr;     // the declaration (a .reg parameter included)
  std::uint32_t index = kNoId;       // N of `%r<..>` ranges, kNoId for a plain name
  bool is_param = false;             // old-style `.func (.reg ...)` parameter: defined on entry
  std::uint8_t element = kNoElement; // element of a vector register (0 = .x), else kNoElement
};

// One register named by an instruction.
struct Mention {
  RegId reg = kNoId;
  std::uint16_t operand = 0; // operand index in Instruction::operands
  std::uint16_t element = 0; // element inside a vector/pair/paren list/address, else 0
  bool is_def = false;
};

struct InstInfo {
  const Instruction* inst = nullptr;
  const LocDirective* loc = nullptr; // the `.loc` in force at this instruction, if any
  std::uint32_t mention_begin = 0;
  std::uint32_t mention_end = 0;
  std::uint32_t target_begin = 0; // resolved branch targets in FunctionIR::targets_
  std::uint32_t target_end = 0;
  RegId guard = kNoId; // guard predicate register, kNoId when unguarded
  bool guard_negated = false;
  ControlKind control = ControlKind::kNone;
  std::uint32_t scope = 0; // nested block id (0 = function body)
};

class FunctionIR {
public:
  explicit FunctionIR(const Function& fn);

  const Function& function() const { return *fn_; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(insts_.size()); }
  const InstInfo& info(InstId i) const { return insts_[i]; }
  const Instruction& inst(InstId i) const { return *insts_[i].inst; }

  std::uint32_t num_regs() const { return static_cast<std::uint32_t>(regs_.size()); }
  const RegInfo& reg(RegId r) const { return regs_[r]; }
  // "%r15", "p" (as a PTX programmer would write it).
  std::string reg_name(RegId r) const;

  // Register mentions of an instruction, defs and uses.
  const Mention* mentions_begin(InstId i) const {
    return mentions_.data() + insts_[i].mention_begin;
  }
  const Mention* mentions_end(InstId i) const { return mentions_.data() + insts_[i].mention_end; }
  // Mentions by global index (info(i).mention_begin <= m < info(i).mention_end).
  std::uint32_t num_mentions() const { return static_cast<std::uint32_t>(mentions_.size()); }
  const Mention& mention(std::uint32_t m) const { return mentions_[m]; }
  // Resolved branch targets (InstId of the instruction after the label; size() = end of body).
  const InstId* targets_begin(InstId i) const { return targets_.data() + insts_[i].target_begin; }
  const InstId* targets_end(InstId i) const { return targets_.data() + insts_[i].target_end; }
  // Branch targets that name no label in scope (malformed input; the CFG ignores them).
  std::uint32_t unresolved_targets() const { return unresolved_targets_; }
  // Register names used but never declared (ptxas rejects these; analyses ignore them).
  const std::vector<std::string_view>& undeclared_names() const { return undeclared_; }

  // Register named `name` as seen from scope `scope`, or kNoId. A vector register's whole name
  // gives its first element (vector_elements() says how many follow); `%acc.y` its element.
  RegId resolve(std::string_view name, std::uint32_t scope) const;
  // 2 or 4 when `name` names a whole vector register, else 1.
  std::uint32_t vector_elements(RegId r, std::string_view name) const;

  // One `{ }` scope's declarations (0 = the function body, including its parameters).
  // "%r17" -> prefix "%r" and index 17 (the name of register 17 of a `%r<N>` range); no index
  // when the name does not end in digits or the digits overflow 64 bits.
  struct SplitName {
    std::string_view prefix;
    std::optional<std::uint64_t> index;
  };
  static SplitName split_register_name(std::string_view name);

  // At most this many ids per ranged declaration: a register named past it (%r2000000 of
  // %r<4000000>) is declared but not analysed (no id; undeclared-register knows it is declared).
  static constexpr std::uint64_t kMaxRangeIds = std::uint64_t{1} << 20;

  struct ScopeTable {
    std::uint32_t parent = kNoId;
    std::unordered_map<std::string_view, RegId> plain; // "%r", "p"
    // "%r" of %r<N> -> first id and how many ids exist: min(N, one past the largest index any
    // instruction of the function names, kMaxRangeIds), so that a valid but huge declaration
    // (`.reg .b32 %r<4000000000>;` is legal PTX) costs nothing it does not use.
    struct Range {
      RegId base = kNoId;
      std::uint32_t count = 0;
    };
    std::unordered_map<std::string_view, Range> ranged;
    std::unordered_map<std::string_view, InstId> labels;
    std::unordered_map<std::string_view, const Directive*> tables; // .branchtargets by label
  };

private:
  const Function* fn_;
  std::vector<InstInfo> insts_;
  std::vector<RegInfo> regs_;
  std::vector<Mention> mentions_;
  std::vector<InstId> targets_;
  std::vector<std::string_view> undeclared_;
  std::uint32_t unresolved_targets_ = 0;
  std::vector<ScopeTable> scopes_;
  friend struct FunctionIRBuilder;
};

// Whether `inst` writes operand 0 (see the file comment for the exceptions).
bool writes_first_operand(const Instruction& inst);

// "path:line" helpers for diagnostics: the whole instruction in canonical spelling.
std::string instruction_text(const Instruction& inst);

} // namespace ptxkit::verifier::analysis
