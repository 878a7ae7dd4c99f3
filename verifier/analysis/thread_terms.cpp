// thread_terms.cpp: comparisons whose thread-dependent terms cancel (thread_terms.h).
#include "ptxkit/verifier/analysis/thread_terms.h"

#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/uniformity.h"

#include <algorithm>
#include <iterator>

namespace ptxkit::verifier::analysis {

namespace {

constexpr ValueId kUniformTerm = kNoId - 1;

class ThreadTerms {
public:
  ThreadTerms(const FunctionIR& ir, const ValueNumbering& vn, const LoopInfo& loops)
      : ir_(ir), vn_(vn), loops_(loops) {}

  // v is computed only from kernel parameters, immediates, block-uniform special registers and
  // variable addresses, by unguarded integer arithmetic with no memory read but `ld.param` and
  // no phi: the same in every thread of the block whatever any fixpoint decides elsewhere.
  bool structurally_uniform(ValueId v, int depth = 0) const {
    if (v == kNoId || depth > 12) return false;
    const ValueInfo& x = vn_.info(v);
    if (x.kind != ValueKind::kDef || ir_.info(x.inst).guard != kNoId) return false;
    if (x.fresh != kNoId) return structurally_uniform(x.fresh, depth + 1);
    const Instruction& in = ir_.inst(x.inst);
    static constexpr Opcode kPure[] = {Opcode::kAdd, Opcode::kSub,  Opcode::kMul,  Opcode::kMad,
                                       Opcode::kDiv, Opcode::kRem,  Opcode::kShl,  Opcode::kShr,
                                       Opcode::kAnd, Opcode::kOr,   Opcode::kXor,  Opcode::kNot,
                                       Opcode::kNeg, Opcode::kMin,  Opcode::kMax,  Opcode::kCvt,
                                       Opcode::kMov, Opcode::kCvta, Opcode::kSelp, Opcode::kSetp};
    if (in.op == Opcode::kLd) return loads_kernel_parameter(in);
    if (std::find(std::begin(kPure), std::end(kPure), in.op) == std::end(kPure)) return false;
    for (std::uint32_t k = 1; k < in.operands.size(); ++k) {
      const Operand& o = in.operands[k];
      if (o.kind == OperandKind::kImmInt || o.kind == OperandKind::kSymbol) continue;
      if (o.kind == OperandKind::kSpecialReg) {
        if (!Uniformity::special_register_uniform(o.text(), UniformityScope::kBlock)) return false;
        continue;
      }
      if (o.kind != OperandKind::kRegister ||
          !structurally_uniform(vn_.value_of(x.inst, k), depth + 1))
        return false;
    }
    return true;
  }

  // The thread-dependent term of v when v = t + (a structurally uniform value): t's leader, or
  // kUniformTerm when v is structurally uniform itself; kNoId when undecided. `self` is the phi
  // being resolved (its back-edge value's term is the phi itself).
  ValueId term(ValueId v, ValueId self, int depth) const {
    if (v == kNoId || depth > 12) return kNoId;
    if (vn_.leader(v) == self) return self;
    if (structurally_uniform(v)) return kUniformTerm;
    const ValueInfo& x = vn_.info(v);
    if (x.kind == ValueKind::kPhi) return self == kNoId ? induction_term(v, depth) : vn_.leader(v);
    if (x.kind != ValueKind::kDef || ir_.info(x.inst).guard != kNoId) return vn_.leader(v);
    if (x.fresh != kNoId) return term(x.fresh, self, depth + 1);
    const Instruction& in = ir_.inst(x.inst);
    const auto operand_term = [&](std::uint32_t k) {
      const Operand& o = in.operands[k];
      if (o.kind == OperandKind::kImmInt) return kUniformTerm;
      if (o.kind != OperandKind::kRegister) return kNoId;
      return term(vn_.value_of(x.inst, k), self, depth + 1);
    };
    if (in.op == Opcode::kMov && in.operands.size() == 2 &&
        in.operands[1].kind == OperandKind::kRegister)
      return operand_term(1);
    if ((in.op == Opcode::kAdd || in.op == Opcode::kSub) && in.operands.size() == 3 &&
        !in.has_modifier("sat") && !in.has_modifier("cc")) {
      const ValueId a = operand_term(1), b = operand_term(2);
      if (b == kUniformTerm) return a;
      if (a == kUniformTerm && in.op == Opcode::kAdd) return b;
    }
    if (in.op == Opcode::kMad && in.has_modifier("lo") && !in.has_modifier("cc") &&
        in.operands.size() == 4 && operand_term(1) == kUniformTerm &&
        operand_term(2) == kUniformTerm)
      return operand_term(3);
    return vn_.leader(v);
  }

private:
  bool loads_kernel_parameter(const Instruction& in) const {
    const Function& fn = ir_.function();
    if (fn.kind != FunctionKind::kEntry || explicit_space(in) != AddrSpace::kParam ||
        in.operands.size() != 2 || in.operands[1].kind != OperandKind::kAddress)
      return false;
    return std::any_of(fn.params.begin(), fn.params.end(),
                       [&](const VarDecl& p) { return p.name == in.operands[1].text(); });
  }

  // A loop-header phi p = phi(init..., p + U): init's term when every entry value has the same
  // term and every back-edge value is one and the same p + U (one uniform step on every path).
  ValueId induction_term(ValueId p, int depth) const {
    const ValueId self = vn_.leader(p);
    if (loops_.loop_with_header(vn_.info(p).block) == kNoId) return self;
    ValueId back = kNoId, entry = kNoId;
    for (const PhiIncoming& in : vn_.raw_phi_incoming(p)) {
      const ValueId t = term(in.value, self, depth + 1);
      if (t == self) {
        if (back != kNoId && vn_.leader(in.value) != back) return self;
        back = vn_.leader(in.value);
      } else {
        if (t == kNoId || (entry != kNoId && t != entry)) return self;
        entry = t;
      }
    }
    return back != kNoId && entry != kNoId ? entry : self;
  }

  const FunctionIR& ir_;
  const ValueNumbering& vn_;
  const LoopInfo& loops_;
};

} // namespace

bool thread_terms_cancel(const FunctionIR& ir, const ValueNumbering& vn, const LoopInfo& loops,
                         InstId i) {
  const Instruction& in = ir.inst(i);
  if ((in.op != Opcode::kSetp && in.op != Opcode::kSet) || in.operands.size() != 3 ||
      in.operands[1].kind != OperandKind::kRegister ||
      in.operands[2].kind != OperandKind::kRegister)
    return false;
  if (isa::kind(in.last_type()) != isa::TypeKind::kSigned) return false;
  const ThreadTerms terms(ir, vn, loops);
  const ValueId a = terms.term(vn.value_of(i, 1), kNoId, 0);
  const ValueId b = terms.term(vn.value_of(i, 2), kNoId, 0);
  return a != kNoId && a != kUniformTerm && a == b;
}

} // namespace ptxkit::verifier::analysis
