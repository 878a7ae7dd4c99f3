// buffer_offsets.h: under a launch contract (contract.h), which kernel parameter's buffer each
// address points into and at which byte offsets, as a strided interval (strided_range.h).
//
// Why: `global-bounds` proves that no access reaches past the logical end of the buffer behind
// a pointer parameter. That needs the range of every index an address is computed from: thread
// and block ids (from the contract's grid and block, or .reqntid/.maxntid), scalar parameters the
// contract gives values for, loop induction variables, and the guards that dominate the access
// (`if (i < n)`), none of which address_provenance.h models for parameters (it never trusts what
// the caller passed).
//
// Lattice per SSA value (value_numbering.h), solved optimistically to a fixpoint:
//   top ⊑ Int{range} | Ptr{param, slice, byte offset range} ⊑ mixed.
//   Int: immediates; %tid/%ntid/%ctaid/%nctaid from the launch shape, %laneid; `ld.param` of a
//        scalar the contract gives; add/sub/mul/mad(.lo/.wide)/shl/shr/and/div/rem/min/max/
//        selp/cvt of those (each read as its instruction's type: a result that does not fit its
//        register wrapped, and is unknown).
//   Ptr: `ld.param` of a pointer parameter (offset 0), moved, converted (cvta), plus or minus an
//        Int, or the base of mad.wide; a 64-bit load from a pointer-array parameter gives a Ptr
//        into slice i of that array's buffer, i the index range of the load.
//        With an AddressProvenance to resolve symbols (shared-bounds), a `.shared` variable's
//        address (`mov %r, smem`, `[smem+8]`, through cvta.shared / cvta.to.shared and a 32-bit
//        cvt) is a Ptr into that variable (var set, param kNoId).
//   mixed: pointers into different parameters merged, a pointer masked or multiplied.
// Phis join their incoming values as they hold on each edge: an incoming value is refined by the
// guards on the way to its predecessor and by the branch condition of the edge itself, so a
// rotated loop `do { ... i += s; } while (i < n)` keeps i below n. A value whose range keeps
// growing is widened (the growing end becomes unbounded).
//
// Refinement at a use: the operand's expression tree (up to 24 deep) is re-evaluated with the
// bounds that dominating branch conditions (`setp.<cmp>.<int> p, x, y` then `@p bra`, through
// not/and/or.pred; `x != c` removes an end of x's range), the guard of the instruction itself,
// and the trip count of the loop put on its leaves; a selp whose setp the operands' ranges there
// decide takes one operand (under a witness search's pins: the thread's own choice).
// Trip counts: at a loop header, a phi h = phi(a, h + c) with a constant step is a basic
// induction variable; if another basic induction variable g = phi(b, g + d) of the same
// loop is bounded at the use (g <= G), the iteration number is at most (G - min b) / d, which
// bounds h to [a, a + c * that]: the counter-and-pointer pairs that compilers make of one loop.
//
// Assumptions: a guard's bound is reached (exactness, strided_range.h); an induction variable
// without an upper bound does not wrap around; parameters not in the contract are unknown.
#pragma once

#include "ptxkit/verifier/analysis/function_analysis.h"
#include "ptxkit/verifier/analysis/strided_range.h"
#include "ptxkit/verifier/contract.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ptxkit::verifier::analysis {

struct BufferValue {
  enum class Kind : std::uint8_t { kTop, kInt, kPtr, kMixed };
  StridedRange range;           // kInt: the value; kPtr: byte offset from the buffer's start
  const VarDecl* var = nullptr; // kPtr into a `.shared` variable (param is then kNoId)
  std::uint32_t param = kNoId;  // kPtr: index into Function::params
  InstId origin = kNoId;        // kPtr: the ld.param (or pointer-array load) it started at
  std::int64_t slice_hi = -1;   // kPtr into a pointer array's slices: the largest slice index
  Kind kind = Kind::kTop;

  bool operator==(const BufferValue&) const = default;
};

// Which launch ids an evaluation may pin to a narrower range (witness search).
enum class LaunchId : std::uint8_t { kTidX, kTidY, kTidZ, kCtaidX, kCtaidY, kCtaidZ };
inline constexpr int kLaunchIds = 6;

