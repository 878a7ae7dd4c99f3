// affine_index.h: integer values and addresses as affine functions of the thread index, loop
// iteration counts and opaque values, for the data-race rule.
//
// Why: deciding whether two threads of a block can touch the same byte needs the address as a
// function of the thread: `smem + 4*tid.x + 128*k` is exact, an interval hull is not. One
// forward evaluation over SSA values (value_numbering.h), memoised per value.
//
// Atoms (the variables of a form):
//   - thread fields: %tid.x is split at the bit positions where the function shifts or masks it
//     (`shr tid.x, k`, `and tid.x, 2^k-1`, `rem.u/div.u tid.x, 2^k`; always at 5, the warp), so
//     tid.x = sum 2^b_i * f_i with f_i in [0, 2^(b_(i+1)-b_i) - 1] (the top field bounded by the
//     launch) and `tid.x >> 5`, `tid.x & 31` are affine (the warp index and the lane). %tid.y and
//     %tid.z are one field each. %laneid is tid.x's fields below bit 5 when the block is
//     one-dimensional in x (no %tid.y/%tid.z read and no launch bound saying otherwise).
//   - loop counters: a header phi `i = phi(init, i + c)` with a constant step c is init + c*k,
//     k the iteration count of that loop (per thread, k >= 0). A block-stride loop's step
//     `c * %ntid.d`, or `c * P` with P a product with the factor %ntid.d (the grid stride
//     `ntid.x * nctaid.x`), computed before the loop (a constant under .reqntid), makes the atom
//     w * %ntid.d, w = k (times P's other factor): `for (i = tid.x; i < n; i += ntid.x)` is
//     tid.x + K, and tid.x + K (with 0 <= tid.x < ntid.x) is different for any two threads or
//     iterations. Any other block-uniform step `c * S` (`i += 256 * nctaid.x`) makes the atom
//     k * S, an integer per thread (step_atom).
//   - symbols: the address of a variable (`mov %r, smem`); different symbols never alias.
//   - opaque values: anything else (a load, a non-constant shift...), with the instruction that
//     made it opaque, so a finding can say why; block-uniform when the uniformity analysis says
//     so. A product of two non-constant forms (mul, or mad's product with its addend kept) is an
//     opaque atom per pair of factor forms (AffineProduct), block-uniform when both factors are:
//     `ctaid.x * ntid.x + tid.x` is U + tid.x, and U cancels between two threads of a block.
// Transfer: mov, cvt (integer), cvta (an address keeps its offset in either window), add, sub,
// neg, mul.lo/mul.wide/mad.lo/mad.wide (one constant factor: exact; else a product atom), shl by
// a constant, and by a constant, or/xor of operands whose bits cannot overlap (possible_bits: a
// multiple of 2^k and a value below 2^k; their sum), xor with a constant m where the operand's
// low bits are thread fields (x + sum over m's bits b of 2^b * (1 - 2 * bit_b(x))), shr,
// div.u/rem.u by 2^k when the low part of the operand is provably below 2^k (field splits), selp of
// two equal forms (different ones: an opaque atom that keeps both, resolved where a dominating
// branch decides the selector). A form whose coefficients would exceed 2^40 is opaque.
//
// -O0 code keeps every variable in the thread's own stack: a `ld.local` (or a load through the
// depot) whose slot has exactly one store in the function, dominating the load, reads the stored
// value's form; a slot written more than once is opaque ("stack slot written at N places").
#pragma once

#include "ptxkit/verifier/analysis/function_analysis.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxkit::verifier::analysis {

struct AffineAtom {
  enum class Kind : std::uint8_t { kTidField, kCounter, kSymbol, kOpaque, kQuotient };
  Kind kind = Kind::kOpaque;
  std::uint8_t dim = 0;        // kTidField: 0 x, 1 y, 2 z
  std::uint8_t shift = 0;      // kTidField: the field's lowest bit in tid.<dim>
  std::int64_t hi = 0;         // kTidField: the field's largest value
  LoopId loop = kNoId;         // kCounter
  std::int8_t stride_dim = -1; // kCounter: the atom is k * %ntid.<dim> (a block-stride loop)
  // kCounter: the atom is k * (atom step_atom), a block-uniform step with no constant value and no
  // factor %ntid (`i += 256 * nctaid.x`): any integer per thread, of either sign.
  std::uint32_t step_atom = 0xffffffffu;
  ValueId value = kNoId;      // kOpaque: the value; kSymbol: none
  InstId inst = kNoId;        // kOpaque: the instruction that made it opaque (kNoId: phi/param)
  std::string_view name;      // kSymbol: the variable; kOpaque: a special register's name
  bool uniform = false;       // kOpaque/kSymbol: the same in every thread of the block
  bool param_root = false;    // kOpaque: a kernel parameter's value (an .entry pointer argument)
  std::string why;            // kOpaque: why it is not affine
  std::int32_t clamp = -1;    // kOpaque: min/max of a thread expression and a constant (clamps)
  std::int32_t select = -1;   // kOpaque: a selp of two affine operands (selects)
  std::int32_t quotient = -1; // kQuotient: its definition (quotients)
  std::int64_t bound = -1;    // kOpaque uniform: the value lies in [0, bound] (a residue)
};

