// global-bounds.cpp: rule `global-bounds`: an access through a kernel pointer parameter that can
// reach past the logical end of the buffer the launch contract gives that parameter.
//
// What it proves: for a kernel with a launch contract (contract.h: buffer sizes, scalar values,
// grid and block), every ld/ldu/st/atom/red/cp.async through a `.global` address, or a generic
// address derived from a kernel pointer parameter, touches only bytes [0, size) of that
// parameter's buffer: with the byte offsets the access can have (buffer_offsets.h: thread and
// block ids from the launch shape, loop induction variables and their trip counts, the guards
// that dominate the access, strided intervals) lo >= 0 and hi + width <= size, where width is
// the access's bytes including the vector (a `.v4.f32` load at size - 4 reads 12 bytes past the
// end) and cp.async's copy size. Pointers loaded from a pointer-array parameter are checked
// against the slice they can address.
//
// Severity: error when the offending end of the range is reached (exact: built from launch
// extents, guards and monotone arithmetic; a guard's bound is taken as reached); warning when
// only an over-approximation crosses the end, or for a cp.async whose source size or ignore-src
// predicate may drop the read. A site whose offset the analysis cannot bound (a loaded index, a
// scalar parameter without a value in the contract, a loop without a guard it can read), a
// pointer parameter without a size in the contract, or a `.global` access whose address it
// cannot trace to a parameter is a warning that says why: never a silent pass.
//
// Not applicable: a function without a contract (foreign PTX verified without --contract),
// and .func bodies (their pointers are the caller's).
//
// How: per function with a contract, BufferOffsets is built once; each access's address operand
// is evaluated at its use; an error names the offset range, the buffer's size and the parameter,
// and, per %tid/%ctaid the offsets depend on, the smallest value that reaches past the end (a
// search with one id pinned).
#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/buffer_offsets.h"
#include "ptxkit/verifier/analysis/memory_access.h"
#include "ptxkit/verifier/rule.h"

