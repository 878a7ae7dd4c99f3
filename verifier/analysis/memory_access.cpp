// memory_access.cpp: the address operands of memory instructions, the space each names, and
// whether one points into the thread's stack (see memory_access.h).
#include "ptxkit/verifier/analysis/memory_access.h"

namespace ptxkit::verifier::analysis {

std::vector<MemoryOperand> memory_operands(const Instruction& inst) {
  std::vector<MemoryOperand> out;
  const Opcode op = inst.op;
  const bool single = isa::has(op, isa::kAddressedAccess);
  // cp.async.mbarrier.arrive names an mbarrier object, not a copy's source and destination.
  if (op == Opcode::kCp && inst.has_modifier("mbarrier")) {
    for (std::uint32_t k = 0; k < inst.operands.size(); ++k)
      if (inst.operands[k].kind == OperandKind::kAddress) {
        AddrSpace s = explicit_space(inst, 0);
        out.push_back({k, s, s == AddrSpace::kNone});
        break;
      }
    return out;
  }
  bool copy = op == Opcode::kCp && inst.has_modifier("async") && !inst.has_modifier("bulk");
  if (!single && !copy) return out;
  std::uint32_t nth = 0;
  for (std::uint32_t k = 0; k < inst.operands.size(); ++k) {
    if (inst.operands[k].kind != OperandKind::kAddress) continue;
    out.push_back({k, explicit_space(inst, copy ? nth : 0)});
    ++nth;
    if (single) break;
  }
  return out;
}

bool local_stack_address(const FunctionAnalysis& a, InstId i, std::uint32_t k) {
  const Instruction& inst = a.ir.inst(i);
  if (inst.has_modifier("local")) return true;
  if (k >= inst.operands.size() || inst.operands[k].kind != OperandKind::kAddress) return false;
  if (inst.operands[k].text().starts_with("__local_depot")) return true;
  ValueId v = a.values.value_of(i, k);
  for (int depth = 0; depth < 8 && v != kNoId; ++depth) {
    InstId d = a.values.defining_instruction(v);
    if (d == kNoId) return false;
    const Instruction& di = a.ir.inst(d);
    if (di.op == Opcode::kCvta && di.has_modifier("local")) return true;
    if (di.op == Opcode::kMov && di.operands.size() == 2 &&
        di.operands[1].text().starts_with("__local_depot"))
      return true;
    if (di.op != Opcode::kAdd && di.op != Opcode::kSub && di.op != Opcode::kMov) return false;
    v = a.values.value_of(d, 1);
  }
  return false;
}

} // namespace ptxkit::verifier::analysis