struct AffineTerm {
  std::uint32_t atom = 0;
  std::int64_t coef = 0;
  bool operator==(const AffineTerm&) const = default;
};

struct AffineForm {
  std::int64_t constant = 0;
  std::vector<AffineTerm> terms; // sorted by atom, no zero coefficient
  bool operator==(const AffineForm&) const = default;
  std::int64_t coef(std::uint32_t atom) const;
};

// `mul x, y` (or mad's product) of two non-constant forms: an opaque atom per pair of factor
// forms (value numbering of the product: `ctaid * ntid` is one atom wherever it is computed),
// block-uniform when both factors are. `wide`: mul.wide/mad.wide (the product of the extended
// factors, another value than the low half).
struct AffineProduct {
  AffineForm x, y; // ordered
  bool wide = false;
  std::uint32_t atom = 0;
};

// `min(x, c)` (or max): equal to x for the threads where x <= c (x >= c), which a guard of the
// access may show for every thread that reaches it (`if (tid < 112) ... a[min(tid, 111)]`).
struct AffineClamp {
  AffineForm x; // the clamped expression
  std::int64_t c = 0;
  bool is_min = true;
};

// `selp d, a, b, p`: a where p holds, b elsewhere. Opaque where p varies, but at a use that a
// dominating branch on p (or the use's own guard) decides, only one operand reaches it.
struct AffineSelect {
  ValueId pred = kNoId;         // the selector's SSA value
  bool negated = false;         // `!p` as the selector
  AffineForm if_true, if_false; // operand 1 and operand 2
};

// `div.u x, c` (c > 1 a constant, no power of two: those are bit fields) with x = U + T, U
// block-uniform (its atoms and constant) and T a non-negative sum of thread fields: writing
// U = c*u + s with u = floor(U / c) (a uniform atom, `uniform_part`) and s = U mod c (the
// `residue` atom, a uniform value in [0, c-1], or the constant `residue_constant`), the quotient
// is u + q with q = floor((s + T) / c) a per-thread atom (kQuotient) defined by
// 0 <= s + T - c*q <= c - 1, and `rem.u x, c` is s + T - c*q. A pair search gives q a variable
// per thread and those two conditions on each.
struct AffineQuotient {
  AffineForm thread_part; // T: thread fields only
  std::int64_t c = 0;
  std::uint32_t residue = 0xffffffffu; // the atom of s, or none
  std::int64_t residue_constant = 0;   // s when U is a constant
  AffineForm dividend;                 // x (the memo key)
};

class AffineIndex {
public:
  AffineIndex(const Module& m, const FunctionAnalysis& a);

  // The form of SSA value v.
  const AffineForm& value(ValueId v);
  // The byte address operand `operand` of `inst` reads: its base's form plus its offset.
  AffineForm address(InstId inst, std::uint32_t operand);
  // The form of operand `operand` of `inst` (register, immediate, special register, symbol).
  AffineForm operand(InstId inst, std::uint32_t operand);