class AddressProvenance;

class BufferOffsets {
public:
  // With `variables`, the address of a `.shared` variable it resolves (`mov %r, smem`,
  // `[smem+8]`, through cvta to and from the generic window) is a Ptr into that variable, for
  // shared-bounds; without, a variable's address is mixed (global-bounds checks parameters only).
  BufferOffsets(const FunctionAnalysis& a, const KernelContract& contract,
                const AddressProvenance* variables = nullptr);

  // The value of operand `operand` of `inst` (an address operand: its base plus offset),
  // refined at the use.
  BufferValue operand_value(InstId inst, std::uint32_t operand) const;
  // The same with launch id `id` restricted to [lo, hi].
  BufferValue operand_value_pinned(InstId inst, std::uint32_t operand, LaunchId id, std::int64_t lo,
                                   std::int64_t hi) const;
  // The same with each launch id k that pins[k] gives restricted to that range.
  using LaunchPins = std::array<std::optional<StridedRange>, kLaunchIds>;
  BufferValue operand_value_pinned(InstId inst, std::uint32_t operand,
                                   const LaunchPins& pins) const;
  // The range of launch id `id` under the contract (unbounded when unknown).
  StridedRange launch_range(LaunchId id) const;
  // The values of launch id `id` that every launch the kernel admits has: the whole range when
  // the contract or .reqntid fixes the extent, else only 0 (.maxntid bounds the thread count,
  // not the shape: a block of 1024 x 1 x 1 has no %tid.y = 1).
  StridedRange guaranteed_range(LaunchId id) const;
  // Whether the block shape is fixed (contract or .reqntid).
  bool block_declared() const { return block_declared_; }

  // A concrete witness of `bad` (a predicate on the operand's value): each launch id the
  // function reads, in `order`, pinned to the smallest value of space[id] from which `bad`
  // still holds with the ids after it free, then to that value alone. nullopt when `bad` fails
  // already with every id free in `space`, or stops holding once the ids are pinned. `value` is
  // the operand's value with every id pinned: a constant when the offset depends on nothing
  // else (no loop counter, no loaded value, no hull of a select or phi the pins do not decide).
  struct Witness {
    std::array<std::optional<std::int64_t>, kLaunchIds> ids;
    BufferValue value;
  };
  using LaunchOrder = std::array<LaunchId, kLaunchIds>;
  std::optional<Witness> find_witness(InstId inst, std::uint32_t operand,
                                      const std::array<StridedRange, kLaunchIds>& space,
                                      const LaunchOrder& order,
                                      const std::function<bool(const BufferValue&)>& bad) const;
  // Whether the function reads launch id `id` anywhere.
  bool reads(LaunchId id) const { return reads_[static_cast<int>(id)]; }

  // The byte size the contract gives the buffer a Ptr value points into (slices of a pointer
  // array: the smallest slice it may address), nullopt when the contract has none.
  std::optional<std::uint64_t> buffer_bytes(const BufferValue& v) const;
  const KernelContract& contract() const { return *contract_; }
  const FunctionAnalysis& analysis() const { return *a_; }

private:
  // A comparison known to hold at some point: `x cmp y` (y a value or a constant).
  struct Cond {
    ValueId x = kNoId, y = kNoId; // leaders; y kNoId: the constant c
    std::int64_t c = 0;
    std::uint8_t cmp = 0; // lt, le, gt, ge, eq, ne (after negation and mirroring)
    bool is_unsigned = false;
    unsigned bits = 32;
  };
  struct Placed {
    ValueId leader = kNoId;
    BlockId block = kNoId;
    Cond cond;
  };
  // The values one query has refined at its point (its expression DAG is evaluated once): a
  // stamp per value marks those of the current query, not a hash map, since a phi's incoming
  // values are queried again in every round of the fixpoint. One query at a time.
  class Memo {
  public:
    void start(std::size_t values) {
      if (stamp_.size() < values) stamp_.resize(values, 0), slot_.resize(values, 0);
      refined_.clear();
      if (++epoch_ == 0) std::fill(stamp_.begin(), stamp_.end(), 0), epoch_ = 1;
    }
    const BufferValue* find(ValueId v) const {
      return stamp_[v] == epoch_ ? &refined_[slot_[v]] : nullptr;
    }
    void put(ValueId v, const BufferValue& r) {
      if (stamp_[v] == epoch_) return; // kept: the first refinement stands
      stamp_[v] = epoch_;
      slot_[v] = static_cast<std::uint32_t>(refined_.size());
      refined_.push_back(r);
    }

