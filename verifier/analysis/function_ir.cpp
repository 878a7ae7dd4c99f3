// function_ir.cpp: flattens a Function's body into FunctionIR (see function_ir.h).
//
// Two passes: the first walks the nested blocks in source order, numbering instructions and
// collecting each scope's registers, labels and .branchtargets tables; the second resolves every
// register mention, guard and branch target against the scope it appears in.
#include "ptxkit/verifier/analysis/function_ir.h"

#include "ptxkit/verifier/printer.h"

#include <algorithm>
#include <cassert>
#include <charconv>

namespace ptxkit::verifier::analysis {

namespace {
constexpr std::uint64_t kMaxRangeIds = FunctionIR::kMaxRangeIds;

// Registers a `.reg` declaration makes per name: its vector width (.v2/.v4), else 1.
std::uint32_t register_elements(const VarDecl& d) {
  return d.vector_width == 2 || d.vector_width == 4 ? d.vector_width : 1;
}

} // namespace

bool writes_first_operand(const Instruction& inst) {
  const Opcode op = inst.op;
  if (op == Opcode::kBar || op == Opcode::kBarrier) return inst.has_modifier("red");
  if (op == Opcode::kTcgen05) return inst.has_modifier("ld");
  if (!isa::has(op, isa::kNoResult)) return true;
  // These write a register when their first operand is one (wmma.load/mma, multimem.ld_reduce,
  // mbarrier.arrive's state, try_wait's predicate); an address first operand is never a def.
  if (op == Opcode::kWmma || op == Opcode::kMultimem || op == Opcode::kMbarrier)
    return !inst.operands.empty() && inst.operands[0].kind != OperandKind::kAddress;
  return false;
}

std::string instruction_text(const Instruction& inst) {
  return print_instruction(inst);
}

struct FunctionIRBuilder {
  FunctionIR& ir;
  const LocDirective* current_loc = nullptr;
  explicit FunctionIRBuilder(FunctionIR& ir_) : ir(ir_) {}

  // One past the largest register index the function's instructions name (`%r17` -> 18): a
  // ranged declaration gets ids only for the indices that can be mentioned.
  std::uint64_t index_bound = 0;

  void note_index(std::string_view name) {
    if (vector_element_index(name) >= 0) name.remove_suffix(2); // `%acc3.y` is index 3 of %acc
    auto split = FunctionIR::split_register_name(name);
    if (split.prefix.size() == name.size()) return; // no digits
    index_bound = std::max(index_bound,
                           split.index ? std::min(*split.index + 1, kMaxRangeIds) : kMaxRangeIds);
  }
  void note_operand(const Operand& op) {
    if (op.kind == OperandKind::kRegister || op.kind == OperandKind::kSymbol ||
        op.kind == OperandKind::kAddress)
      note_index(op.text());
    for (const Operand& e : op.elements())
      note_operand(e);
  }
  std::uint32_t instructions = 0; // counted by note_indices, so insts_ is allocated once
  void note_indices(const Block& block) {
    for (const Statement& st : block.statements) {
      if (const auto* inst = std::get_if<Instruction>(&st.node)) {
        ++instructions;
        note_index(inst->guard);
        for (const Operand& o : inst->operands)
          note_operand(o);
      } else if (const auto* inner = std::get_if<Block>(&st.node)) {
        note_indices(*inner);
      }
    }
  }

  void add_decl(const VarDecl& d, std::uint32_t scope, bool is_param) {
    auto& table = ir.scopes_[scope];
    RegId base = static_cast<RegId>(ir.regs_.size());
    // A vector register is one id per element, consecutive.
    const std::uint32_t width = register_elements(d);
    auto push = [&](std::uint32_t index) {
      for (std::uint32_t e = 0; e < width; ++e)
        ir.regs_.push_back(
            {&d, index, is_param, width > 1 ? static_cast<std::uint8_t>(e) : kNoElement});
    };
    if (d.has_range) {
      const auto count = static_cast<std::uint32_t>(std::min<std::uint64_t>(d.range, index_bound));
      for (std::uint32_t k = 0; k < count; ++k)
        push(k);
      table.ranged[d.name] = {base, count};
    } else {
      push(kNoId);
      table.plain[d.name] = base;
    }
  }

