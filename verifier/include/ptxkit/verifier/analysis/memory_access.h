// memory_access.h: the address operands of a memory instruction and the state space each
// accesses (ld/ldu/st/atom/red/ldmatrix/stmatrix: one; cp.async: destination then source).
//
// Why: state-space-mismatch and shared-bounds both walk every access with its space; the
// operand layout rules (which operand is the address, which modifier names whose space) belong
// in one place.
#pragma once

#include "ptxkit/verifier/analysis/address_provenance.h"

#include <vector>

namespace ptxkit::verifier::analysis {

struct MemoryOperand {
  std::uint32_t operand = 0;          // index of the kAddress operand
  AddrSpace space = AddrSpace::kNone; // kNone: a generic access
};

std::vector<MemoryOperand> memory_operands(const Instruction& inst);

} // namespace ptxkit::verifier::analysis
