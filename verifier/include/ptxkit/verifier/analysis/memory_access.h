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
  // An mbarrier object's address without a state space (`cp.async.mbarrier.arrive.b64 [%r]`):
  // the object lives in shared memory, and CCCL's cuda::ptx passes its shared-window address
  // (ptxas accepts both that and a generic address into shared memory).
  bool shared_object = false;
};

std::vector<MemoryOperand> memory_operands(const Instruction& inst);

// The address operand k of instruction i points into the thread's own stack: the access is
// `.local`, or the address is the `__local_depot` symbol or a generic address derived from it or
// from `cvta.local` through add/sub/mov (nvcc's spills and -G builds' variables). Such memory
// no other thread sees: rules treat its stores as private and its reloads as copies.
bool local_stack_address(const FunctionAnalysis& a, InstId i, std::uint32_t k);

} // namespace ptxkit::verifier::analysis