  void collect(const Block& block, std::uint32_t scope) {
    for (const Statement& st : block.statements) {
      if (const auto* inst = std::get_if<Instruction>(&st.node)) {
        InstInfo info;
        info.inst = inst;
        info.loc = current_loc;
        info.scope = scope;
        ir.insts_.push_back(info);
      } else if (const auto* label = std::get_if<Label>(&st.node)) {
        ir.scopes_[scope].labels.emplace(label->name, static_cast<InstId>(ir.insts_.size()));
      } else if (const auto* decl = std::get_if<VarDecl>(&st.node)) {
        if (decl->space == StateSpace::kReg) add_decl(*decl, scope, false);
      } else if (const auto* loc = std::get_if<LocDirective>(&st.node)) {
        current_loc = loc;
      } else if (const auto* dir = std::get_if<Directive>(&st.node)) {
        if (dir->name == "branchtargets" && !dir->label.empty())
          ir.scopes_[scope].tables.emplace(dir->label, dir);
      } else if (const auto* inner = std::get_if<Block>(&st.node)) {
        ir.scopes_.push_back({});
        ir.scopes_.back().parent = scope;
        collect(*inner, static_cast<std::uint32_t>(ir.scopes_.size() - 1));
      }
    }
  }

  template <class Map>
  const typename Map::mapped_type* lookup(Map FunctionIR::ScopeTable::*member,
                                          std::string_view name, std::uint32_t scope) const {
    for (std::uint32_t s = scope; s != kNoId; s = ir.scopes_[s].parent) {
      const auto& m = ir.scopes_[s].*member;
      auto it = m.find(name);
      if (it != m.end()) return &it->second;
    }
    return nullptr;
  }

  void add_mention(InstId i, const Operand& op, std::uint16_t index, std::uint16_t element,
                   bool def) {
    if (op.kind != OperandKind::kRegister && op.kind != OperandKind::kSymbol) return;
    RegId r = ir.resolve(op.text(), ir.insts_[i].scope);
    if (r == kNoId) {
      if (op.kind == OperandKind::kRegister) ir.undeclared_.push_back(op.text());
      return;
    }
    // The whole of a vector register: every element, as a `{%a.x, %a.y, ...}` operand would.
    const std::uint32_t n = ir.vector_elements(r, op.text());
    for (std::uint32_t e = 0; e < n; ++e)
      ir.mentions_.push_back({r + e, index, static_cast<std::uint16_t>(n > 1 ? e : element), def});
  }

  void add_operand(InstId i, const Operand& op, std::uint16_t index, bool def) {
    switch (op.kind) {
    case OperandKind::kRegister:
    case OperandKind::kSymbol:
      add_mention(i, op, index, 0, def);
      if (op.has_register_index()) add_mention(i, *op.index_register(), index, 1, false);
      break;
    case OperandKind::kVector:
    case OperandKind::kPair:
    case OperandKind::kParenList: {
      std::uint16_t j = 0;
      for (const Operand& e : op.elements()) {
        if (e.kind == OperandKind::kAddress || e.kind == OperandKind::kVector) {
          add_operand(i, e, index, false);
        } else {
          add_mention(i, e, index, j, def);
        }
        ++j;
      }
      break;
    }
    case OperandKind::kAddress: {
      if (!op.address_base_is_immediate() && !op.text().empty()) {
        Operand base = op;
        base.kind = op.text().starts_with('%') ? OperandKind::kRegister : OperandKind::kSymbol;
        add_mention(i, base, index, 0, false);
      }
      std::uint16_t j = 1;
      for (const Operand& e : op.elements()) {
        if (e.kind == OperandKind::kVector || e.kind == OperandKind::kAddress) {
          for (const Operand& c : e.elements())
            add_mention(i, c, index, j, false);
        } else {
          add_mention(i, e, index, j, false);
        }
        ++j;
      }
      break;
    }
    default:
      break;
    }
  }

  void resolve_targets(InstId i) {
    InstInfo& info = ir.insts_[i];
    const Instruction& inst = *info.inst;
    info.target_begin = static_cast<std::uint32_t>(ir.targets_.size());
    auto add_label = [&](std::string_view name) {
      if (const InstId* t = lookup(&FunctionIR::ScopeTable::labels, name, info.scope)) {
        ir.targets_.push_back(*t);
      } else {
        ++ir.unresolved_targets_;
      }
    };
    if (info.control == ControlKind::kBranch && !inst.operands.empty()) {
      add_label(inst.operands[0].text());
    } else if (info.control == ControlKind::kIndirect && inst.operands.size() >= 2) {
      if (const Directive* const* table =
              lookup(&FunctionIR::ScopeTable::tables, inst.operands[1].text(), info.scope)) {
        for (std::string_view l : (*table)->args)
          add_label(l);
      } else {
        ++ir.unresolved_targets_;
      }
    }
    info.target_end = static_cast<std::uint32_t>(ir.targets_.size());
  }