namespace ptxkit::verifier {

namespace {

using namespace analysis;

class GlobalBoundsRule final : public Rule {
public:
  std::string_view summary() const override {
    return "an access through a kernel pointer parameter that can reach past the end of the "
           "buffer its launch contract gives (needs a contract: gen, lint-keys, verify "
           "--contract)";
  }
  void check(RuleContext& ctx) const override;
};

std::string_view access_noun(Opcode op) {
  switch (op) {
  case Opcode::kSt:
    return "store";
  case Opcode::kAtom:
    return "atomic";
  case Opcode::kRed:
    return "reduction";
  case Opcode::kCp:
    return "async copy";
  default:
    return "load";
  }
}

std::string_view launch_id_name(LaunchId id) {
  static constexpr std::string_view kNames[] = {"%tid.x",   "%tid.y",   "%tid.z",
                                                "%ctaid.x", "%ctaid.y", "%ctaid.z"};
  return kNames[static_cast<int>(id)];
}

// Bytes one access touches and whether the hardware may skip the read (cp.async's src-size or
// ignore-src). 0: unknown.
struct Width {
  std::int64_t bytes = 0;
  bool may_skip = false;
};

Width width_of(const BufferOffsets& bo, InstId i, const Instruction& inst) {
  Width w;
  if (inst.op != Opcode::kCp) {
    w.bytes = access_width(inst);
    return w;
  }
  // cp.async.<ca|cg>.shared.global [dst], [src], cp-size{, src-size | , ignore-src}
  if (inst.operands.size() < 3 || inst.operands[2].kind != OperandKind::kImmInt) return w;
  w.bytes = inst.operands[2].int_value();
  if (inst.operands.size() >= 4) {
    const Operand& extra = inst.operands[3];
    if (extra.kind == OperandKind::kImmInt) {
      w.bytes = std::min<std::int64_t>(w.bytes, extra.int_value());
    } else {
      BufferValue s = bo.operand_value(i, 3);
      bool sized = s.kind == BufferValue::Kind::kInt && s.range.bounded() && s.range.lo >= 0;
      // A src-size register that can be 0, or an ignore-src predicate: the read may not happen.
      w.may_skip = !sized || s.range.lo == 0;
      if (sized) w.bytes = std::min<std::int64_t>(w.bytes, s.range.hi);
    }
  }
  return w;
}

bool out_of_bounds(const BufferValue& v, std::int64_t width, std::uint64_t bytes) {
  if (v.kind != BufferValue::Kind::kPtr || !v.range.bounded()) return false;
  return v.range.lo < 0 || v.range.hi + width > static_cast<std::int64_t>(bytes);
}

// "; reached by %ctaid.x >= 3, %tid.x >= 96": per launch id the offsets depend on, the
// smallest value from which accesses (the other ids free) reach past the end.
std::string witness(const BufferOffsets& bo, InstId i, std::uint32_t k, std::int64_t width,
                    std::uint64_t bytes) {
  std::string out;
  for (int id = kLaunchIds - 1; id >= 0; --id) {
    auto lid = static_cast<LaunchId>(id);
    StridedRange r = bo.launch_range(lid);
    if (!bo.reads(lid) || !r.bounded() || r.lo >= r.hi) continue;
    auto oob_upto = [&](std::int64_t v) {
      return out_of_bounds(bo.operand_value_pinned(i, k, lid, r.lo, v), width, bytes);
    };
    if (oob_upto(r.lo) || !oob_upto(r.hi)) continue; // not decided by this id
    std::int64_t lo = r.lo, hi = r.hi;               // oob_upto(lo) false, oob_upto(hi) true
    while (hi - lo > 1) {
      std::int64_t mid = lo + (hi - lo) / 2;
      (oob_upto(mid) ? hi : lo) = mid;
    }
    out += out.empty() ? "; reached by " : ", ";
    out += std::string(launch_id_name(lid)) + " >= " + std::to_string(hi);
  }
  return out;
}

void GlobalBoundsRule::check(RuleContext& ctx) const {
  const KernelContract* contract = ctx.contract();
  if (contract == nullptr || ctx.function().kind != FunctionKind::kEntry) return;
  const FunctionAnalysis& a = ctx.analysis();
  const BufferOffsets bo(a, *contract);
  const AddressProvenance& prov = a.provenance(ctx.module());
  const Function& fn = ctx.function();
  for (InstId i = 0; i < a.ir.size(); ++i) {
    if (!a.cfg.reachable(a.cfg.block_of(i))) continue;
    const Instruction& inst = a.ir.inst(i);
    if (inst.op == Opcode::kLdmatrix || inst.op == Opcode::kStmatrix) continue;
    for (const MemoryOperand& mo : memory_operands(inst)) {
      if (mo.shared_object) continue;
      if (mo.space != AddrSpace::kGlobal && mo.space != AddrSpace::kNone) continue;
      if (mo.space == AddrSpace::kNone && local_stack_address(a, i, mo.operand)) continue;
      BufferValue v = bo.operand_value(i, mo.operand);
      std::string noun(access_noun(inst.op));
      if (v.kind == BufferValue::Kind::kTop) { // its guards admit no value: never executed
        ctx.add_sites();
        continue;
      }
      if (v.kind != BufferValue::Kind::kPtr) {
        if (mo.space == AddrSpace::kNone) continue; // generic, not from a parameter
        AbsValue pv = prov.operand_value(i, mo.operand);
        if (pv.kind == AbsValue::Kind::kAddr && pv.var != nullptr) continue; // a variable
        ctx.add_sites();
        ctx.report(i,
                   "global " + noun +
                       " whose address is not traced to a kernel pointer parameter: its "
                       "bounds are not checked here",
                   Severity::kWarning);
        continue;
      }
      ctx.add_sites();
      std::string param(fn.params[v.param].name);
      std::string what = v.slice_hi >= 0 ? "the buffer of pointer-array parameter '" + param +
                                               "' (slices 0.." + std::to_string(v.slice_hi) + ")"
                                         : "parameter '" + param + "'";
      Width w = width_of(bo, i, inst);
      std::optional<std::uint64_t> bytes = bo.buffer_bytes(v);
      if (!bytes) {
        ctx.report(i,
                   noun + " through " + what +
                       ", which has no buffer size in the launch contract: not checked",
                   Severity::kWarning);
        continue;
      }
      if (w.bytes <= 0) {
        ctx.report(i, noun + " through " + what + " of unknown width: not checked",
                   Severity::kWarning);
        continue;
      }
      if (!v.range.bounded()) {
        std::string end = v.range.hi == StridedRange::kPosInf ? "upper" : "lower";
        auto f = ctx.report(
            i,
            noun + " through " + what + " at byte offsets " + v.range.str() +
                ": the offset has no " + end +
                " bound (it depends on a loaded value, a scalar parameter without a value in "
                "the contract, or a loop bound the analysis cannot read), so it is not "
                "proven within the " +
                std::to_string(*bytes) + " bytes of the buffer",
            Severity::kWarning);
        if (v.origin != kNoId) f.relate(v.origin, "the pointer '" + param + "' is loaded here");
        continue;
      }
      if (!out_of_bounds(v, w.bytes, *bytes)) continue;
      bool sure = v.range.exact && !w.may_skip;
      std::string msg = std::to_string(w.bytes) + "-byte " + noun + " at byte offsets " +
                        v.range.str() + " of " + what + " ";
      if (v.range.lo < 0)
        msg += "starts " + std::to_string(-v.range.lo) + " bytes before its start";
      else
        msg += "reaches byte " + std::to_string(v.range.hi + w.bytes) + ", past its end (" +
               std::to_string(*bytes) + " bytes in the launch contract)";
      if (!sure)
        msg += w.may_skip ? " if the copy reads its source"
                          : " (the offset range is an over-approximation)";
      msg += witness(bo, i, mo.operand, w.bytes, *bytes);
      auto f = ctx.report(i, msg, sure ? Severity::kError : Severity::kWarning);
      if (v.origin != kNoId) f.relate(v.origin, "the pointer '" + param + "' is loaded here");
    }
  }
}

} // namespace

std::unique_ptr<Rule> make_global_bounds_rule() {
  return std::make_unique<GlobalBoundsRule>();
}

} // namespace ptxkit::verifier
