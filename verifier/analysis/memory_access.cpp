// memory_access.cpp: the address operands of memory instructions and the space each names (see
// memory_access.h).
#include "ptxkit/verifier/analysis/memory_access.h"

namespace ptxkit::verifier::analysis {

std::vector<MemoryOperand> memory_operands(const Instruction& inst) {
  std::vector<MemoryOperand> out;
  std::string_view op = inst.opcode;
  bool single = op == "ld" || op == "ldu" || op == "st" || op == "atom" || op == "red" ||
                op == "ldmatrix" || op == "stmatrix";
  // cp.async.mbarrier.arrive names an mbarrier object, not a copy's source and destination.
  if (op == "cp" && inst.has_modifier("mbarrier")) {
    for (std::uint32_t k = 0; k < inst.operands.size(); ++k)
      if (inst.operands[k].kind == OperandKind::kAddress) {
        AddrSpace s = explicit_space(inst, 0);
        out.push_back({k, s, s == AddrSpace::kNone});
        break;
      }
    return out;
  }
  bool copy = op == "cp" && inst.has_modifier("async") && !inst.has_modifier("bulk");
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

} // namespace ptxkit::verifier::analysis