  void resolve(InstId i) {
    InstInfo& info = ir.insts_[i];
    const Instruction& inst = *info.inst;
    const Opcode op = inst.op;
    if (op == Opcode::kBra)
      info.control = ControlKind::kBranch;
    else if (op == Opcode::kBrx)
      info.control = ControlKind::kIndirect;
    else if (op == Opcode::kRet)
      info.control = ControlKind::kReturn;
    else if (op == Opcode::kExit)
      info.control = ControlKind::kExit;
    else if (op == Opcode::kTrap)
      info.control = ControlKind::kTrap;
    if (!inst.guard.empty()) {
      info.guard = ir.resolve(inst.guard, info.scope);
      info.guard_negated = inst.guard_negated;
      if (info.guard == kNoId) ir.undeclared_.push_back(inst.guard);
    }
    info.mention_begin = static_cast<std::uint32_t>(ir.mentions_.size());
    bool first_is_def = writes_first_operand(inst);
    // wgmma.mma_async accumulates into d unless scale-d is the immediate 0: d is read too.
    if (op == Opcode::kWgmma && inst.has_modifier("mma_async") && inst.operands.size() > 3 &&
        !(inst.operands[3].kind == OperandKind::kImmInt && inst.operands[3].bits == 0))
      add_operand(i, inst.operands[0], 0, false);
    for (std::uint16_t k = 0; k < inst.operands.size(); ++k) {
      const Operand& o = inst.operands[k];
      bool def = k == 0 && first_is_def;
      if (op == Opcode::kCall) def = k == 0 && o.kind == OperandKind::kParenList;
      add_operand(i, o, k, def);
    }
    info.mention_end = static_cast<std::uint32_t>(ir.mentions_.size());
    resolve_targets(i);
  }
};

FunctionIR::FunctionIR(const Function& fn) : fn_(&fn) {
  FunctionIRBuilder b(*this);
  scopes_.push_back({});
  b.note_indices(fn.body);
  for (const VarDecl& p : fn.params)
    if (p.space == StateSpace::kReg) b.add_decl(p, 0, true);
  for (const VarDecl& r : fn.returns)
    if (r.space == StateSpace::kReg) b.add_decl(r, 0, false);
  insts_.reserve(b.instructions);
  b.collect(fn.body, 0);
  mentions_.reserve(insts_.size() * 3);
  for (InstId i = 0; i < size(); ++i)
    b.resolve(i);
  mentions_.shrink_to_fit(); // the reservation is a guess; this array lives as long as the IR
}

FunctionIR::SplitName FunctionIR::split_register_name(std::string_view name) {
  std::size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9')
    --digits;
  SplitName out{name.substr(0, digits), std::nullopt};
  std::uint64_t n = 0;
  if (digits < name.size()) {
    auto [p, ec] = std::from_chars(name.data() + digits, name.data() + name.size(), n);
    if (ec == std::errc{} && p == name.data() + name.size()) out.index = n;
  }
  return out;
}

RegId FunctionIR::resolve(std::string_view name, std::uint32_t scope) const {
  const SplitName split = split_register_name(name);
  for (std::uint32_t s = scope; s != kNoId; s = scopes_[s].parent) {
    const ScopeTable& t = scopes_[s];
    if (auto it = t.plain.find(name); it != t.plain.end()) return it->second;
    if (split.index && !t.ranged.empty()) {
      auto it = t.ranged.find(split.prefix);
      if (it != t.ranged.end() && *split.index < it->second.count) {
        const RegId base = it->second.base;
        return base + static_cast<RegId>(*split.index) * register_elements(*regs_[base].decl);
      }
    }
  }
  // `%acc.y`: an element of a vector register.
  const int element = vector_element_index(name);
  if (element < 0) return kNoId;
  const RegId whole = resolve(name.substr(0, name.size() - 2), scope);
  if (whole == kNoId ||
      static_cast<std::uint32_t>(element) >= register_elements(*regs_[whole].decl))
    return kNoId;
  return whole + static_cast<RegId>(element);
}

std::uint32_t FunctionIR::vector_elements(RegId r, std::string_view name) const {
  const std::uint32_t n = register_elements(*regs_[r].decl);
  return n > 1 && vector_element_index(name) < 0 ? n : 1;
}

std::string FunctionIR::reg_name(RegId r) const {
  const RegInfo& info = regs_[r];
  std::string s(info.decl->name);
  if (info.index != kNoId) s += std::to_string(info.index);
  if (info.element != kNoElement) {
    s += '.';
    s += "xyzw"[info.element];
  }
  return s;
}

} // namespace ptxkit::verifier::analysis