  private:
    std::vector<std::uint32_t> stamp_, slot_;
    std::vector<BufferValue> refined_;
    std::uint32_t epoch_ = 0;
  };
  // Where an evaluation happens: flow-insensitive (block kNoId) or at a use in `block`, with
  // conditions that hold there beyond the placed ones.
  struct At {
    BlockId block = kNoId;
    const std::vector<Cond>* extra = nullptr;
    int depth = 0;
    // Values already refined at this point (one query's expression DAG is evaluated once).
    Memo* memo = nullptr;
  };

  BufferValue eval(InstId i, const At& at) const;
  BufferValue leaf(InstId i, std::uint32_t operand, const At& at) const;
  BufferValue value_at(ValueId v, const At& at) const;
  BufferValue address(InstId i, std::uint32_t operand, const At& at) const;
  BufferValue special(std::string_view name) const;
  // c when sub instruction i computes x - (x / c) * c (or x - (x >> k) << k): x mod c.
  std::int64_t remainder_idiom(InstId i) const;
  BufferValue load_param(InstId i) const;
  BufferValue load_slice_pointer(InstId i, const At& at) const;
  StridedRange apply_conds(ValueId leader, StridedRange r, const At& at) const;
  StridedRange trip_bound(ValueId phi, StridedRange r, const At& at) const;
  void conds_of(ValueId pred, bool holds, int depth, std::vector<Cond>& out) const;
  void edge_conds(BlockId from, BlockId to, std::vector<Cond>& out) const;
  // Whether predicate `pred` is known true or false in block `at` (an edge into a dominator of
  // `at` decided it).
  std::optional<bool> decided(ValueId pred, BlockId at) const;
  // The outcome of `setp.<cmp>.<int> pred, x, y` where the ranges of x and y at `at` leave one.
  std::optional<bool> comparison_outcome(ValueId pred, const At& at) const;
  void place_conditions();
  void evaluate(ValueId v, const ValueInfo& x, std::vector<Cond>& edge, BufferValue& nv) const;
  // Basic induction variable: phi(init, phi + step) at a loop header.
  struct Induction {
    bool valid = false;
    std::int64_t step = 0;
    std::vector<ValueId> initial;
  };
  const Induction& induction(ValueId phi) const;

  // The fact of value `l` (a leader), noted in read_log_ while the constructor's fixpoint
  // evaluates a value (what its result depends on).
  const BufferValue& read(ValueId l) const {
    if (read_log_) read_log_->push_back(l);
    return val_[l];
  }

  const FunctionAnalysis* a_;
  const KernelContract* contract_;
  std::vector<BufferValue> val_;
  mutable std::vector<ValueId>* read_log_ = nullptr;
  mutable Memo memo_;
  std::vector<Placed> placed_; // sorted by leader
  struct Decided {
    ValueId leader = kNoId; // a predicate's value
    BlockId block = kNoId;  // entered only through an edge on which it is `holds`
    bool holds = false;
  };
  std::vector<Decided> decided_;                  // sorted by leader
  std::vector<std::vector<ValueId>> header_phis_; // per block: its phis (headers only)
  mutable std::vector<std::optional<Induction>> induction_;
  std::array<StridedRange, kLaunchIds> ids_;
  std::array<StridedRange, 3> ntid_, nctaid_;
  std::array<bool, kLaunchIds> reads_{};
  bool block_declared_ = false;
  const AddressProvenance* variables_ = nullptr;
  BufferValue variable_address(const Operand& symbol, InstId at) const;
  // Launch ids restricted to a narrower range during a witness search.
  mutable LaunchPins pins_;
};

} // namespace ptxkit::verifier::analysis