  const AffineAtom& atom(std::uint32_t id) const { return atoms_[id]; }
  std::uint32_t atom_count() const { return static_cast<std::uint32_t>(atoms_.size()); }
  // Largest thread index in each dimension the launch allows (a dimension the function never
  // reads, through %tid or %ntid, is taken as extent 1: see shared-race's assumptions).
  std::int64_t max_tid(int dim) const { return max_tid_[dim]; }
  // The dimension's extent comes from .reqntid/.maxntid (not the PTX maximum).
  bool bounded(int dim) const { return bounded_[dim]; }
  // .reqntid fixes the block's shape (.maxntid does not: nvcc writes `N, 1, 1` for any shape).
  bool exact_shape() const { return exact_shape_; }
  // Warps are runs of tid.x alone: y and z have extent 1, or .reqntid makes ntid.x a multiple
  // of 32.
  bool warps_follow_x() const { return warps_follow_x_; }
  // %tid.y and %tid.z are 0 in every thread (the function reads neither, or its launch bound
  // says so).
  bool one_dimensional() const { return max_tid_[1] == 0 && max_tid_[2] == 0; }
  // "%tid.x bits 5.." for a field, "k(loop at line N)", a symbol's name, an opaque's why.
  std::string atom_name(std::uint32_t id) const;
  const AffineClamp* clamp(std::uint32_t id) const {
    return atoms_[id].clamp < 0 ? nullptr : &clamps_[static_cast<std::size_t>(atoms_[id].clamp)];
  }
  const AffineSelect* select(std::uint32_t id) const {
    return atoms_[id].select < 0 ? nullptr : &selects_[static_cast<std::size_t>(atoms_[id].select)];
  }
  const AffineQuotient* quotient(std::uint32_t id) const {
    return atoms_[id].quotient < 0 ? nullptr
                                   : &quotients_[static_cast<std::size_t>(atoms_[id].quotient)];
  }
  // The atom is %ntid.<dim> (an opaque block-uniform value: no .reqntid).
  bool is_ntid(std::uint32_t id, int dim) const;
  // The atom is a product with the factor %ntid.<dim> (times any value): w * %ntid.<dim>.
  bool is_ntid_multiple(std::uint32_t id, int dim) const;
  // c != 0 when the thread-dependent part of f is c * r, r the thread's linear rank in its block
  // (tid.x + ntid.x * (tid.y + ntid.y * tid.z), or tid.x + ntid.x * tid.y, or tid.x, where the
  // dimensions left out have extent 1), its other terms block-uniform: two distinct threads of a
  // block give f values a non-zero multiple of c apart. 0 otherwise (affine_rank.cpp).
  std::int64_t rank_scale(const AffineForm& f) const;

private:
  AffineForm eval(ValueId v, int depth);
  AffineForm eval_inst(InstId d, ValueId v, int depth);
  AffineForm operand_at(InstId inst, std::uint32_t k, int depth);
  AffineForm special(std::string_view name, InstId inst, ValueId v);
  AffineForm opaque(ValueId v, InstId inst, std::string why, std::string_view name = {});
  AffineForm stack_reload(InstId load, ValueId v, int depth);
  std::uint32_t add_atom(AffineAtom atom);
  // The atom of a variable's address (one per name): a block-uniform symbol.
  std::uint32_t symbol_atom(std::string_view name);
  std::uint32_t tid_field(int dim, int field) const;
  AffineForm product(const AffineForm& x, const AffineForm& y, InstId d, ValueId v);
  bool uniform_form(const AffineForm& f) const;
  std::uint64_t possible_bits(const AffineForm& f) const;
  std::optional<AffineForm> disjoint_sum(const AffineForm& x, const AffineForm& y) const;
  bool rank_from(const AffineForm& f, int dim, std::int64_t c) const;

  const Module* module_;
  const FunctionAnalysis* a_;
  std::vector<AffineAtom> atoms_;
  std::vector<std::uint8_t> x_splits_; // bit positions of tid.x's fields, ascending, from 0
  std::uint32_t first_field_[3] = {0, 0, 0};
  std::int64_t max_tid_[3] = {0, 0, 0};
  bool bounded_[3] = {false, false, false};
  bool warps_follow_x_ = true;
  bool exact_shape_ = false;
  std::vector<AffineClamp> clamps_;
  std::vector<AffineSelect> selects_;
  std::vector<AffineQuotient> quotients_;
  std::vector<AffineProduct> products_;
  std::vector<std::uint32_t> quotient_atom_, uniform_part_atom_; // per quotients_ entry
  // div.u/rem.u of x by a constant that is no power of two (AffineQuotient); nullopt when x is
  // not a uniform part plus non-negative thread fields.
  std::optional<AffineForm> divide(const AffineForm& x, std::int64_t c, bool rem, InstId d,
                                   ValueId v);
  std::vector<AffineForm> memo_;
  std::vector<std::uint8_t> state_; // 0 new, 1 in progress, 2 done
  std::vector<std::pair<ValueId, std::uint32_t>> opaque_of_;
  std::vector<std::pair<std::string_view, std::uint32_t>> named_; // symbols, special registers
};

// Adds b*k to a (k may be negative); false when a coefficient leaves +-2^40.
bool affine_add(AffineForm& a, const AffineForm& b, std::int64_t k = 1);

} // namespace ptxkit::verifier::analysis
