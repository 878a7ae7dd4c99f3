// address_provenance.h: which state space (and which variable, at which constant offset range) an
// address value points into, per SSA value, and the integer range of plain values.
//
// Why: `state-space-mismatch` must know that %rd5 holds a shared-window address (from `mov
// %rd5, smem` or `cvta.to.shared`) when it reaches `ld.global`, and `shared-bounds` must know
// that [%r7+8] is `smem` + [0, 1020] when it checks the declared size. Both are one forward
// abstract interpretation over SSA values (value_numbering.h), built on demand by a rule.
//
// Lattice per value (optimistic, solved to a fixpoint over the SSA graph):
//   top (not yet seen) ⊑ Int{range} | Addr{space, generic, variable, offset range} ⊑ mixed.
//   Int: a plain integer; `range` [lo, hi] when known (immediates, %laneid in [0,31], %tid.d in
//        [0, N-1] when .reqntid fixes dimension d (or .maxntid the thread count N), and
//        +,-,*,shl,and-mask,min,max, mad, cvt of known ranges). A phi joins ranges as a hull; a
//        value whose range changes more than a few times (a loop induction variable) loses it
//        (widening to unknown).
//   Addr: an address in `space`: the space's own window (`mov %r, var`, `cvta.to.<space>`), or a
//        generic address known to point into `space` (`cvta.<space>`). `var` is the variable it
//        was derived from with `offset` its byte offset range, when known. Addresses keep their
//        provenance through mov, cvt, add/sub of an Int, mad/mad.wide (Int*Int + Addr), and
//        and/or/xor with an Int (alignment masks, swizzles: the space stays, the offset is lost).
//   mixed: Addr + Addr, phis of different provenance, Int joined with Addr: never reported.
// Everything else (ld results, call results, params, atomics) is Int with unknown range: a
// kernel's pointer parameter is treated as an unknown generic-or-global value, so no finding
// ever rests on what the caller passed.
//
// Conversions are checked as the interpretation runs: `cvta.to.S x` where x is a generic address
// known to point into T != S, or a non-generic address (already in a window); `cvta.S x` where x
// is in the window of T != S, or already generic. The global window and generic global addresses
// are interchangeable here (identical on every NVIDIA GPU), so only shared/local/const/param
// conversions are reported.
#pragma once

#include "ptxkit/verifier/analysis/function_analysis.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptxkit::verifier::analysis {

enum class AddrSpace : std::uint8_t { kNone, kGlobal, kShared, kLocal, kConst, kParam };
std::string_view addr_space_name(AddrSpace s); // "global", "shared", ...
AddrSpace addr_space_of(StateSpace s);

struct AbsValue {
  enum class Kind : std::uint8_t { kTop, kInt, kAddr, kMixed };
  // Wide members first: one AbsValue per SSA value, so padding costs megabytes on large inputs.
  const VarDecl* var = nullptr; // kAddr: the variable it was derived from, if known
  std::int64_t lo = 0, hi = 0;  // see has_range
  InstId origin = kNoId;        // kAddr: the instruction that gave it its space (mov var, cvta)
  Kind kind = Kind::kTop;
  AddrSpace space = AddrSpace::kNone; // kAddr
  bool generic = false;               // kAddr: a generic address (after cvta.<space>)
  bool has_range = false;             // kInt: value range [lo, hi]; kAddr: byte offset from var
  // The range is attained at both ends: built only from operations monotone non-decreasing in
  // every varying operand (add, sub of a constant, multiply/shift by a non-negative constant,
  // min/max, x & (2^k-1) over [0, >= 2^k-1]) and hulls. Correlated expressions such as
  // base + tid*76 - tid*72 have an over-wide hull and are not exact.
  bool exact = true;

  bool operator==(const AbsValue&) const = default;
};

// A conversion found wrong while interpreting (`cvta.to.shared` of a generic global pointer...).
struct BadConversion {
  InstId inst = kNoId;
  AbsValue input; // what the converted operand was
};

class AddressProvenance {
public:
  AddressProvenance(const Module& m, const FunctionAnalysis& a);

  // The abstract value of operand `operand` (element) of `inst`: immediates, symbols, special
  // registers, registers; for an address operand, the base (element 0) plus its offset. Ranges
  // are refined at the use: the operand's expression tree (up to 6 deep) is re-evaluated with
  // the bounds that dominating branch conditions put on its leaves (`if (tid < 64)`).
  AbsValue operand_value(InstId inst, std::uint32_t operand) const;
  // The flow-insensitive abstract value of SSA value v (no branch refinement).
  AbsValue value(ValueId v) const;
  const std::vector<BadConversion>& bad_conversions() const { return bad_; }
  // The variable named `name` visible to this function (module scope or its body), or nullptr.
  const VarDecl* find_variable(std::string_view name) const;

  // A bound on an integer value known on every path to a block: from the dominating branch
  // edges `@p bra` / `@p ret` whose predicate is `setp.<cmp>.<int> p, x, C` (or C, x),
  // also through not.pred, and.pred (true) and or.pred (false).
  struct Bound {
    ValueId value = kNoId;
    bool has_lo = false, has_hi = false;
    std::int64_t lo = 0, hi = 0;
  };

private:
  // A bound that holds in every block `block` dominates (the guarded edge into `block` is its
  // only way in). Indexed by the bounded value's leader, so a query costs the bounds on that
  // value, not a walk up the dominator tree (which is as deep as the function is long for
  // straight-line code).
  struct PlacedBound {
    ValueId leader = kNoId;
    BlockId block = kNoId;
    Bound bound;
  };
  void place_edge_bounds();
  AbsValue eval(InstId i, bool record) const;
  AbsValue leaf(InstId i, std::uint32_t operand) const;
  AbsValue value_at(ValueId v) const;
  void pred_bounds(ValueId g, bool holds, int depth, std::vector<Bound>& out) const;
  AbsValue operand_value_unrefined(InstId i, std::uint32_t operand) const;
  AbsValue special(std::string_view name) const;
  const FunctionAnalysis* a_;
  std::vector<AbsValue> val_;
  std::vector<std::uint8_t> changes_;
  // The variables a symbol operand may name, by name: the first declaration of a name in
  // lookup order (body, parameters, module) wins.
  std::unordered_map<std::string_view, const VarDecl*> vars_;
  mutable std::vector<BadConversion> bad_;
  std::vector<PlacedBound> bounds_; // sorted by leader
  // During operand_value: the use's block (bounds placed on blocks dominating it apply), and
  // the re-evaluation depth. kNoId outside operand_value: no refinement.
  mutable BlockId use_block_ = kNoId;
  mutable int depth_ = 0;
};

// Byte width of one access from its type/vector modifiers (ld.shared.v4.f32: 16), 0 if unknown.
std::uint32_t access_width(const Instruction& inst);
// Explicit state space of a memory instruction (first space modifier), kNone for generic.
AddrSpace explicit_space(const Instruction& inst, std::uint32_t nth = 0);

} // namespace ptxkit::verifier::analysis
