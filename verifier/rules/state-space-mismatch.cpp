// state-space-mismatch.cpp: rule `state-space-mismatch`: an address of one state space used by an
// access (or conversion) of another.
//
// What it proves: for every ld/ldu/st/atom/red/ldmatrix/stmatrix/cp.async address whose
// provenance is known (address_provenance.h: traced through mov, cvt, add/sub, mad/mad.wide,
// masks, phis), that the address is in the form the access needs: an explicit-space access
// (`ld.shared`) gets an address in that space's window (`mov %r, smem`, `cvta.to.shared`), and
// a generic access (`ld`) gets a generic address (`cvta.shared`) or a global one. Reported: a
// shared/local/const/param window address in a generic or `.global` access (the missing `cvta`),
// a window address of another space (`ld.shared` of a `cvta.to.global` pointer), a generic
// address in an explicit-space access (missing `cvta.to.<space>`), and every `cvta`/`cvta.to`
// whose input is known to be in the wrong form or space (the wrong `cvta.to.*` for where a
// generic pointer points, converting an address that is already converted).
//
// Assumptions and limits: the global window and generic global addresses are treated as
// interchangeable (they are on every NVIDIA GPU), so `ld.global` of an unconverted kernel pointer
// is not reported; values read from memory or passed by a caller have unknown provenance and are
// never reported. A 64-bit generic offset added to a 32-bit shared address is reported only when
// the 64-bit value is itself a known address (Addr + Addr is "mixed", never reported). Severity:
// error.
//
// How: every memory operand with a known provenance is compared with the space its instruction
// accesses; the conversions address_provenance found wrong are reported at the cvta.
#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/memory_access.h"
#include "ptxkit/verifier/rule.h"

namespace ptxkit::verifier {

namespace {

using namespace analysis;

std::string describe(const AbsValue& v) {
  std::string s = v.generic ? "a generic address into " + std::string(addr_space_name(v.space))
                            : "a ." + std::string(addr_space_name(v.space)) + " address";
  if (v.var) s += " (" + std::string(v.var->name) + ")";
  return s;
}

// Empty when the address suits the access, else what is wrong.
std::string mismatch(const AbsValue& v, AddrSpace acc) {
  bool global = v.space == AddrSpace::kGlobal;
  if (acc == AddrSpace::kNone) {
    if (v.generic || global) return {};
    return describe(v) + " used by a generic access without cvta." +
           std::string(addr_space_name(v.space));
  }
  std::string where = "." + std::string(addr_space_name(acc)) + " access";
  if (v.generic) {
    if (global && acc == AddrSpace::kGlobal) return {};
    if (v.space == acc)
      return describe(v) + " used by a " + where + " without cvta.to." +
             std::string(addr_space_name(acc));
    return describe(v) + " used by a " + where;
  }
  if (v.space == acc) return {};
  return describe(v) + " used by a " + where;
}

class StateSpaceMismatchRule final : public Rule {
public:
  std::string_view summary() const override {
    return "an address of one state space is used by an access or cvta of another";
  }
  void check(RuleContext& ctx) const override;
};

void StateSpaceMismatchRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const AddressProvenance& prov = a.provenance(ctx.module());
  for (InstId i = 0; i < a.ir.size(); ++i) {
    if (!a.cfg.reachable(a.cfg.block_of(i))) continue;
    const Instruction& inst = a.ir.inst(i);
    if (inst.op == Opcode::kCvta) {
      if (inst.operands.size() == 2 && prov.operand_value(i, 1).kind == AbsValue::Kind::kAddr)
        ctx.add_sites();
      continue;
    }
    for (const MemoryOperand& mo : memory_operands(inst)) {
      AbsValue v = prov.operand_value(i, mo.operand);
      if (v.kind != AbsValue::Kind::kAddr) continue;
      ctx.add_sites();
      std::string what;
      if (mo.shared_object) {
        if (v.space == AddrSpace::kShared) continue;
        what = describe(v) + " used as an mbarrier object, which lives in shared memory";
      } else {
        what = mismatch(v, mo.space);
      }
      if (what.empty()) continue;
      auto f = ctx.report(i, what);
      if (v.origin != kNoId && v.origin != i) f.relate(v.origin, "the address gets its space here");
    }
  }
  for (const BadConversion& bc : prov.bad_conversions()) {
    const Instruction& inst = a.ir.inst(bc.inst);
    std::string conv = inst.has_modifier("to") ? "cvta.to." : "cvta.";
    conv += addr_space_name(explicit_space(inst));
    auto f = ctx.report(bc.inst, conv + " of " + describe(bc.input));
    if (bc.input.origin != kNoId) f.relate(bc.input.origin, "the address gets its space here");
  }
}

} // namespace

std::unique_ptr<Rule> make_state_space_mismatch_rule() {
  return std::make_unique<StateSpaceMismatchRule>();
}

} // namespace ptxkit::verifier
