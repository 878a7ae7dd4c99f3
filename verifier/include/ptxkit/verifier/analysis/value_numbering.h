// value_numbering.h: SSA values of one function, value numbering with copy propagation, def-use
// chains and reaching definitions (all derived from one SSA construction).
//
// Why: the rules ask "is this the same value as that?" (softmax-rescale-saved-max: is the
// subtrahend the new maximum, is the minuend the maximum from before this iteration's update?),
// "where can this read's value come from?" (undefined-register) and "does anything read this
// result?" (dead-value). Register names cannot answer these — a register is rewritten, moved,
// carried around a loop — values can.
//
// Construction (Cytron et al.): pruned SSA over the CFG, phis on the iterated dominance frontier
// of each register's definition blocks where the register is live-in, then renaming along the
// dominator tree. Value kinds:
//   kUndef    a register's content on entry when nothing defined it (one per register, lazily).
//   kParam    an old-style `.func (.reg ...)` parameter on entry.
//   kDef      the result written by an instruction into one destination register.
//   kGuarded  the register after a guarded write `@p op %r, ...`: fresh() if p held, prior() if
//             not. A guarded write is a may-def: it never hides the prior value. Two rules keep
//             common compiler shapes exact: (1) `@p x = a; @!p x = b;` with the same predicate
//             value makes the second kGuarded's prior() the first's fresh() (x is defined on both
//             paths); (2) an instruction guarded by the same predicate value and polarity reads
//             fresh() directly (and with the opposite polarity, prior()).
//   kPhi      a merge at a block with several predecessors; one incoming value per predecessor.
//
// Value numbering: every SSA value has a leader (value_of() and the other public accessors
// return leaders). `mov d, s` between registers (unguarded) makes d's value s's leader: a value
// moved through `mov` keeps its identity. A phi whose incoming leaders are all the same value (or
// itself) is that value: a register a loop does not change keeps its identity around the loop.
// Congruent computations (two `add`s of the same values) are NOT merged: only copies are.
//
// Loops: at a loop header, the phi of a loop-carried register IS "the value before this
// iteration's update"; the value flowing in over the back edge (phi_incoming from a latch) is
// "the value after". For the in-place update `max.f32 %f8, %f8, %f23`, value_of(max, 1) is the
// header phi (old max) and defined_value(max, 0) the new max; for Triton's shape (new max in a
// fresh register, `mov` back at the loop end) the phi's back-edge incoming is the max's result,
// because the mov is a copy.
//
// Reaching definitions (register level, before copy propagation): reaching_defs() walks a use's
// SSA value back through phis and guarded writes to the instructions that wrote the register
// (a `mov` is then a definition site like any other), reporting whether "undefined on entry"
// or "parameter on entry" also reaches.
#pragma once

#include "ptxkit/verifier/analysis/cfg.h"
#include "ptxkit/verifier/analysis/dominators.h"
#include "ptxkit/verifier/analysis/flat_lists.h"
#include "ptxkit/verifier/analysis/function_ir.h"
#include "ptxkit/verifier/analysis/liveness.h"
#include "ptxkit/verifier/analysis/loops.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ostream>
#include <span>
#include <string_view>
#include <vector>

namespace ptxkit::verifier::analysis {

using ValueId = std::uint32_t;

enum class ValueKind : std::uint8_t { kUndef, kParam, kDef, kGuarded, kPhi };

struct PhiIncoming {
  BlockId pred;
  ValueId value;
};

// The incoming (predecessor, value) pairs of a phi, unreachable predecessors left out, as a
// view over the phi's slice of the incoming array: phis are read in the inner loop of every
// fixpoint, so a query allocates nothing. With `leaders`, values are mapped to their leaders.
class PhiIncomingRange {
public:
  class iterator {
  public:
    using value_type = PhiIncoming;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    iterator(const PhiIncoming* p, const PhiIncoming* end, const ValueId* leaders)
        : p_(p), end_(end), leaders_(leaders) {
      skip();
    }
    PhiIncoming operator*() const { return {p_->pred, leaders_ ? leaders_[p_->value] : p_->value}; }
    iterator& operator++() {
      ++p_;
      skip();
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const iterator& o) const { return p_ == o.p_; }

  private:
    void skip() {
      while (p_ != end_ && p_->value == kNoId)
        ++p_;
    }
    const PhiIncoming* p_ = nullptr;
    const PhiIncoming* end_ = nullptr;
    const ValueId* leaders_ = nullptr;
  };
  PhiIncomingRange() = default;
  PhiIncomingRange(const PhiIncoming* begin, const PhiIncoming* end, const ValueId* leaders)
      : begin_(begin), end_(end), leaders_(leaders) {}
  iterator begin() const { return {begin_, end_, leaders_}; }
  iterator end() const { return {end_, end_, leaders_}; }
  std::size_t size() const { return static_cast<std::size_t>(std::distance(begin(), end())); }
  bool empty() const { return begin() == end(); }

private:
  const PhiIncoming* begin_ = nullptr;
  const PhiIncoming* end_ = nullptr;
  const ValueId* leaders_ = nullptr;
};

struct ValueInfo {
  ValueKind kind = ValueKind::kUndef;
  RegId reg = kNoId;
  InstId inst = kNoId;           // kDef, kGuarded: the writing instruction
  std::uint32_t mention = kNoId; // kDef, kGuarded: index of the def mention (FunctionIR order)
  BlockId block = kNoId;         // kPhi: its block; others: the defining block (entry for kUndef)
  ValueId fresh = kNoId;         // kGuarded: value if the guard held; kDef of a mov: the source
  ValueId prior = kNoId;         // kGuarded: value if the guard did not hold
  ValueId pred = kNoId;          // kGuarded: SSA value of the guard predicate
  bool negated = false;          // kGuarded: guard was `@!p`
  std::uint32_t phi_begin = 0, phi_end = 0; // kPhi: range in the incoming array
};

// A use of an SSA value by an instruction (mention index into FunctionIR's mention order of
// that instruction: mentions_begin(inst) + k), or by a phi.
struct ValueUse {
  InstId inst = kNoId;       // kNoId: the user is a phi
  std::uint32_t mention = 0; // instruction user: global mention index
  ValueId phi = kNoId;       // phi user
  bool via_guard = false;    // the use is the instruction's guard predicate
};

struct ReachingDefs {
  std::vector<InstId> sites; // writing instructions, sorted, unique
  bool undefined = false;    // "nothing wrote it" reaches (entry, no definition)
  bool parameter = false;    // the .reg parameter's entry value reaches
};

class ValueNumbering {
public:
  ValueNumbering(const Cfg& cfg, const DominatorTree& dom, const Liveness& live);

