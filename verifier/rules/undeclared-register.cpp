// undeclared-register.cpp: rule `undeclared-register`: an instruction names a register that no
// `.reg` declaration in scope declares.
//
// What it proves: every `%name` register operand (destinations, sources, vector/pair elements,
// address bases, call argument lists) and every guard predicate of a reachable or unreachable
// instruction resolves to a declaration in its scope or an enclosing one — a plain `.reg` name,
// or `%r<N>` with index < N. ptxas rejects the file otherwise ("Unknown symbol"), so a kernel
// that reads %r9 when only %r<6> is declared must not pass verify_for_load(): the parser accepts
// it and the dataflow analyses ignore names they cannot resolve, so without this rule the
// defect would only surface when the driver JIT-compiles the PTX.
//
// Assumptions: `%`-prefixed names that are module or function variables (not registers) are
// not reported; names without `%` are symbols (labels, variables, functions) and are not
// checked. Severity: error.
//
// How: resolves every %-register operand and guard of each instruction in its scope and reports
// the names that resolve to nothing, with the declaration of the same prefix when one exists.
#include "ptxkit/verifier/rule.h"

#include <string>
#include <vector>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

void collect_decls(const Block& b, std::vector<const VarDecl*>& out) {
  for (const Statement& s : b.statements) {
    if (const auto* v = std::get_if<VarDecl>(&s.node))
      out.push_back(v);
    else if (const auto* nb = std::get_if<Block>(&s.node))
      collect_decls(*nb, out);
  }
}

class UndeclaredRegisterRule final : public Rule {
public:
  std::string_view summary() const override {
    return "an instruction names a register that no .reg declaration in scope declares";
  }
  void check(RuleContext& ctx) const override;
};

void UndeclaredRegisterRule::check(RuleContext& ctx) const {
  const FunctionIR& ir = ctx.analysis().ir;
  std::vector<const VarDecl*> decls;
  collect_decls(ir.function().body, decls);
  auto is_variable = [&](std::string_view name) {
    for (const VarDecl* d : decls)
      if (d->space != StateSpace::kReg && d->name == name) return true;
    for (const TopLevel& t : ctx.module().items)
      if (const auto* v = std::get_if<VarDecl>(&t); v && v->name == name) return true;
    for (const VarDecl& p : ir.function().params)
      if (p.name == name) return true;
    return false;
  };
  // A register past the ids the IR keeps for a huge range (FunctionIR::kMaxRangeIds) but inside
  // its declared range is declared: it has no id, so ir.resolve cannot say so.
  auto declared_past_ids = [&](std::string_view name) {
    const auto split = FunctionIR::split_register_name(name);
    if (!split.index || *split.index < FunctionIR::kMaxRangeIds) return false;
    for (const VarDecl* d : decls)
      if (d->space == StateSpace::kReg && d->has_range && d->name == split.prefix &&
          *split.index < d->range)
        return true;
    return false;
  };
  auto hint = [&](std::string_view name) -> std::string {
    const std::string_view prefix = FunctionIR::split_register_name(name).prefix;
    for (const VarDecl* d : decls)
      if (d->space == StateSpace::kReg && d->has_range && d->name == prefix) {
        const std::string range = std::string(d->name) + "<" + std::to_string(d->range) + ">";
        if (d->range == 0) return " (" + range + " declares no registers)";
        return " (" + range + " declares " + std::string(d->name) + "0.." + std::string(d->name) +
               std::to_string(d->range - 1) + ")";
      }
    return "";
  };
  for (InstId i = 0; i < ir.size(); ++i) {
    const Instruction& inst = ir.inst(i);
    const std::uint32_t scope = ir.info(i).scope;
    std::vector<std::string_view> missing;
    auto check_name = [&](std::string_view name) {
      if (!name.starts_with('%')) return;
      ctx.add_sites();
      if (ir.resolve(name, scope) != kNoId || is_variable(name) || declared_past_ids(name)) return;
      for (std::string_view m : missing)
        if (m == name) return;
      missing.push_back(name);
    };
    auto walk = [&](const Operand& o, auto&& self) -> void {
      switch (o.kind) {
      case OperandKind::kRegister:
        check_name(o.text());
        break;
      case OperandKind::kSymbol: // `arr[%r1]`: the index register
        for (const Operand& e : o.elements())
          self(e, self);
        break;
      case OperandKind::kAddress:
        if (!o.address_base_is_immediate()) check_name(o.text());
        for (const Operand& e : o.elements())
          self(e, self);
        break;
      case OperandKind::kVector:
      case OperandKind::kPair:
      case OperandKind::kParenList:
        for (const Operand& e : o.elements())
          self(e, self);
        break;
      default:
        break;
      }
    };
    if (!inst.guard.empty()) check_name(inst.guard);
    for (const Operand& o : inst.operands)
      walk(o, walk);
    for (std::string_view name : missing)
      ctx.report(i,
                 std::string(name) + " is not declared" + hint(name) + ": ptxas rejects the file");
  }
}

} // namespace

std::unique_ptr<Rule> make_undeclared_register_rule() {
  return std::make_unique<UndeclaredRegisterRule>();
}

} // namespace ptxkit::verifier
