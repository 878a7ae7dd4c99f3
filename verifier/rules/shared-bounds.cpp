// shared-bounds.cpp: rule `shared-bounds`: a shared-memory access whose byte range, known as a
// constant or a constant range, falls outside the declared `.shared` variable.
//
// What it proves: for every shared access (ld/st/atom/red/ldmatrix/stmatrix .shared, or a
// generic access of a `cvta.shared` address) whose address derives from a `.shared` variable of
// known size with a known offset range [lo, hi] (address_provenance.h: immediates, %laneid,
// %tid bounded by .reqntid/.maxntid, arithmetic on those, hulls at phis), that
// lo >= 0 and hi + width <= size, where width is the access's bytes including the vector
// (`ld.shared.v4.f32` at size-8 reads 8 bytes past the end). Accesses with an unknown offset
// (a %tid without .reqntid/.maxntid, a loop induction variable, a loaded index) are not sites.
// Dynamic `.extern .shared` arrays (size unknown) are not-applicable for their accesses.
//
// Assumptions and limits: offsets are interval hulls without branch refinement: a loop counter
// bounded only by its exit test has no range (widened away), so loop-carried accesses are not
// checked; an access under `if (tid < k)` is checked against tid's full launch bound, which can
// over-approximate (a finding then names the bound it used). Severity: error.
//
// How: each shared access with a known variable and offset range is checked against the variable's
// declared size.
#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/memory_access.h"
#include "ptxkit/verifier/rule.h"

namespace ptxkit::verifier {

namespace {

using namespace analysis;

bool has_unknown_dim(const VarDecl& v) {
  for (std::uint64_t d : v.dims)
    if (d == kUnknownDim) return true;
  return false;
}

class SharedBoundsRule final : public Rule {
public:
  std::string_view summary() const override {
    return "a shared-memory access at a constant offset (range) outside the declared .shared size";
  }
  void check(RuleContext& ctx) const override;
};

void SharedBoundsRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const AddressProvenance& prov = a.provenance(ctx.module());
  for (InstId i = 0; i < a.ir.size(); ++i) {
    if (!a.cfg.reachable(a.cfg.block_of(i))) continue;
    const Instruction& inst = a.ir.inst(i);
    for (const MemoryOperand& mo : memory_operands(inst)) {
      if (inst.op == Opcode::kCp) continue; // the copy size is an operand, not the type
      AbsValue v = prov.operand_value(i, mo.operand);
      if (v.kind != AbsValue::Kind::kAddr || v.space != AddrSpace::kShared || !v.var ||
          !v.has_range || !v.exact)
        continue;
      bool right_form =
          mo.space == AddrSpace::kShared ? !v.generic : (mo.space == AddrSpace::kNone && v.generic);
      if (!right_form || has_unknown_dim(*v.var)) continue;
      std::uint32_t width = access_width(inst);
      if (inst.op == Opcode::kLdmatrix || inst.op == Opcode::kStmatrix)
        width = 16; // a row per lane
      if (width == 0) continue;
      std::uint64_t size = v.var->size_in_bytes();
      if (size == 0) continue;
      ctx.add_sites();
      auto sz = static_cast<std::int64_t>(size);
      if (v.lo >= 0 && v.hi + width <= sz) continue;
      std::string range = v.lo == v.hi
                              ? "offset " + std::to_string(v.lo)
                              : "offsets " + std::to_string(v.lo) + ".." + std::to_string(v.hi);
      std::string msg = std::to_string(width) + "-byte access at " + range + " of " +
                        std::string(v.var->name) + " (" + std::to_string(size) +
                        " bytes declared) ";
      msg += v.lo < 0 ? "starts before it" : "ends at byte " + std::to_string(v.hi + width);
      auto f = ctx.report(i, msg);
      if (v.origin != kNoId && v.origin != i)
        f.relate(v.origin, "the address of " + std::string(v.var->name) + " is taken here");
    }
  }
}

} // namespace

std::unique_ptr<Rule> make_shared_bounds_rule() {
  return std::make_unique<SharedBoundsRule>();
}

} // namespace ptxkit::verifier