  std::uint32_t size() const { return static_cast<std::uint32_t>(values_.size()); }
  const ValueInfo& info(ValueId v) const { return values_[v]; }

  // ---- Value numbering (leaders) ----
  ValueId leader(ValueId v) const { return leader_[v]; }
  // Value read by operand `operand` (element `element` of a vector/pair/address) of `inst`;
  // kNoId when that operand is no register (an immediate, a symbol, a special register).
  ValueId value_of(InstId inst, std::uint32_t operand, std::uint32_t element = 0) const;
  // Value written by `inst` into operand `operand` (element `element`), kNoId if none.
  ValueId defined_value(InstId inst, std::uint32_t operand = 0, std::uint32_t element = 0) const;
  // Value of the guard predicate of `inst`, kNoId when unguarded.
  ValueId guard_value(InstId inst) const {
    return guard_[inst] == kNoId ? kNoId : leader_[guard_[inst]];
  }
  // The instruction that computes v (kDef, kGuarded), kNoId for phis, undef and parameters.
  InstId defining_instruction(ValueId v) const;
  bool is_phi(ValueId v) const { return values_[v].kind == ValueKind::kPhi; }
  // Incoming (predecessor, leader) pairs of a phi, unreachable predecessors left out.
  PhiIncomingRange phi_incoming(ValueId phi) const;
  // For a phi at a loop header: the incoming values over back edges ("after the update") and
  // from outside the loop ("initial"). Empty vectors when `phi` is not at a header of `loops`.
  struct LoopCarried {
    std::vector<ValueId> initial;
    std::vector<ValueId> updated;
  };
  LoopCarried loop_carried(ValueId phi, const LoopInfo& loops) const;

  // a and b hold the same number in every thread at any point where both are available (see
  // value_numbering.cpp): congruence beyond copies, for merges of rematerialized values.
  bool same_number(ValueId a, ValueId b) const { return same_number(a, b, 0); }

  // ---- SSA level (before copy propagation) ----
  // Raw SSA value read by global mention index m (FunctionIR order), kNoId for defs.
  ValueId ssa_use(std::uint32_t m) const { return mention_value_[m]; }
  // Raw SSA value written by global def mention index m.
  ValueId ssa_def(std::uint32_t m) const { return mention_value_[m]; }
  ValueId ssa_guard(InstId inst) const { return guard_[inst]; }
  // Incoming (predecessor, raw SSA value) pairs of a phi, unreachable predecessors left out.
  PhiIncomingRange raw_phi_incoming(ValueId phi) const;
  // Calls f(v) for the raw SSA value each register operand of `inst` reads (its guard not
  // included), in mention order.
  template <class F>
  void for_each_operand_value(InstId inst, F&& f) const {
    const InstInfo& info = ir().info(inst);
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m)
      if (!ir().mention(m).is_def) f(mention_value_[m]);
  }
  // Every reader of raw SSA value v (instructions and phis).
  std::span<const ValueUse> uses(ValueId v) const { return uses_[v]; }
  // Instructions whose writes may reach global use mention m.
  ReachingDefs reaching_defs(std::uint32_t m) const;
  // Global index of the use/def mention of (inst, operand, element), kNoId if none.
  std::uint32_t mention_index(InstId inst, std::uint32_t operand, std::uint32_t element,
                              bool def) const;

  const FunctionIR& ir() const { return cfg_->ir(); }
  const Cfg& cfg() const { return *cfg_; }
  // "%f8@12" (register @ defining instruction), "phi(%f8)@B3", "undef(%r1)": for messages/tests.
  void print_value(std::ostream& os, ValueId v) const;

private:
  friend struct SsaBuilder;
  bool same_number(ValueId a, ValueId b, int depth) const;
  bool reads_kernel_parameter(InstId load) const;
  mutable std::vector<ValueId> phis_assumed_; // same_number's phis being compared
  const Cfg* cfg_;
  std::vector<ValueInfo> values_;
  std::vector<PhiIncoming> incoming_;
  std::vector<ValueId> mention_value_; // per global mention: value read (use) or written (def)
  std::vector<ValueId> guard_;         // per instruction
  std::vector<ValueId> leader_;
  FlatLists<ValueUse> uses_; // per raw SSA value
};

} // namespace ptxkit::verifier::analysis
