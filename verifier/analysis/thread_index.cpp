// thread_index.cpp: %tid.x facts shared by the uniformity analyses (thread_index.h).
#include "ptxkit/verifier/analysis/thread_index.h"

namespace ptxkit::verifier::analysis {

bool is_tid_x(const FunctionIR& ir, const ValueNumbering& vn, ValueId v) {
  for (int depth = 0; depth < 4 && v != kNoId; ++depth) {
    const InstId d = vn.defining_instruction(v);
    if (d == kNoId || vn.info(v).kind != ValueKind::kDef) return false;
    const Instruction& in = ir.inst(d);
    if ((in.opcode != "mov" && in.opcode != "cvt") || in.operands.size() != 2) return false;
    const Operand& src = in.operands[1];
    if (src.kind == OperandKind::kSpecialReg) return src.text() == "%tid.x";
    if (in.opcode != "cvt") return false;
    v = vn.value_of(d, 1);
  }
  return false;
}

std::optional<std::int64_t> max_tid_x(const Function& fn) {
  if (auto req = fn.reqntid()) return std::int64_t{(*req)[0]} - 1;
  if (auto max = fn.maxntid()) return std::int64_t{(*max)[0]} * (*max)[1] * (*max)[2] - 1;
  return std::nullopt;
}

bool tid_x_compare_is_constant(const FunctionIR& ir, const ValueNumbering& vn, InstId i) {
  const Instruction& in = ir.inst(i);
  if ((in.opcode != "setp" && in.opcode != "set") || in.operands.size() != 3) return false;
  const Operand& c = in.operands[2];
  if (c.kind != OperandKind::kImmInt || !is_tid_x(ir, vn, vn.value_of(i, 1))) return false;
  const auto max = max_tid_x(ir.function());
  if (!max || *max < 0) return false;
  // tid.x lies in [0, max]: each comparison is decided when k is outside that range (or at an
  // end where the comparison includes or excludes the whole range).
  const std::int64_t k = c.int_value();
  if (in.has_modifier("lt") || in.has_modifier("ge")) return k > *max || k <= 0;
  if (in.has_modifier("le") || in.has_modifier("gt")) return k >= *max || k < 0;
  if (in.has_modifier("eq") || in.has_modifier("ne")) return k > *max || k < 0;
  return false;
}

} // namespace ptxkit::verifier::analysis
