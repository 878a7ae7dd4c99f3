// thread_index.cpp: %tid.x facts shared by the uniformity analyses (thread_index.h).
#include "ptxkit/verifier/analysis/thread_index.h"

namespace ptxkit::verifier::analysis {

bool is_tid_x(const FunctionIR& ir, const ValueNumbering& vn, ValueId v) {
  for (int depth = 0; depth < 4 && v != kNoId; ++depth) {
    const InstId d = vn.defining_instruction(v);
    if (d == kNoId || vn.info(v).kind != ValueKind::kDef) return false;
    const Instruction& in = ir.inst(d);
    if ((in.op != Opcode::kMov && in.op != Opcode::kCvt) || in.operands.size() != 2) return false;
    const Operand& src = in.operands[1];
    if (src.kind == OperandKind::kSpecialReg) return src.text() == "%tid.x";
    if (in.op != Opcode::kCvt) return false;
    v = vn.value_of(d, 1);
  }
  return false;
}

namespace {

// v through copies and widening conversions: the instruction that computes it, or kNoId.
InstId computing_instruction(const FunctionIR& ir, const ValueNumbering& vn, ValueId& v) {
  for (int depth = 0; depth < 4 && v != kNoId; ++depth) {
    const InstId d = vn.defining_instruction(v);
    if (d == kNoId || vn.info(v).kind != ValueKind::kDef) return kNoId;
    const Instruction& in = ir.inst(d);
    if ((in.op == Opcode::kMov || in.op == Opcode::kCvt) && in.operands.size() == 2 &&
        in.operands[1].kind == OperandKind::kRegister) {
      v = vn.value_of(d, 1);
      continue;
    }
    return d;
  }
  return kNoId;
}

bool is_special(const FunctionIR& ir, const ValueNumbering& vn, InstId i, std::uint32_t k,
                std::string_view name) {
  const Instruction& in = ir.inst(i);
  if (k >= in.operands.size()) return false;
  if (in.operands[k].kind == OperandKind::kSpecialReg) return in.operands[k].text() == name;
  ValueId v = vn.value_of(i, k);
  InstId d = computing_instruction(ir, vn, v);
  if (d == kNoId) return false;
  const Instruction& di = ir.inst(d);
  return (di.op == Opcode::kMov || di.op == Opcode::kCvt) && di.operands.size() == 2 &&
         di.operands[1].kind == OperandKind::kSpecialReg && di.operands[1].text() == name;
}

// a * b + c (mad.lo) or, for `add`, one addend a mul.lo: the three operands as (instruction,
// operand) pairs of the multiplication and the addend. false when v is neither form.
struct MulAdd {
  InstId mul = kNoId;
  std::uint32_t a = 0, b = 0;
  InstId add = kNoId;
  std::uint32_t c = 0;
};

bool as_mul_add(const FunctionIR& ir, const ValueNumbering& vn, ValueId v, MulAdd& out) {
  InstId d = computing_instruction(ir, vn, v);
  if (d == kNoId) return false;
  const Instruction& in = ir.inst(d);
  if (in.op == Opcode::kMad && in.has_modifier("lo") && in.operands.size() == 4) {
    out = {d, 1, 2, d, 3};
    return true;
  }
  if (in.op != Opcode::kAdd || in.operands.size() != 3) return false;
  for (std::uint32_t side = 1; side <= 2; ++side) {
    if (in.operands[side].kind != OperandKind::kRegister) continue;
    ValueId m = vn.value_of(d, side);
    InstId md = computing_instruction(ir, vn, m);
    if (md == kNoId) continue;
    const Instruction& mi = ir.inst(md);
    if (mi.op == Opcode::kMul && mi.has_modifier("lo") && mi.operands.size() == 3) {
      out = {md, 1, 2, d, 3 - side};
      return true;
    }
  }
  return false;
}

// x * ntid.<dim> + <addend> in either operand order, with x satisfying `outer` and the addend
// being %tid.<dim>.
template <typename Outer>
bool is_row_major(const FunctionIR& ir, const ValueNumbering& vn, ValueId v, std::string_view ntid,
                  std::string_view tid, Outer outer) {
  MulAdd f;
  if (!as_mul_add(ir, vn, v, f) || !is_special(ir, vn, f.add, f.c, tid)) return false;
  for (int swap = 0; swap < 2; ++swap) {
    std::uint32_t n = swap ? f.b : f.a, x = swap ? f.a : f.b;
    if (is_special(ir, vn, f.mul, n, ntid) && outer(f.mul, x)) return true;
  }
  return false;
}

} // namespace

bool is_linear_tid(const FunctionIR& ir, const ValueNumbering& vn, ValueId v) {
  auto bound = ir.function().reqntid(); // the shape (.maxntid bounds only the count)
  const bool flat_z = bound && (*bound)[2] == 1;
  // The row: tid.z * ntid.y + tid.y (or tid.y alone when ntid.z is 1).
  auto row = [&](InstId i, std::uint32_t k) {
    if (flat_z && is_special(ir, vn, i, k, "%tid.y")) return true;
    if (ir.inst(i).operands[k].kind != OperandKind::kRegister) return false;
    return is_row_major(
        ir, vn, vn.value_of(i, k), "%ntid.y", "%tid.y",
        [&](InstId j, std::uint32_t m) { return is_special(ir, vn, j, m, "%tid.z"); });
  };
  return is_row_major(ir, vn, v, "%ntid.x", "%tid.x", row);
}

bool reads_tid_yz(const FunctionIR& ir) {
  for (InstId i = 0; i < ir.size(); ++i)
    for (const Operand& o : ir.inst(i).operands)
      if (o.kind == OperandKind::kSpecialReg &&
          (o.text() == "%tid.y" || o.text() == "%tid.z" || o.text() == "%tid"))
        return true;
  return false;
}

bool warps_are_tid_x_runs(const FunctionIR& ir) {
  if (auto dims = ir.function().reqntid())
    return (*dims)[0] % 32 == 0 || ((*dims)[1] == 1 && (*dims)[2] == 1);
  return !reads_tid_yz(ir);
}

std::optional<std::int64_t> max_tid_x(const Function& fn) {
  if (auto req = fn.reqntid()) return std::int64_t{(*req)[0]} - 1;
  if (auto max = fn.maxntid()) return std::int64_t{(*max)[0]} * (*max)[1] * (*max)[2] - 1;
  return std::nullopt;
}

bool tid_x_compare_is_constant(const FunctionIR& ir, const ValueNumbering& vn, InstId i) {
  const Instruction& in = ir.inst(i);
  if ((in.op != Opcode::kSetp && in.op != Opcode::kSet) || in.operands.size() != 3) return false;
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

namespace ptxkit::verifier::analysis {

namespace {

// The outcome of comparison `cmp` (eq, ne, lt, le, gt, ge, lo, ls, hi, hs) of two 32-bit words,
// signed or not; nullopt for a comparison this does not model (floats, the unordered forms).
std::optional<bool> compare_words(std::string_view cmp, bool is_signed, std::uint32_t x,
                                  std::uint32_t y) {
  const auto sx = static_cast<std::int32_t>(x), sy = static_cast<std::int32_t>(y);
  if (cmp == "eq") return x == y;
  if (cmp == "ne") return x != y;
  if (cmp == "lo") return x < y;
  if (cmp == "ls") return x <= y;
  if (cmp == "hi") return x > y;
  if (cmp == "hs") return x >= y;
  if (cmp == "lt") return is_signed ? sx < sy : x < y;
  if (cmp == "le") return is_signed ? sx <= sy : x <= y;
  if (cmp == "gt") return is_signed ? sx > sy : x > y;
  if (cmp == "ge") return is_signed ? sx >= sy : x >= y;
  return std::nullopt;
}

} // namespace

bool tid_x_compare_is_warp_uniform(const FunctionIR& ir, const ValueNumbering& vn, InstId i) {
  const Instruction& in = ir.inst(i);
  if ((in.op != Opcode::kSetp && in.op != Opcode::kSet) || in.operands.size() != 3 ||
      in.modifiers.empty() || in.operands[2].kind != OperandKind::kImmInt ||
      in.operands[1].kind != OperandKind::kRegister)
    return false;
  const isa::Type type = in.last_type();
  const isa::TypeKind kind = isa::kind(type);
  if (isa::size_bits(type) != 32 ||
      (kind != isa::TypeKind::kSigned && kind != isa::TypeKind::kUnsigned &&
       kind != isa::TypeKind::kBits))
    return false;
  // The compared value: tid.x, or tid.x + k (nvcc's range check `(unsigned)(t - lo) < n`).
  ValueId x = vn.value_of(i, 1);
  std::uint32_t offset = 0;
  if (!is_tid_x(ir, vn, x)) {
    const InstId d = x == kNoId ? kNoId : vn.defining_instruction(x);
    if (d == kNoId || vn.info(x).kind != ValueKind::kDef || ir.info(d).guard != kNoId) return false;
    const Instruction& add = ir.inst(d);
    if ((add.op != Opcode::kAdd && add.op != Opcode::kSub) || add.operands.size() != 3 ||
        add.operands[2].kind != OperandKind::kImmInt || add.has_modifier("sat") ||
        add.has_modifier("cc") || !is_tid_x(ir, vn, vn.value_of(d, 1)))
      return false;
    if (isa::size_bits(add.last_type()) != 32) return false;
    const auto k = static_cast<std::uint32_t>(add.operands[2].int_value());
    offset = add.op == Opcode::kAdd ? k : 0u - k;
  }
  const auto c = static_cast<std::uint32_t>(in.operands[2].int_value());
  const bool is_signed = kind == isa::TypeKind::kSigned;
  // %tid.x < 1024 on every GPU: each run of 32 consecutive values must agree.
  for (std::uint32_t warp = 0; warp < 32; ++warp) {
    const std::optional<bool> first =
        compare_words(in.modifiers[0], is_signed, warp * 32 + offset, c);
    if (!first) return false;
    for (std::uint32_t lane = 1; lane < 32; ++lane)
      if (compare_words(in.modifiers[0], is_signed, warp * 32 + lane + offset, c) != first)
        return false;
  }
  return true;
}

} // namespace ptxkit::verifier::analysis
