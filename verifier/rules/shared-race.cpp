// shared-race.cpp: rule `shared-race`: two threads of one block access the same shared (or
// global) byte in one barrier interval, at least one writing, not both atomic or strong.
//
// What it proves: for every pair of memory accesses (ld/st/atom/red on .shared or .global, or a
// generic access whose address_provenance is shared or global) that can run in the same barrier
// interval (no CTA barrier `bar.sync`/`barrier.sync`/`bar.red`/`barrier.cluster.wait` on some
// path between a common earlier barrier, or the entry, and each of them), at least one a write
// and not both morally strong (atomics, `.volatile`/`.relaxed`/`.acquire`/`.release`: the PTX
// memory model's data race needs a weak access), that no two distinct threads of the block
// reach them at overlapping bytes. Addresses are affine forms (affine_index.h) of the thread's
// index fields, loop counts and uniform values; the question "are there thread ids t1 != t2
// within the launch shape, each satisfying the branch conditions that guard its access, with
// overlapping byte ranges?" is decided by an exact bounded integer search (thread_collision.h).
// Lanes of one warp are ordered by a full-mask `bar.warp.sync`, `shfl.sync`, `vote.sync`,
// `match.sync` or `redux.sync` between the accesses (the pair then needs different warps).
// Two `.volatile` accesses of lanes of one warp that nothing orders are warp-synchronous code
// (no data race in the memory model, but since sm_70 the read may see the write or not): reported
// as well, the pair then needing one warp.
//
// Severity: error when the collision is certain: both threads provably reach their accesses
// (every thread-varying branch condition on the way is a comparison of an affine thread
// expression), in their first loop iteration, with no fence, acquire/release or mbarrier
// operation in the interval (which may order them: PTX's release/acquire patterns are not
// modelled). Warning, saying why, when a collision depends on a missing fact: an address that
// is not affine (a loaded index, a product of values), a uniform value the two addresses use
// differently, a loop count (the loop must run that often), an unmodelled branch condition, an
// ordering operation in the interval, or a search that ran out of budget.
//
// Assumptions: the block shape is .reqntid, else .maxntid read per dimension, else the PTX
// maximum (1024, 1024, 64) for each dimension the function reads through %tid or %ntid; a
// dimension it never reads has extent 1 (a kernel written for a 1-D block and launched 2-D
// duplicates all its work). Barriers with a thread count are treated as reaching every thread
// (a missed race, never a false one). Two different kernel pointer parameters do not alias (as
// __restrict__); different variables never overlap (shared-bounds checks the ranges).
// cp.async/TMA and ldmatrix/stmatrix are not pairs (the async proxy is async-copy-protocol's).
//
// How: the barrier phases (which barriers can be the last one before each access) by a forward
// dataflow over blocks; pairs in a common phase, same space and root; each pair's affine
// difference goes to the search with both threads' branch conditions.
#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/affine_index.h"
#include "ptxkit/verifier/analysis/buffer_offsets.h"
#include "ptxkit/verifier/analysis/divergence_cause.h"
#include "ptxkit/verifier/analysis/memory_access.h"
#include "ptxkit/verifier/analysis/thread_collision.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

constexpr std::uint32_t kMaxPairs = 200000; // per function: beyond, one warning says so

class SharedRaceRule final : public Rule {
public:
  std::string_view summary() const override {
    return "two threads of a block access the same shared/global byte in one barrier interval, "
           "one writing";
  }
  void check(RuleContext& ctx) const override;
};

// A CTA barrier every thread waits at.
bool cta_barrier(const Instruction& in) {
  if (in.op != Opcode::kBar && in.op != Opcode::kBarrier) return false;
  if (in.has_modifier("warp") || in.has_modifier("arrive")) return false;
  if (in.has_modifier("cluster")) return in.has_modifier("wait") || !in.has_modifier("arrive");
  return true;
}

// Orders the lanes of one warp (a full-mask warp collective). The mask is an immediate or a
// register holding the constant (nvcc's `mov.u32 %r, -1; shfl.sync.bfly.b32 ..., %r;`).
bool warp_sync(const FunctionAnalysis& a, InstId i) {
  const std::uint32_t k = member_mask_operand(a.ir.inst(i));
  if (k == kNoId) return false;
  const std::optional<std::int64_t> mask = constant_operand(a, i, k);
  return mask && (static_cast<std::uint64_t>(*mask) & 0xffffffffu) == 0xffffffffu;
}

// A plain `.volatile` load or store (no atomic, no explicit scope): the warp-synchronous idiom's
// `volatile` shared memory, written for lanes that run in lockstep.
bool lockstep_volatile(const Instruction& in) {
  return (in.op == Opcode::kLd || in.op == Opcode::kSt) && in.has_modifier("volatile");
}

// The module targets a GPU before sm_70 (no independent thread scheduling: warps in lockstep).
bool before_independent_scheduling(const Module& m) {
  std::string_view t = m.sm_target();
  t.remove_prefix(std::min(t.find('_') + 1, t.size()));
  int sm = 0;
  std::from_chars(t.data(), t.data() + t.size(), sm);
  return sm > 0 && sm < 70;
}

bool strong(const Instruction& in) {
  if (in.op == Opcode::kAtom || in.op == Opcode::kRed) return true;
  return in.has_modifier("volatile") || in.has_modifier("relaxed") || in.has_modifier("acquire") ||
         in.has_modifier("release");
}

// May order accesses of different threads without a barrier (release/acquire, fences, mbarrier).
bool orders(const Instruction& in) {
  if (in.op == Opcode::kFence || in.op == Opcode::kMembar || in.op == Opcode::kMbarrier)
    return true;
  return in.has_modifier("acquire") || in.has_modifier("release") || in.has_modifier("acq_rel");
}

// `form cmp 0`, a condition of the guard that mixes thread fields with other values.
struct RawCondition {
  AffineForm form;
  SearchConstraint::Cmp cmp;
};

using Range = std::pair<std::int64_t, std::int64_t>;

// The largest iteration count the pair search gives a loop counter.
constexpr std::int64_t kMaxCount = 1023;
// The range the pair search gives a value with no bound of its own that only its difference
// between the two threads matters for: a block-stride index, a count times a uniform step.
constexpr std::int64_t kVMax = std::int64_t{1} << 20;

// Ranges of block-uniform values where a branch condition compares them (`i < n` with
// n = (min(len, 2048) + 63) / 64 is in [0, 32] there), from buffer_offsets.h under an empty
// contract (the block shape from .reqntid/.maxntid, parameters unknown), built on first need.
// A range found at a condition that dominates an access holds for the value wherever a thread
// reaches the access, and a block-uniform value is the same in every thread.
class UniformRanges {
public:
  explicit UniformRanges(const FunctionAnalysis& a) : a_(a) {}
  // Without ranges: operand() and sign() answer nothing and only note that they were asked
  // (the pair search first runs without them: building the ranges is a whole-function
  // interpretation, and most pairs are decided without).
  static UniformRanges none(const FunctionAnalysis& a) {
    UniformRanges r(a);
    r.enabled_ = false;
    return r;
  }
  bool asked() const { return asked_; }
  void clear_asked() { asked_ = false; }
  // Operand k of instruction i, when it is an integer in [0, 2^31) (signed and unsigned
  // readings agree).
  std::optional<Range> operand(InstId i, std::uint32_t k) {
    if (!enabled_) return asked_ = true, std::nullopt;
    if (!bo_) bo_.emplace(a_, contract_);
    const BufferValue v = bo_->operand_value(i, k);
    if (v.kind != BufferValue::Kind::kInt || !v.range.bounded() || v.range.lo < 0 ||
        v.range.hi >= (std::int64_t{1} << 31))
      return std::nullopt;
    return Range{v.range.lo, v.range.hi};
  }
  // A loop step's sign: its range excludes 0 (buffer_offsets.h: no induction variable wraps).
  std::optional<int> sign(InstId i, std::uint32_t k) {
    if (!enabled_) return asked_ = true, std::nullopt;
    if (!bo_) bo_.emplace(a_, contract_);
    const BufferValue v = bo_->operand_value(i, k);
    if (v.kind != BufferValue::Kind::kInt) return std::nullopt;
    if (v.range.lo != StridedRange::kNegInf && v.range.lo > 0) return 1;
    if (v.range.hi != StridedRange::kPosInf && v.range.hi < 0) return -1;
    return std::nullopt;
  }

private:
  const FunctionAnalysis& a_;
  KernelContract contract_;
  std::optional<BufferOffsets> bo_;
  bool enabled_ = true, asked_ = false;
};

struct Access {
  InstId inst = kNoId;
  AddrSpace space = AddrSpace::kNone;
  bool write = false, strong = false, lockstep = false;
  std::uint32_t width = 0;
  AffineForm addr;
  std::vector<std::uint32_t> phase, warp_phase, fwd_phase; // sorted start ids
  std::vector<SearchConstraint> guard; // over atom ids (var index = atom id), this thread
  std::vector<RawCondition> raw_guard; // conditions on other values too (form cmp 0), unmodelled
  bool guard_known = true;
  std::string guard_why;
  std::vector<std::pair<std::uint32_t, Range>> ranges; // uniform atoms bounded at its guards
  bool wants_ranges = false;    // its guard was read without uniform ranges that it could use
  std::uint32_t form_class = 0; // FormPairs::class_of(addr)
};

// The values a launch-geometry special register can have on any GPU (the CUDA limits: grids of
// 2^31-1 x 65535 x 65535 blocks, blocks of 1024 x 1024 x 64 threads): a superset of the real
// launch, so a pair the search finds apart over it is apart in every launch, and a collision it
// finds is not certain (the value may not occur).
std::optional<Range> launch_register_range(std::string_view name) {
  if (name.size() != 8 && name.size() != 10 && name.size() != 11) return std::nullopt;
  const char dim = name.back();
  if (name.starts_with("%ctaid.")) return Range{0, dim == 'x' ? 2147483646 : 65534};
  if (name.starts_with("%nctaid.")) return Range{1, dim == 'x' ? 2147483647 : 65535};
  if (name.starts_with("%ntid.")) return Range{1, dim == 'z' ? 64 : 1024};
  return std::nullopt;
}

// The values atom `id` can take in the pair search: thread fields, counters (up to kMaxCount
// iterations), residues, quotients of bounded thread parts, uniform values bounded at a guard.
std::optional<Range> atom_range(const AffineIndex& ai, std::uint32_t id,
                                const std::vector<std::pair<std::uint32_t, Range>>& ranges) {
  const AffineAtom& at = ai.atom(id);
  switch (at.kind) {
  case AffineAtom::Kind::kTidField:
    if (at.hi < 0) return std::nullopt;
    return Range{0, at.hi};
  case AffineAtom::Kind::kCounter:
    if (at.stride_dim >= 0 || at.step_atom != kNoId) return std::nullopt;
    return Range{0, kMaxCount};
  case AffineAtom::Kind::kQuotient: {
    const AffineQuotient* q = ai.quotient(id);
    std::int64_t t = 0;
    for (const AffineTerm& x : q->thread_part.terms)
      t += x.coef * ai.atom(x.atom).hi;
    const std::int64_t s_hi = q->residue != kNoId ? q->c - 1 : q->residue_constant;
    const std::int64_t s_lo = q->residue != kNoId ? 0 : q->residue_constant;
    return Range{s_lo / q->c, (s_hi + t) / q->c};
  }
  case AffineAtom::Kind::kOpaque:
    if (!at.uniform) return std::nullopt;
    if (at.bound >= 0) return Range{0, at.bound};
    for (const auto& [a, r] : ranges)
      if (a == id) return r;
    return launch_register_range(at.name);
  case AffineAtom::Kind::kSymbol:
    return std::nullopt;
  }
  return std::nullopt;
}

// Every value of `f` over atom_range lies in [0, 2^31): the integer comparison the search makes
// is then the machine's, signed or unsigned.
bool side_in_range(const AffineIndex& ai, const AffineForm& f,
                   const std::vector<std::pair<std::uint32_t, Range>>& ranges) {
  std::int64_t lo = f.constant, hi = f.constant;
  for (const AffineTerm& t : f.terms) {
    auto r = atom_range(ai, t.atom, ranges);
    if (!r) return false;
    lo += std::min(t.coef * r->first, t.coef * r->second);
    hi += std::max(t.coef * r->first, t.coef * r->second);
  }
  return lo >= 0 && hi < (std::int64_t{1} << 31);
}

// Start ids: 0 = the function's entry, k = the k-th boundary instruction.
struct Phases {
  std::vector<InstId> starts{kNoId};
  std::vector<std::vector<std::uint64_t>> in; // per block
};

using Bits = std::vector<std::uint64_t>;

void set_bit(Bits& b, std::uint32_t i) {
  b[i / 64] |= std::uint64_t{1} << (i % 64);
}

// Which boundaries can be the last before each instruction; `boundary` marks them; back edges
// are not followed when `forward_only`.
Phases phases(const FunctionAnalysis& a, const std::vector<std::uint32_t>& start_of,
              std::uint32_t nstarts, bool forward_only) {
  Phases p;
  const std::size_t words = (nstarts + 63) / 64;
  p.in.assign(a.cfg.size(), Bits(words, 0));
  set_bit(p.in[a.cfg.entry()], 0);
  bool changed = true;
  while (changed) {
    changed = false;
    for (BlockId b : a.cfg.rpo()) {
      Bits cur = p.in[b];
      for (InstId i = a.cfg.block(b).begin; i < a.cfg.block(b).end; ++i)
        if (start_of[i] != kNoId) std::fill(cur.begin(), cur.end(), 0), set_bit(cur, start_of[i]);
      for (BlockId s : a.cfg.block(b).succs) {
        if (forward_only && a.loops.is_back_edge(b, s)) continue;
        for (std::size_t w = 0; w < words; ++w) {
          if ((p.in[s][w] | cur[w]) != p.in[s][w]) changed = true;
          p.in[s][w] |= cur[w];
        }
      }
    }
  }
  return p;
}

std::vector<std::uint32_t> phase_at(const FunctionAnalysis& a, const Phases& p,
                                    const std::vector<std::uint32_t>& start_of, InstId i) {
  const BlockId b = a.cfg.block_of(i);
  for (InstId j = i; j-- > a.cfg.block(b).begin;)
    if (start_of[j] != kNoId) return {start_of[j]};
  std::vector<std::uint32_t> out;
  for (std::size_t w = 0; w < p.in[b].size(); ++w)
    for (std::uint64_t m = p.in[b][w]; m; m &= m - 1)
      out.push_back(static_cast<std::uint32_t>(w * 64 + std::countr_zero(m)));
  return out;
}

std::optional<std::uint32_t> common(const std::vector<std::uint32_t>& x,
                                    const std::vector<std::uint32_t>& y) {
  for (std::size_t i = 0, j = 0; i < x.size() && j < y.size();) {
    if (x[i] == y[j]) return x[i];
    (x[i] < y[j] ? i : j)++;
  }
  return std::nullopt;
}

// The condition that `pred` holds (or fails, `holds` false) as constraints on the thread's
// fields: a setp of two affine thread expressions is one; a comparison of block-uniform values is
// none (it is the same in every thread); `setp.cmp.and p, a, b, q` holding is both `a cmp b` and
// q holding (`.or` failing: both failing). What is not modelled (a disjunction, a float
// comparison, a comparison of loaded values or of a thread expression with a uniform value) is
// left out and sets `weakened`: the constraints then admit more threads than the condition (no
// collision among them is still a proof; a collision is no longer certain).
struct GuardModel {
  UniformRanges& uniform;
  std::vector<std::pair<std::uint32_t, Range>>& ranges; // the access's
};

std::vector<SearchConstraint> condition(const FunctionAnalysis& a, AffineIndex& ai, ValueId p,
                                        bool holds, bool& weakened, std::vector<RawCondition>& raw,
                                        GuardModel& gm, int depth = 0) {
  std::vector<SearchConstraint> out;
  if (a.block_uniformity.is_uniform(p)) return out;
  weakened = true; // until shown otherwise
  InstId d = a.values.defining_instruction(p);
  if (d == kNoId || depth > 4 || a.values.info(a.values.leader(p)).kind != ValueKind::kDef)
    return out;
  const Instruction& in = a.ir.inst(d);
  // `and.pred p, q, r` holding (`or.pred` failing): both parts.
  if ((in.op == Opcode::kAnd || in.op == Opcode::kOr) && in.has_modifier("pred") &&
      in.operands.size() == 3 && holds == (in.op == Opcode::kAnd)) {
    bool w1 = false, w2 = false;
    const ValueId q = a.values.value_of(d, 1), r = a.values.value_of(d, 2);
    if (q == kNoId || r == kNoId || in.operands[1].text().starts_with("!") ||
        in.operands[2].text().starts_with("!"))
      return out;
    out = condition(a, ai, q, holds, w1, raw, gm, depth + 1);
    std::vector<SearchConstraint> more = condition(a, ai, r, holds, w2, raw, gm, depth + 1);
    out.insert(out.end(), more.begin(), more.end());
    weakened = w1 || w2;
    return out;
  }
  if (in.op != Opcode::kSetp || (in.operands.size() != 3 && in.operands.size() != 4) ||
      in.operands[0].text().find('|') != std::string_view::npos)
    return out;
  using C = SearchConstraint::Cmp;
  std::optional<C> cmp;
  for (std::string_view m : in.modifiers) {
    if (m == "eq")
      cmp = C::kEq;
    else if (m == "ne")
      cmp = C::kNe;
    else if (m == "lt" || m == "lo")
      cmp = C::kLt;
    else if (m == "le" || m == "ls")
      cmp = C::kLe;
    else if (m == "gt" || m == "hi")
      cmp = C::kGt;
    else if (m == "ge" || m == "hs")
      cmp = C::kGe;
    else if (m.starts_with("f") || m == "xor")
      return out;
  }
  if (!cmp) return out;
  bool rest_weakened = false;
  if (in.operands.size() == 4) {
    const bool conj = in.has_modifier("and") ? holds : in.has_modifier("or") ? !holds : false;
    const ValueId q = a.values.value_of(d, 3);
    if (!conj || q == kNoId || in.operands[3].text().starts_with("!")) return out;
    out = condition(a, ai, q, holds, rest_weakened, raw, gm, depth + 1);
  }
  weakened = rest_weakened;
  // Thread expressions are small and non-negative: signed and unsigned comparisons agree.
  AffineForm f = ai.operand(d, 1);
  if (!affine_add(f, ai.operand(d, 2), -1)) return weakened = true, out;
  SearchConstraint c;
  c.constant = f.constant;
  bool other = false;
  for (const AffineTerm& t : f.terms) {
    const AffineAtom& at = ai.atom(t.atom);
    if (at.kind == AffineAtom::Kind::kTidField)
      c.terms.push_back({t.atom, t.coef});
    else
      other = true;
  }
  if (c.terms.empty() && !other) return out; // constant
  using Cmp = SearchConstraint::Cmp;
  static constexpr Cmp neg[] = {Cmp::kNe, Cmp::kEq, Cmp::kGe, Cmp::kGt, Cmp::kLe, Cmp::kLt};
  if (!holds) *cmp = neg[static_cast<int>(*cmp)];
  if (other) {
    raw.push_back({f, *cmp});
    // Loop counts, quotients and block-uniform values bounded here: a constraint over those
    // atoms too (the pair search gives each a variable), when both sides stay in [0, 2^31).
    // A uniform value's range over-approximates its values: a collision is then not certain.
    bool varies = !c.terms.empty(), uses_range = false;
    // A uniform value's range is looked up only where the condition also has a loop count or a
    // quotient (`lane + 32 * j < n`): a thread-index bound alone (`tid < n`) rarely decides a
    // pair, and the lookup interprets the whole function.
    bool counts = false;
    for (const AffineTerm& t : f.terms)
      counts = counts || ai.atom(t.atom).kind == AffineAtom::Kind::kCounter ||
               ai.atom(t.atom).kind == AffineAtom::Kind::kQuotient;
    varies = varies || counts;
    for (const AffineTerm& t : f.terms) {
      const AffineAtom& at = ai.atom(t.atom);
      if (!counts || at.kind != AffineAtom::Kind::kOpaque || !at.uniform || at.bound >= 0 ||
          atom_range(ai, t.atom, gm.ranges))
        continue;
      // `x cmp n + k` with n the operand itself (its range found at this use).
      for (std::uint32_t k = 1; k <= 2; ++k) {
        const AffineForm side = ai.operand(d, k);
        if (side.terms.size() != 1 || side.terms[0].atom != t.atom || side.terms[0].coef != 1)
          continue;
        if (auto r = gm.uniform.operand(d, k)) {
          gm.ranges.push_back({t.atom, {r->first - side.constant, r->second - side.constant}});
          uses_range = true;
          break;
        }
      }
    }
    for (const AffineTerm& t : f.terms)
      uses_range = uses_range ||
                   (ai.atom(t.atom).kind == AffineAtom::Kind::kOpaque && ai.atom(t.atom).bound < 0);
    if (varies && side_in_range(ai, ai.operand(d, 1), gm.ranges) &&
        side_in_range(ai, ai.operand(d, 2), gm.ranges)) {
      c.terms.clear();
      for (const AffineTerm& t : f.terms)
        c.terms.push_back({t.atom, t.coef});
      c.cmp = *cmp;
      out.push_back(std::move(c));
      if (uses_range) weakened = true;
      return out;
    }
    // Uniform values alone: the same in every thread; with a thread expression or another value:
    // not modelled.
    bool uniform = c.terms.empty();
    for (const AffineTerm& t : f.terms)
      uniform =
          uniform && ai.atom(t.atom).uniform && ai.atom(t.atom).kind != AffineAtom::Kind::kCounter;
    if (!uniform) weakened = true;
    return out;
  }
  c.cmp = *cmp;
  out.push_back(std::move(c));
  return out;
}

void collect_guard(const FunctionAnalysis& a, AffineIndex& ai, UniformRanges& ur, Access& acc) {
  GuardModel gm{ur, acc.ranges};
  auto add = [&](ValueId p, bool holds, InstId where) {
    if (p == kNoId || a.block_uniformity.is_uniform(p)) return;
    bool weakened = false;
    std::vector<SearchConstraint> c = condition(a, ai, p, holds, weakened, acc.raw_guard, gm);
    acc.guard.insert(acc.guard.end(), c.begin(), c.end());
    if (weakened && acc.guard_known) {
      acc.guard_known = false;
      acc.guard_why = "it runs only where the condition at line " +
                      std::to_string(a.ir.inst(where).loc.line) + " holds, which is not modelled";
    }
  };
  if (a.ir.info(acc.inst).guard != kNoId)
    add(a.values.guard_value(acc.inst), !a.ir.info(acc.inst).guard_negated, acc.inst);
  bool any = false;
  for (BlockId cur = a.cfg.block_of(acc.inst);;) {
    BlockId d = a.dom.idom(cur);
    if (d == kNoId) break;
    // The edge d -> s with s dominating the access and d its only predecessor.
    for (BlockId s : a.cfg.block(d).succs) {
      if (!a.dom.dominates(s, cur) || a.cfg.block(s).preds.size() != 1) continue;
      InstId t = a.cfg.terminator(d);
      if (t == kNoId || a.ir.info(t).guard == kNoId) continue;
      const ControlKind ck = a.ir.info(t).control;
      const bool exits = ck == ControlKind::kReturn || ck == ControlKind::kExit;
      if (!(ck == ControlKind::kBranch && a.cfg.block(d).succs.size() == 2) && !exits) continue;
      // Past a guarded ret/exit the guard failed; over a branch edge it held when taken.
      const bool guard_holds = ck == ControlKind::kBranch && s != d + 1;
      ValueId p = a.values.guard_value(t);
      if (p != kNoId && !a.block_uniformity.is_uniform(p)) any = true;
      add(p, guard_holds != a.ir.info(t).guard_negated, t);
    }
    cur = d;
  }
  // A loop's count in an access after the loop is the count at which the thread left it: with
  // one exit edge, from a block that dominates the access, that edge's condition held then
  // (`for (i = tid; i < n; i += 1024)` left at i >= n).
  for (const AffineTerm& t : acc.addr.terms) {
    const AffineAtom& at = ai.atom(t.atom);
    if (at.kind != AffineAtom::Kind::kCounter || at.stride_dim >= 0 || at.step_atom != kNoId ||
        a.loops.contains(at.loop, a.cfg.block_of(acc.inst)))
      continue;
    const Loop& l = a.loops.loop(at.loop);
    if (l.exits.size() != 1) continue;
    const auto [e, x] = l.exits[0];
    const InstId term = a.cfg.terminator(e);
    if (term == kNoId || a.ir.info(term).guard == kNoId ||
        a.ir.info(term).control != ControlKind::kBranch || a.cfg.block(e).succs.size() != 2 ||
        !a.dom.dominates(e, a.cfg.block_of(acc.inst)))
      continue;
    const bool taken = x != e + 1;
    add(a.values.guard_value(term), taken != a.ir.info(term).guard_negated, term);
  }
  if (!any && acc.guard_known && a.block_uniformity.partial_warp(a.cfg.block_of(acc.inst))) {
    acc.guard_known = false;
    acc.guard_why = "only some threads reach it, by a path the rule does not model";
  }
}

// The predicates whose value is known at `i`: its own guard, and the branch into each block that
// dominates it and has that branch's block as its only predecessor (`@!p bra L;` then p holds).
std::vector<std::pair<ValueId, bool>> decided_at(const FunctionAnalysis& a, InstId i) {
  std::vector<std::pair<ValueId, bool>> out;
  const InstInfo& ii = a.ir.info(i);
  if (ii.guard != kNoId && a.values.guard_value(i) != kNoId)
    out.push_back({a.values.leader(a.values.guard_value(i)), !ii.guard_negated});
  for (BlockId d = a.cfg.block_of(i); d != kNoId && a.dom.in_tree(d); d = a.dom.idom(d)) {
    const auto& preds = a.cfg.block(d).preds;
    if (preds.size() != 1) continue;
    const auto g = edge_guard(a, preds[0], d);
    if (!g || g->first == kNoId) continue;
    out.push_back({a.values.leader(g->first), g->second});
  }
  return out;
}

// An address term selp(x, y, p) is x (y) at an access that only runs where p holds (does not):
// the K/V choice `h < 8 ? h : h - 8` used under `if (h < 8)`. Nested selects resolve in turn.
void resolve_selects(const FunctionAnalysis& a, AffineIndex& ai, Access& acc) {
  std::vector<std::pair<ValueId, bool>> known;
  bool computed = false;
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    for (const AffineTerm t : std::vector<AffineTerm>(acc.addr.terms)) {
      const AffineSelect* sel = ai.select(t.atom);
      if (sel == nullptr) continue;
      if (!computed) known = decided_at(a, acc.inst), computed = true;
      std::optional<bool> holds;
      for (const auto& [p, h] : known)
        if (p == sel->pred) holds = h != sel->negated;
      if (!holds) continue;
      AffineForm f = acc.addr;
      if (affine_add(f, AffineForm{0, {{t.atom, t.coef}}}, -1) &&
          affine_add(f, *holds ? sel->if_true : sel->if_false, t.coef)) {
        acc.addr = std::move(f);
        changed = true;
      }
    }
    if (!changed) break;
  }
}

// An address term min(x, c) (max) is x for every thread that reaches the access when the
// access's guard leaves no thread with x > c (x < c): `@p st [a + 4*min(tid, 111)]` under
// p = tid < 112 is `a + 4*tid`.
void resolve_clamps(AffineIndex& ai, Access& acc) {
  std::vector<SearchVar> vars;
  for (std::uint32_t id = 0; id < ai.atom_count(); ++id) {
    if (ai.atom(id).kind != AffineAtom::Kind::kTidField) break; // the fields come first
    vars.push_back({0, std::max<std::int64_t>(ai.atom(id).hi, 0), 0, -1, false});
  }
  for (const AffineTerm t : std::vector<AffineTerm>(acc.addr.terms)) {
    const AffineClamp* cl = ai.clamp(t.atom);
    if (cl == nullptr) continue;
    std::vector<SearchConstraint> cons = acc.guard;
    SearchConstraint beyond;
    for (const AffineTerm& x : cl->x.terms)
      beyond.terms.push_back({x.atom, x.coef});
    beyond.constant = cl->x.constant - cl->c;
    beyond.cmp = cl->is_min ? SearchConstraint::Cmp::kGt : SearchConstraint::Cmp::kLt;
    cons.push_back(std::move(beyond));
    bool in_range = true;
    for (const SearchConstraint& c : cons)
      for (auto [v, k] : c.terms)
        in_range = in_range && v < vars.size();
    // The guard compares the clamped expression itself: `x < K` (`x <= K`) with K <= c + 1 (c).
    bool implied = false;
    for (const RawCondition& g : acc.raw_guard) {
      AffineForm d = g.form;
      if (!affine_add(d, cl->x, -1) || !d.terms.empty()) continue;
      const std::int64_t k = -d.constant; // g.form = x - k
      using Cmp = SearchConstraint::Cmp;
      if (cl->is_min)
        implied |= (g.cmp == Cmp::kLt && k <= cl->c + 1) || (g.cmp == Cmp::kLe && k <= cl->c);
      else
        implied |= (g.cmp == Cmp::kGt && k >= cl->c - 1) || (g.cmp == Cmp::kGe && k >= cl->c);
    }
    if (!implied) {
      if (!in_range) continue;
      SearchResult r = search_assignment(vars, cons);
      if (r.found || r.exhausted) continue;
    }
    AffineForm f = acc.addr;
    if (affine_add(f, AffineForm{0, {{t.atom, t.coef}}}, -1) && affine_add(f, cl->x, t.coef))
      acc.addr = std::move(f);
  }
}

std::string thread_text(const AffineIndex& ai, const std::vector<std::int64_t>& x,
                        const std::vector<std::int32_t>& var_of) {
  std::int64_t t[3] = {0, 0, 0};
  for (std::uint32_t id = 0; id < var_of.size(); ++id) {
    const AffineAtom& at = ai.atom(id);
    if (at.kind == AffineAtom::Kind::kTidField && var_of[id] >= 0)
      t[at.dim] += x[static_cast<std::size_t>(var_of[id])] << at.shift;
  }
  return "(" + std::to_string(t[0]) + "," + std::to_string(t[1]) + "," + std::to_string(t[2]) + ")";
}

// Why a pair is undecided; such pairs are counted per function, not reported one by one.
enum class Cause : std::uint8_t { kShape, kAddress, kUniform, kLoop, kBudget, kCount };

constexpr const char* kCauseText[] = {
    ("two threads collide in a block shape the kernel does not rule out (it declares no "
     ".reqntid: state the launch's with --block-dim)"),
    "an address depends on a value the rule cannot express as a function of the thread",
    "the two addresses use a block-uniform value differently",
    "a collision needs a later iteration of a loop (the loop may not run that often)",
    "the search for two colliding threads ran out of budget",
};

// What would decide each cause, for the undecided warning (kCauseText's order).
constexpr const char* kDecideText[] = {
    "declare .reqntid or pass --block-dim (or a --contract block)",
    "index shared memory by values of the thread index and block-uniform values, or check the "
    "kernel at run time (compute-sanitizer --tool racecheck)",
    "state the parameters and grid the addresses use with --contract",
    "state the loop bounds' parameters with --contract",
    "state the launch (--block-dim) to make the search smaller",
};

// "(x,y,z)" at the end of a thread_text() string, as a witness thread.
std::optional<Witness::Thread> witness_thread(const std::string& text, std::string does) {
  const std::size_t open = text.rfind('(');
  Witness::Thread t;
  unsigned x = 0, y = 0, z = 0;
  if (open == std::string::npos || std::sscanf(text.c_str() + open, "(%u,%u,%u)", &x, &y, &z) != 3)
    return std::nullopt;
  t.tid = {x, y, z};
  t.does = std::move(does);
  return t;
}

// The block shape in which a witness pair exists: "blockDim.x > 8 and blockDim.y > 1" for
// threads (8,0,0) and (0,1,0); every block that large has both threads, so the condition is
// sufficient for the collision (the search's witness need not be the smallest one).
std::string shape_condition(const std::string& t1, const std::string& t2) {
  const auto a = witness_thread(t1, ""), b = witness_thread(t2, "");
  if (!a || !b) return "";
  std::string out;
  for (int d = 0; d < 3; ++d) {
    const std::uint32_t m = std::max(a->tid[d], b->tid[d]);
    if (m == 0) continue;
    out += std::string(out.empty() ? "" : " and ") + "blockDim." + "xyz"[d] + " > " +
           std::to_string(m);
  }
  return out;
}

struct Verdict {
  // kCertain: two threads collide; kShape: they collide in a block shape the kernel does not
  // declare it has (no .reqntid); kUndecided: a missing fact (cause, detail says which).
  enum class Kind { kNone, kCertain, kShape, kUndecided } kind = Kind::kNone;
  std::string detail; // kCertain/kShape: the later access's thread; kUndecided: why
  std::string other;  // kCertain/kShape: the earlier access's thread
  Cause cause = Cause::kAddress;
  std::vector<std::int64_t> values; // kCertain/kShape: the witness (search variables)
  std::vector<std::int32_t> var1, var2;
  std::uint32_t why_atom = kNoId; // kUndecided without detail: the atom that decides it
  // kCertain without a declared shape: the two threads are (0,0,0) and (1,0,0) of a kernel whose
  // tid.y and tid.z are 0, present in every block of two threads or more.
  bool any_block = false;
};

// tid.x's fields, block-stride counts along x and %ntid.x: what a block-stride index is made of.
bool stride_x_atom(const AffineIndex& ai, std::uint32_t id) {
  const AffineAtom& at = ai.atom(id);
  return (at.kind == AffineAtom::Kind::kTidField && at.dim == 0) ||
         (at.kind == AffineAtom::Kind::kCounter && at.stride_dim == 0) || ai.is_ntid(id, 0);
}

// c when `f` holds c * tid.x (every field of tid.x at c * 2^shift) plus block-stride counts and
// %ntid.x at multiples of c, at least one of them; 0 otherwise.
std::int64_t block_stride_coef(const AffineIndex& ai, const AffineForm& f) {
  std::int64_t c = 0;
  std::uint32_t fields = 0, tid_fields = 0, strides = 0;
  for (std::uint32_t id = 0; id < ai.atom_count(); ++id)
    tid_fields += ai.atom(id).kind == AffineAtom::Kind::kTidField && ai.atom(id).dim == 0;
  for (const AffineTerm& t : f.terms) {
    const AffineAtom& at = ai.atom(t.atom);
    if (at.kind != AffineAtom::Kind::kTidField || at.dim != 0) continue;
    if (t.coef % (std::int64_t{1} << at.shift) != 0) return 0;
    const std::int64_t k = t.coef >> at.shift;
    if (c != 0 && k != c) return 0;
    c = k, ++fields;
  }
  if (c == 0 || fields != tid_fields) return 0;
  for (const AffineTerm& t : f.terms) {
    if (!stride_x_atom(ai, t.atom) || ai.atom(t.atom).kind == AffineAtom::Kind::kTidField) continue;
    if (t.coef % c != 0) return 0;
    ++strides;
  }
  return strides != 0 ? c : 0;
}

AffineForm without_x(const AffineIndex& ai, const AffineForm& f) {
  AffineForm out = f;
  std::erase_if(out.terms, [&](const AffineTerm& t) { return stride_x_atom(ai, t.atom); });
  return out;
}

Verdict undecided_because(std::string why, Cause cause) {
  Verdict v;
  v.kind = Verdict::Kind::kUndecided;
  v.detail = std::move(why);
  v.cause = cause;
  return v;
}

// The values min(x, c) (max) can take when x is a sum of thread fields: [lo, hi] with both ends
// and every x non-negative (so that a signed and an unsigned comparison agree); nullopt
// otherwise. The pair search takes such a clamp as a variable of its own per thread in that range:
// more collisions than the threads can make, never fewer.
std::optional<std::pair<std::int64_t, std::int64_t>> clamp_range(const AffineIndex& ai,
                                                                 std::uint32_t id) {
  const AffineClamp* cl = ai.clamp(id);
  if (cl == nullptr || cl->c < 0) return std::nullopt;
  std::int64_t lo = cl->x.constant, hi = cl->x.constant;
  for (const AffineTerm& t : cl->x.terms) {
    const AffineAtom& at = ai.atom(t.atom);
    if (at.kind != AffineAtom::Kind::kTidField || at.hi < 0) return std::nullopt;
    lo += std::min<std::int64_t>(0, t.coef * at.hi);
    hi += std::max<std::int64_t>(0, t.coef * at.hi);
  }
  if (lo < 0) return std::nullopt;
  if (cl->is_min) return std::pair{std::min(lo, cl->c), std::min(hi, cl->c)};
  return std::pair{std::max(lo, cl->c), std::max(hi, cl->c)};
}

// The fast path of pairs whose addresses depend on a value that differs between threads and is
// no thread field (a loaded index, a product): nothing but a gcd test can rule a collision out.
// The difference is sum(coef * value) over the atoms of both forms; each atom that varies (thread
// fields with a range, loop counts, varying values on either side, uniform values used
// differently) contributes its coefficients to the gcd; a collision needs a multiple of it in
// [lo, hi] - constant. nullopt when no varying value is there (the exact search decides).
struct OpaqueTerms {
  std::int64_t g = 0;          // gcd of the difference's coefficients
  std::uint32_t first = kNoId; // the first opaque thread-varying atom, kNoId: none
};

OpaqueTerms opaque_terms(const AffineIndex& ai, const AffineForm& p, const AffineForm& q) {
  std::uint32_t first = kNoId;
  std::int64_t g = 0;
  auto add = [&](std::uint32_t id, std::int64_t c1, std::int64_t c2) {
    const AffineAtom& at = ai.atom(id);
    switch (at.kind) {
    case AffineAtom::Kind::kTidField:
      if (at.hi > 0) g = std::gcd(g, std::gcd(std::abs(c1), std::abs(c2)));
      break;
    case AffineAtom::Kind::kCounter:
    case AffineAtom::Kind::kQuotient:
      g = std::gcd(g, std::gcd(std::abs(c1), std::abs(c2)));
      break;
    case AffineAtom::Kind::kSymbol:
    case AffineAtom::Kind::kOpaque:
      if (at.uniform) {
        g = std::gcd(g, std::abs(c1 - c2));
      } else if (clamp_range(ai, id)) {
        g = std::gcd(g, std::gcd(std::abs(c1), std::abs(c2))); // the search bounds it
      } else {
        g = std::gcd(g, std::gcd(std::abs(c1), std::abs(c2)));
        if (first == kNoId) first = id;
      }
      break;
    }
  };
  std::size_t i = 0, j = 0;
  while (i < p.terms.size() || j < q.terms.size()) {
    if (j == q.terms.size() || (i < p.terms.size() && p.terms[i].atom < q.terms[j].atom)) {
      add(p.terms[i].atom, p.terms[i].coef, 0), ++i;
    } else if (i == p.terms.size() || q.terms[j].atom < p.terms[i].atom) {
      add(q.terms[j].atom, 0, q.terms[j].coef), ++j;
    } else {
      add(p.terms[i].atom, p.terms[i].coef, q.terms[j].coef), ++i, ++j;
    }
  }
  return {g, first};
}

// With an opaque thread-varying term, only a gcd test: the difference's constant must allow a
// multiple of g in [lo, hi], else the accesses never overlap; if it does, undecided.
std::optional<Verdict> varying_opaque(const OpaqueTerms& t, std::int64_t constant, std::int64_t lo,
                                      std::int64_t hi) {
  if (t.first == kNoId) return std::nullopt;
  const std::int64_t l = lo - constant, h = hi - constant, g = t.g;
  if (g == 0 ? (l > 0 || h < 0) : (l >= 0 ? (l + g - 1) / g * g : -((-l) / g * g)) > h)
    return Verdict{};
  Verdict v;
  v.kind = Verdict::Kind::kUndecided;
  v.cause = Cause::kAddress;
  v.why_atom = t.first;
  return v;
}

// Whether SSA value v may carry the value `root` (a kernel parameter's load): its operands,
// transitively, through every instruction but a load from global, shared or constant memory (a
// pointer read from a table is not based on the pointer it was read through). Guarded values
// and phis follow each input; too deep a chain counts as carrying it.
bool may_carry(const FunctionAnalysis& a, ValueId v, ValueId root, std::vector<std::uint8_t>& seen,
               int depth) {
  const ValueNumbering& vn = a.values;
  if (v == kNoId) return false;
  v = vn.leader(v);
  if (v == root) return true;
  if (depth > 64) return true;
  if (seen[v]) return false; // visited, or in progress (a cycle adds no new input)
  seen[v] = 1;
  const ValueInfo& info = vn.info(v);
  switch (info.kind) {
  case ValueKind::kPhi:
    for (const PhiIncoming& in : vn.phi_incoming(v))
      if (may_carry(a, in.value, root, seen, depth + 1)) return true;
    return false;
  case ValueKind::kGuarded:
    return may_carry(a, info.fresh, root, seen, depth + 1) ||
           may_carry(a, info.prior, root, seen, depth + 1);
  case ValueKind::kDef: {
    const Instruction& in = a.ir.inst(info.inst);
    if ((in.op == Opcode::kLd || in.op == Opcode::kLdu) &&
        (in.has_modifier("global") || in.has_modifier("shared") || in.has_modifier("const")))
      return false;
    if (in.op == Opcode::kLd && in.has_modifier("param")) return false; // another parameter
    bool carries = false;
    vn.for_each_operand_value(
        info.inst, [&](ValueId u) { carries = carries || may_carry(a, u, root, seen, depth + 1); });
    return carries;
  }
  default:
    return true; // a value from outside the function: unknown
  }
}

// No atom of `f` can carry kernel parameter `root`'s pointer: thread fields, loop counts,
// variables, special registers, other parameters, and values computed without it (from a
// pointer loaded from a table, %ctaid, ...).
bool not_based_on(const FunctionAnalysis& a, const AffineIndex& ai, const AffineForm& f,
                  std::uint32_t root) {
  const ValueId rv = ai.atom(root).value;
  if (rv == kNoId) return false;
  std::vector<std::uint8_t> seen(a.values.size(), 0);
  for (const AffineTerm& t : f.terms) {
    const AffineAtom& at = ai.atom(t.atom);
    if (t.atom == root) return false;
    if (at.kind != AffineAtom::Kind::kOpaque || at.param_root) continue;
    if (at.value == kNoId) {
      if (at.name.empty()) return false; // an operand the rule could not resolve
      continue;                          // a special register
    }
    if (may_carry(a, at.value, a.values.leader(rv), seen, 0)) return false;
  }
  return true;
}

// Decides one pair. Variables: thread 1's and thread 2's fields, loop counters; uniform atoms
// the two addresses share cancel.
// What two accesses' address forms decide apart from their constants, once per pair of distinct
// term lists (a pipelined GEMM pairs some 100,000 accesses that share a few dozen forms): the
// roots (different variables or kernel parameters never overlap), and the gcd of an opaque
// thread-varying difference.
struct FormPair {
  bool disjoint = false;
  OpaqueTerms opaque;
  // The same terms, each block-uniform (a pointer parameter, a symbol, %ctaid arithmetic): the
  // two threads' addresses differ by the constants alone.
  bool same_uniform_terms = false;
};

class FormPairs {
public:
  // The class of an address form: its term list (the constant left out).
  std::uint32_t class_of(const AffineForm& f) {
    auto [it, added] = ids_.try_emplace(f.terms, static_cast<std::uint32_t>(ids_.size()));
    return it->second;
  }
  const FormPair& get(const FunctionAnalysis& a, const AffineIndex& ai, const Access& p,
                      const Access& q) {
    const std::uint64_t key = (std::uint64_t{p.form_class} << 32) | q.form_class;
    auto [it, added] = pairs_.try_emplace(key);
    if (added) it->second = compute(a, ai, p.addr, q.addr);
    return it->second;
  }

private:
  static FormPair compute(const FunctionAnalysis& a, const AffineIndex& ai, const AffineForm& pf,
                          const AffineForm& qf) {
    FormPair out;
    auto root = [&](const AffineForm& f) -> std::uint32_t {
      std::uint32_t r = kNoId;
      for (const AffineTerm& t : f.terms) {
        const AffineAtom& at = ai.atom(t.atom);
        if (t.coef == 1 && (at.kind == AffineAtom::Kind::kSymbol || at.param_root)) r = t.atom;
      }
      return r;
    };
    const std::uint32_t rp = root(pf), rq = root(qf);
    if (rp != kNoId && rq != kNoId && rp != rq) return out.disjoint = true, out;
    // The same assumption for an address computed without parameter r at all (a pointer loaded
    // from a table, `k_ptrs[b][i]`, against `out[i]`): under __restrict__ semantics the bytes
    // accessed through r, one access writing, are accessed only through addresses based on r.
    // The root must be the form's only parameter (`out + n` with a byte-sized scalar n at
    // coefficient 1 would leave it unclear which one is the pointer).
    auto sole_root = [&](const AffineForm& f, std::uint32_t r) {
      for (const AffineTerm& t : f.terms)
        if (t.atom != r &&
            (ai.atom(t.atom).param_root || ai.atom(t.atom).kind == AffineAtom::Kind::kSymbol))
          return false;
      return true;
    };
    if ((rp != kNoId && rq == kNoId && sole_root(pf, rp) && not_based_on(a, ai, qf, rp)) ||
        (rq != kNoId && rp == kNoId && sole_root(qf, rq) && not_based_on(a, ai, pf, rq)))
      return out.disjoint = true, out;
    out.opaque = opaque_terms(ai, pf, qf);
    out.same_uniform_terms = pf.terms == qf.terms;
    for (const AffineTerm& t : pf.terms) {
      const AffineAtom& at = ai.atom(t.atom);
      out.same_uniform_terms =
          out.same_uniform_terms && at.uniform &&
          (at.kind == AffineAtom::Kind::kSymbol || at.kind == AffineAtom::Kind::kOpaque);
    }
    return out;
  }
  struct TermsLess {
    bool operator()(const std::vector<AffineTerm>& x, const std::vector<AffineTerm>& y) const {
      return std::lexicographical_compare(
          x.begin(), x.end(), y.begin(), y.end(), [](const AffineTerm& u, const AffineTerm& v) {
            return u.atom != v.atom ? u.atom < v.atom : u.coef < v.coef;
          });
    }
  };
  std::map<std::vector<AffineTerm>, std::uint32_t, TermsLess> ids_;
  std::unordered_map<std::uint64_t, FormPair> pairs_;
};

// Equalities the two threads' guards share up to their thread parts: `gid == K` with
// gid = ctaid * ntid + tid (a tail or setup block one thread of the grid runs) holds in thread 1
// as T1 + U == K and in thread 2 as T2 + U' == K', where U and U' are the same block-uniform
// sums (the same atoms at the same coefficients: the same value in every thread of the block).
// Then T1 - T2 == K - K' exactly, though U has no range: both equalities hold modulo the
// comparison's width (at least 16 bits), so their difference does, and a difference below 2^15
// in magnitude (thread parts and K - K') is then an integer equality. A constraint over both
// threads' variables for the pair search.
void add_uniform_equalities(const AffineIndex& ai, const std::vector<RawCondition>& g1,
                            const std::vector<RawCondition>& g2,
                            const std::vector<std::int32_t>& var1,
                            const std::vector<std::int32_t>& var2,
                            std::vector<SearchConstraint>& cons) {
  // The thread part (tid fields) and the rest (block-uniform atoms only), or nullopt.
  struct Split {
    AffineForm thread, uniform;
  };
  auto split = [&](const RawCondition& c) -> std::optional<Split> {
    if (c.cmp != SearchConstraint::Cmp::kEq) return std::nullopt;
    Split s;
    s.uniform.constant = c.form.constant;
    for (const AffineTerm& t : c.form.terms) {
      const AffineAtom& at = ai.atom(t.atom);
      if (at.kind == AffineAtom::Kind::kTidField)
        s.thread.terms.push_back(t);
      else if (at.uniform && at.kind != AffineAtom::Kind::kCounter &&
               at.kind != AffineAtom::Kind::kQuotient)
        s.uniform.terms.push_back(t);
      else
        return std::nullopt;
    }
    if (s.thread.terms.empty() || s.uniform.terms.empty()) return std::nullopt;
    return s;
  };
  auto magnitude = [&](const AffineForm& f) {
    std::int64_t m = 0;
    for (const AffineTerm& t : f.terms)
      m += std::abs(t.coef) * std::max<std::int64_t>(ai.atom(t.atom).hi, 0);
    return m;
  };
  constexpr std::int64_t kExact = std::int64_t{1} << 15;
  for (const RawCondition& c1 : g1) {
    const std::optional<Split> s1 = split(c1);
    if (!s1) continue;
    for (const RawCondition& c2 : g2) {
      const std::optional<Split> s2 = split(c2);
      if (!s2 || s1->uniform.terms != s2->uniform.terms) continue;
      const std::int64_t k = s1->uniform.constant - s2->uniform.constant;
      if (std::abs(k) + magnitude(s1->thread) + magnitude(s2->thread) >= kExact) continue;
      SearchConstraint e;
      bool mapped = true;
      for (const AffineTerm& t : s1->thread.terms) {
        mapped = mapped && var1[t.atom] >= 0 && ai.atom(t.atom).hi >= 0;
        if (mapped) e.terms.push_back({static_cast<std::uint32_t>(var1[t.atom]), t.coef});
      }
      for (const AffineTerm& t : s2->thread.terms) {
        mapped = mapped && var2[t.atom] >= 0 && ai.atom(t.atom).hi >= 0;
        if (mapped) e.terms.push_back({static_cast<std::uint32_t>(var2[t.atom]), -t.coef});
      }
      if (!mapped) continue;
      e.constant = k;
      e.cmp = SearchConstraint::Cmp::kEq;
      cons.push_back(std::move(e));
    }
  }
}

// Which two threads a pair needs: any two, two of different warps (a warp sync lies between the
// accesses), or two lanes of one warp (a lockstep-volatile pair).
enum class Pairing : std::uint8_t { kAny, kOtherWarp, kOneWarp };

// The two threads are lanes of one warp: their warp fields (tid.x bits 5 and up, tid.y, tid.z)
// are equal (warps are runs of tid.x: the caller says when the shape does not say so).
void same_warp(const AffineIndex& ai, std::uint32_t fields, const std::vector<std::int32_t>& var1,
               const std::vector<std::int32_t>& var2, std::vector<SearchConstraint>& cons) {
  for (std::uint32_t id = 0; id < fields; ++id) {
    const AffineAtom& at = ai.atom(id);
    if ((at.dim == 0 && at.shift < 5) || var1[id] < 0) continue;
    SearchConstraint e;
    e.terms = {{static_cast<std::uint32_t>(var1[id]), 1},
               {static_cast<std::uint32_t>(var2[id]), -1}};
    cons.push_back(std::move(e));
  }
}

// Whether two accesses at c * rank + U + k1 and c * rank + U + k2 (the same block-uniform U, rank
// the thread's linear rank: AffineIndex::rank_scale) never meet between distinct threads: their
// address difference is c * d + k1 - k2 with d != 0, and no such value lies in [lo, hi].
bool rank_apart(const AffineIndex& ai, const AffineForm& p, const AffineForm& q, std::int64_t lo,
                std::int64_t hi) {
  const std::int64_t c = ai.rank_scale(p);
  AffineForm d = p;
  if (c == 0 || !affine_add(d, q, -1) || !d.terms.empty()) return false;
  const std::int64_t m = std::abs(c), l = lo - d.constant, h = hi - d.constant;
  // The largest positive multiple of m up to h, and the negative one nearest zero from l.
  const bool positive = h >= m && h / m * m >= l;
  const bool negative = l <= -m && -((-l) / m * m) <= h;
  return !positive && !negative;
}

Verdict decide(const FunctionAnalysis& a, AffineIndex& ai, const Access& p, const Access& q,
               bool same_iteration, Pairing pairing, InstId start, FormPairs& forms,
               CollisionSearches& searches) {
  const std::int64_t lo = -(static_cast<std::int64_t>(p.width) - 1);
  const std::int64_t hi = static_cast<std::int64_t>(q.width) - 1;
  const FormPair& fp = forms.get(a, ai, p, q);
  if (fp.disjoint) return {};
  // [p.c, p.c + p.width) and [q.c, q.c + q.width) apart: no two threads meet.
  if (fp.same_uniform_terms &&
      (p.addr.constant - q.addr.constant < lo || p.addr.constant - q.addr.constant > hi))
    return {};
  if (rank_apart(ai, p.addr, q.addr, lo, hi)) return {};
  constexpr std::int64_t kSmall = std::int64_t{1} << 39;
  if (fp.opaque.first != kNoId && std::abs(p.addr.constant) < kSmall &&
      std::abs(q.addr.constant) < kSmall)
    return *varying_opaque(fp.opaque, p.addr.constant - q.addr.constant, lo, hi);
  AffineForm diff = p.addr;
  if (!affine_add(diff, q.addr, -1))
    return undecided_because("an address offset beyond 2^40", Cause::kAddress);
  if (auto v = varying_opaque(fp.opaque, diff.constant, lo, hi)) return *v;
  std::vector<SearchVar> vars;
  // Thread fields come first among the atoms; only they get a variable per thread.
  std::uint32_t fields = 0;
  while (fields < ai.atom_count() && ai.atom(fields).kind == AffineAtom::Kind::kTidField)
    ++fields;
  std::vector<std::int32_t> var1(ai.atom_count(), -1), var2(ai.atom_count(), -1);
  // Block-stride addresses: c * (tid.x + w * ntid.x) in both, w any integer (block-stride
  // counts, multiples of ntid.x). With 0 <= tid.x < ntid.x, v = tid.x + w * ntid.x is different
  // for different (tid.x, w), so v replaces tid.x's fields, the counts and ntid.x: one variable
  // per thread whose two values differ only between different threads or iterations (taken as
  // different threads, possibly of different warps: more collisions, never fewer).
  const std::int64_t stride_c = block_stride_coef(ai, p.addr);
  const bool other_warp = pairing == Pairing::kOtherWarp;
  const bool strided =
      pairing != Pairing::kOneWarp && stride_c != 0 && stride_c == block_stride_coef(ai, q.addr);
  if (strided) {
    diff = without_x(ai, p.addr);
    if (!affine_add(diff, without_x(ai, q.addr), -1))
      return undecided_because("an address offset beyond 2^40", Cause::kAddress);
    // Only v1 - v2 matters: one variable for the difference, its twin the constant 0.
    vars.push_back({-kVMax, kVMax, stride_c, 1, true});
    vars.push_back({0, 0, 0, 0, true});
  }
  std::string why;
  bool uniform_why = false;
  bool counters = false;
  bool relaxed = false; // a clamp is a free variable in its range: a collision is no proof
  // Loop counts: 0 in the first search (the first iteration), then up to kMaxCount (diff_counters:
  // k1 - k2 of either sign); a count times a uniform step any integer up to kVMax (signed_counts).
  std::vector<std::uint32_t> diff_counters, count_vars, signed_counts;
  std::int64_t g = 0; // gcd of everything, for the undecided case
  auto loop_in = [&](LoopId l, InstId i) { return a.loops.contains(l, a.cfg.block_of(i)); };
  // The atoms that matter: the thread fields, those of the two addresses and of their guards,
  // and the residues of their quotients (not every atom of the function: large kernels have
  // thousands).
  std::vector<std::uint32_t> ids(fields);
  std::iota(ids.begin(), ids.end(), 0u);
  std::vector<std::uint8_t> in_guard(ai.atom_count(), 0);
  for (const AffineForm* f : {&p.addr, &q.addr})
    for (const AffineTerm& t : f->terms)
      if (t.atom >= fields) ids.push_back(t.atom);
  for (const Access* x : {&p, &q})
    for (const SearchConstraint& c : x->guard)
      for (auto [id, k] : c.terms)
        if (id >= fields) ids.push_back(id), in_guard[id] = 1;
  for (std::size_t k = fields, n = ids.size(); k < n; ++k)
    if (const AffineQuotient* qt = ai.quotient(ids[k]); qt && qt->residue != kNoId)
      ids.push_back(qt->residue), in_guard[qt->residue] = 1;
  std::sort(ids.begin() + fields, ids.end());
  ids.erase(std::unique(ids.begin() + fields, ids.end()), ids.end());
  // Ranges of uniform values: found at a guard of either access (both hold: the value is the
  // same in every thread).
  std::vector<std::pair<std::uint32_t, Range>> ranges = p.ranges;
  for (const auto& [id, r] : q.ranges) {
    bool merged = false;
    for (auto& [id2, r2] : ranges)
      if (id2 == id)
        r2 = {std::max(r2.first, r.first), std::min(r2.second, r.second)}, merged = true;
    if (!merged) ranges.push_back({id, r});
  }
  std::vector<SearchConstraint> defs; // quotient definitions, over atom ids, per thread
  for (std::uint32_t id : ids) {
    const std::int64_t c1 = p.addr.coef(id), c2 = q.addr.coef(id);
    const AffineAtom& at = ai.atom(id);
    if (strided && stride_x_atom(ai, id)) continue;
    if (c1 == 0 && c2 == 0 && !(at.kind == AffineAtom::Kind::kTidField) && !in_guard[id]) continue;
    if (at.kind == AffineAtom::Kind::kTidField) {
      if (at.hi < 0) continue;
      SearchVar v1{0, at.hi, c1, -1, at.dim != 0 || at.shift >= 5};
      SearchVar v2{0, at.hi, -c2, -1, v1.warp_field};
      var1[id] = static_cast<std::int32_t>(vars.size());
      var2[id] = var1[id] + 1;
      v1.twin = var2[id];
      v2.twin = var1[id];
      vars.push_back(v1);
      vars.push_back(v2);
      continue;
    }
    const std::int64_t d = c1 - c2;
    if (at.kind == AffineAtom::Kind::kQuotient) {
      // One per thread, defined by 0 <= s + T - c*q <= c - 1 in each.
      const AffineQuotient* qt = ai.quotient(id);
      const Range r = *atom_range(ai, id, ranges);
      var1[id] = static_cast<std::int32_t>(vars.size());
      vars.push_back({r.first, r.second, c1, -1, false});
      var2[id] = static_cast<std::int32_t>(vars.size());
      vars.push_back({r.first, r.second, -c2, -1, false});
      SearchConstraint lo_c, hi_c;
      for (const AffineTerm& t : qt->thread_part.terms)
        lo_c.terms.push_back({t.atom, t.coef});
      if (qt->residue != kNoId) lo_c.terms.push_back({qt->residue, 1});
      lo_c.terms.push_back({id, -qt->c});
      lo_c.constant = qt->residue != kNoId ? 0 : qt->residue_constant;
      hi_c = lo_c;
      lo_c.cmp = SearchConstraint::Cmp::kGe;
      hi_c.constant -= qt->c - 1;
      hi_c.cmp = SearchConstraint::Cmp::kLe;
      defs.push_back(std::move(lo_c));
      defs.push_back(std::move(hi_c));
      continue;
    }
    if (at.kind == AffineAtom::Kind::kCounter) {
      // The same count in both threads: the interval starts at a barrier inside the loop, which
      // every thread passes once an iteration (no lane leaves early), and both accesses follow
      // it in that iteration. Without a barrier in the loop, warps run its iterations
      // independently: `for (k...) smem[tid + k] += 1` races between tid 1 at k = 0 and tid 0
      // at k = 1.
      const bool shared = same_iteration && start != kNoId && loop_in(at.loop, start) &&
                          !a.block_uniformity.loop_divergent(at.loop) && loop_in(at.loop, p.inst) &&
                          loop_in(at.loop, q.inst) && c1 == c2;
      // A count that neither a guard nor (differently) an address uses needs no variable. The
      // one count of both threads keeps it for its guards: `if (i == tid)` in `for (i...) {
      // ...; bar.sync; }` lets one thread an iteration through. A count per thread that only a
      // guard uses is dropped with its guard (more pairs, never fewer): a collision is then no
      // proof.
      if ((shared || (c1 == 0 && c2 == 0)) && !in_guard[id]) continue;
      if (!shared && c1 == 0 && c2 == 0) {
        relaxed = true;
        if (why.empty()) why = "it runs only where a condition on " + ai.atom_name(id) + " holds";
        continue;
      }
      counters = true;
      if (why.empty()) why = "it depends on " + ai.atom_name(id);
      if (shared) { // one count in both threads: the address terms cancel
        var1[id] = var2[id] = static_cast<std::int32_t>(vars.size());
        count_vars.push_back(static_cast<std::uint32_t>(vars.size()));
        vars.push_back({0, 0, 0, -1, false});
        continue;
      }
      if (c1 == c2 && !in_guard[id] && at.stride_dim < 0) {
        // Used alike by both and in no condition: only k1 - k2 matters, one variable widened
        // to both signs.
        (at.step_atom != kNoId ? signed_counts : diff_counters)
            .push_back(static_cast<std::uint32_t>(vars.size()));
        vars.push_back({0, 0, c1, -1, false});
        continue;
      }
      // The count per thread: 0 for a certain collision; the search widens it below.
      if (at.stride_dim < 0) {
        auto& widen = at.step_atom != kNoId ? signed_counts : count_vars;
        var1[id] = static_cast<std::int32_t>(vars.size());
        widen.push_back(static_cast<std::uint32_t>(vars.size()));
        vars.push_back({0, 0, c1, -1, false});
        var2[id] = static_cast<std::int32_t>(vars.size());
        widen.push_back(static_cast<std::uint32_t>(vars.size()));
        vars.push_back({0, 0, -c2, -1, false});
      } else {
        if (c1 != 0)
          count_vars.push_back(static_cast<std::uint32_t>(vars.size())),
              vars.push_back({0, 0, c1, -1, false});
        if (c2 != 0)
          count_vars.push_back(static_cast<std::uint32_t>(vars.size())),
              vars.push_back({0, 0, -c2, -1, false});
      }
      continue;
    }
    // Uniform values with a range (residues, values bounded at a guard): one variable for both
    // threads; used differently, a collision needs a value the range may over-approximate.
    if (at.uniform && at.kind == AffineAtom::Kind::kOpaque && (d != 0 || in_guard[id])) {
      if (auto r = atom_range(ai, id, ranges)) {
        var1[id] = var2[id] = static_cast<std::int32_t>(vars.size());
        vars.push_back({r->first, r->second, d, -1, false});
        if (d != 0 && at.bound < 0) {
          relaxed = true;
          if (why.empty()) why = "the two addresses use " + ai.atom_name(id) + " differently";
        }
        continue;
      }
    }
    // Symbols and uniform opaque values the same in both threads cancel.
    if (at.uniform && d == 0) continue;
    if (c1 == 0 && c2 == 0) continue; // only in a guard, not modelled: the guard is dropped
    if (auto range = !at.uniform ? clamp_range(ai, id) : std::nullopt) {
      if (c1 != 0) vars.push_back({range->first, range->second, c1, -1, false});
      if (c2 != 0) vars.push_back({range->first, range->second, -c2, -1, false});
      relaxed = true;
      if (why.empty()) why = "an address depends on " + ai.atom_name(id);
      continue;
    }
    g = std::gcd(g, std::abs(at.uniform ? d : (c1 != 0 ? c1 : c2)));
    if (!at.uniform && c1 != 0 && c2 != 0) g = std::gcd(g, std::abs(c2));
    if (why.empty()) {
      why = at.uniform ? "the two addresses use " + ai.atom_name(id) + " differently"
                       : "an address depends on " + ai.atom_name(id);
      uniform_why = at.uniform;
    }
  }
  std::vector<SearchConstraint> cons;
  for (int side = 0; side < 2; ++side) {
    const auto& map = side == 0 ? var1 : var2;
    auto add = [&](SearchConstraint c) {
      for (auto& [v, k] : c.terms) {
        if (map[v] < 0) return; // an atom without a variable: the condition is dropped
        v = static_cast<std::uint32_t>(map[v]);
      }
      cons.push_back(std::move(c));
    };
    for (const SearchConstraint& c : (side == 0 ? p : q).guard)
      add(c);
    for (const SearchConstraint& c : defs)
      add(c);
  }
  add_uniform_equalities(ai, p.raw_guard, q.raw_guard, var1, var2, cons);
  if (pairing == Pairing::kOneWarp) same_warp(ai, fields, var1, var2, cons);
  if (g != 0) {
    // Opaque terms: only a gcd test. The rest of the sum ranges over the thread fields.
    for (const SearchVar& v : vars)
      if (v.coef != 0 && v.hi > v.lo) g = std::gcd(g, std::abs(v.coef));
    std::int64_t c = diff.constant;
    for (const SearchVar& v : vars)
      if (v.hi == v.lo) c += v.coef * v.lo;
    // sum in [lo, hi] - c must contain a multiple of g.
    const std::int64_t l = lo - c, h = hi - c;
    const std::int64_t first = l >= 0 ? (l + g - 1) / g * g : -((-l) / g * g);
    if (first > h) return {};
    return undecided_because(why, uniform_why ? Cause::kUniform : Cause::kAddress);
  }
  const std::int64_t L = lo - diff.constant, H = hi - diff.constant;
  SearchResult r = searches.find(vars, cons, L, H, other_warp);
  if (r.exhausted)
    return undecided_because("the search for two colliding threads ran out of budget",
                             Cause::kBudget);
  if (r.found && relaxed) return undecided_because(why, Cause::kAddress);
  if (r.found) {
    // Without .reqntid the block's shape is not known (kernels written for 16x16 blocks index
    // shared memory by tid.y * 16 + tid.x): a collision is a warning naming the threads, unless
    // threads 0 and 1 of a one-dimensional kernel collide: every block of two threads or more
    // has them (a kernel that reads %tid.x is not launched one thread a block).
    Verdict v;
    v.kind = ai.exact_shape() ? Verdict::Kind::kCertain : Verdict::Kind::kShape;
    if (v.kind == Verdict::Kind::kShape && !strided && ai.one_dimensional()) {
      std::vector<SearchVar> first_two = vars;
      for (std::uint32_t id = 0; id < fields; ++id)
        for (const std::int32_t k : {var1[id], var2[id]})
          if (k >= 0) {
            SearchVar& x = first_two[static_cast<std::size_t>(k)];
            x.hi = ai.atom(id).dim == 0 && ai.atom(id).shift == 0 ? std::min<std::int64_t>(x.hi, 1)
                                                                  : 0;
          }
      SearchResult two = searches.find(first_two, cons, L, H, other_warp);
      if (two.found) {
        v.kind = Verdict::Kind::kCertain;
        v.any_block = true;
        r = std::move(two);
      }
    }
    v.detail = thread_text(ai, r.values, var2);
    v.other = thread_text(ai, r.values, var1);
    if (strided) // tid.x is part of the block-stride index
      v.other =
          "(index " + std::to_string(r.values[0]) + " of a block-stride loop apart) " + v.other;
    v.values = std::move(r.values);
    v.var1 = std::move(var1);
    v.var2 = std::move(var2);
    return v;
  }
  if (!counters) return {};
  for (std::uint32_t k : count_vars)
    vars[k].hi = kMaxCount;
  for (std::uint32_t k : diff_counters)
    vars[k].lo = -kMaxCount, vars[k].hi = kMaxCount;
  for (std::uint32_t k : signed_counts)
    vars[k].lo = -kVMax, vars[k].hi = kVMax;
  r = searches.find(vars, cons, L, H, other_warp);
  if (r.found) {
    // Without a launch bound in x the witness may need a larger block than the kernel is ever
    // launched with: say what would decide it.
    const std::string bound =
        ai.bounded(0)
            ? ""
            : "; no launch bound (.maxntid, .reqntid or --block-dim) rules that block out";
    return undecided_because(why + " (threads " + thread_text(ai, r.values, var1) + " and " +
                                 thread_text(ai, r.values, var2) + " at later iterations" + bound +
                                 ")",
                             Cause::kLoop);
  }
  if (r.exhausted) return undecided_because(why, Cause::kLoop);
  return {};
}

// A plain store of a value that is the same in every thread of the block (an immediate, or a
// block-uniform register): `p = A;` run by every thread.
bool stores_uniform_value(const FunctionAnalysis& a, const Access& x) {
  const Instruction& in = a.ir.inst(x.inst);
  if (in.op != Opcode::kSt || in.operands.size() != 2) return false;
  const Operand& v = in.operands[1];
  if (v.kind == OperandKind::kImmInt) return true;
  if (v.kind != OperandKind::kRegister) return false;
  const ValueId val = a.values.value_of(x.inst, 1);
  // A value nothing defines (an uninitialized register) is not known to be anything.
  return val != kNoId && a.values.defining_instruction(val) != kNoId &&
         a.block_uniformity.is_uniform(val);
}

// The value a plain store writes, as a form over the witness thread's fields, or nullopt when it
// is not one (a vector, a float, a loaded value...). `map` gives each atom's search variable.
// The stored register of store i converted from an integer that the float holds exactly
// (`st [p], cvt.rn.f32.u32(tid)`): that integer's form, so two threads' values compare as
// integers (an exact conversion maps different integers to different floats). Only a form of
// thread fields and a constant: its magnitude must stay below 2^24 (f32), 2^11 (f16) or 2^53
// (f64); a block-uniform term of unknown size could round two integers to one float.
std::optional<AffineForm> exactly_converted_integer(AffineIndex& ai, const FunctionAnalysis& a,
                                                    InstId i) {
  const ValueId v = a.values.value_of(i, 1);
  const InstId d = v == kNoId ? kNoId : a.values.defining_instruction(v);
  if (d == kNoId) return std::nullopt;
  const Instruction& cvt = a.ir.inst(d);
  if (cvt.op != Opcode::kCvt || cvt.operands.size() != 2 ||
      cvt.operands[1].kind != OperandKind::kRegister)
    return std::nullopt;
  std::vector<ScalarType> types;
  for (std::string_view m : cvt.modifiers)
    if (ScalarType t = isa::type_from_spelling(m); t != ScalarType::kUnknown) types.push_back(t);
  if (types.size() != 2 || (isa::kind(types[1]) != isa::TypeKind::kUnsigned &&
                            isa::kind(types[1]) != isa::TypeKind::kSigned))
    return std::nullopt;
  std::int64_t limit = 0;
  if (types[0] == ScalarType::kF32) limit = std::int64_t{1} << 24;
  if (types[0] == ScalarType::kF16) limit = std::int64_t{1} << 11;
  if (types[0] == ScalarType::kF64) limit = std::int64_t{1} << 53;
  if (limit == 0) return std::nullopt;
  AffineForm f = ai.operand(d, 1);
  std::int64_t m = std::abs(f.constant);
  for (const AffineTerm& t : f.terms) {
    const AffineAtom& at = ai.atom(t.atom);
    if (at.kind != AffineAtom::Kind::kTidField || at.hi < 0) return std::nullopt;
    m += std::abs(t.coef) * at.hi;
  }
  if (m >= limit) return std::nullopt;
  return f;
}

std::optional<std::int64_t> stored_value(AffineIndex& ai, const FunctionAnalysis& a,
                                         const Instruction& in, InstId i,
                                         const std::vector<std::int64_t>& x,
                                         const std::vector<std::int32_t>& map,
                                         std::vector<AffineTerm>& uniform) {
  if (in.op != Opcode::kSt || in.operands.size() != 2) return std::nullopt;
  const OperandKind k = in.operands[1].kind;
  if (k != OperandKind::kRegister && k != OperandKind::kImmInt) return std::nullopt;
  AffineForm f = ai.operand(i, 1);
  if (auto exact = exactly_converted_integer(ai, a, i)) f = std::move(*exact);
  std::int64_t v = f.constant;
  for (const AffineTerm& t : f.terms) {
    const AffineAtom& at = ai.atom(t.atom);
    if (at.kind == AffineAtom::Kind::kTidField && map[t.atom] >= 0)
      v += t.coef * x[static_cast<std::size_t>(map[t.atom])];
    else if (at.uniform && at.kind != AffineAtom::Kind::kCounter)
      uniform.push_back(t);
    else
      return std::nullopt;
  }
  return v;
}

// Two plain writes of one collision: do the two threads store the same value? true / false /
// nullopt (not known). GPUVerify calls equal-value writes benign; the PTX memory model still
// calls them a data race, so they stay findings, as warnings.
std::optional<bool> same_value(AffineIndex& ai, const FunctionAnalysis& a, const Access& p,
                               const Access& q, const Verdict& v) {
  std::vector<AffineTerm> up, uq;
  if (stores_uniform_value(a, p) && stores_uniform_value(a, q) &&
      a.values.value_of(p.inst, 1) == a.values.value_of(q.inst, 1) &&
      a.ir.inst(p.inst).operands[1].kind == OperandKind::kRegister)
    return true;
  auto x = stored_value(ai, a, a.ir.inst(p.inst), p.inst, v.values, v.var1, up);
  auto y = stored_value(ai, a, a.ir.inst(q.inst), q.inst, v.values, v.var2, uq);
  if (!x || !y) return std::nullopt;
  if (up != uq) return std::nullopt;
  return *x == *y;
}

// Barrier-free paths. Two threads are at p and at q in one barrier interval only if one path
// from the interval's start reaches both without a barrier between them (p then q, or q then p),
// or a branch that is not block-uniform sends one thread towards p and another towards q. When a
// block-uniform branch alone separates them (`if (flag) { st; bar.sync; } ld;` with a uniform
// flag), every thread of the block takes the same side, and they never meet. `same_iteration`:
// paths that take no loop back edge (both threads in one iteration; across iterations a meeting
// may need a condition to change between iterations, which is not modelled).
class Meeting {
public:
  Meeting(const FunctionAnalysis& a, const std::vector<std::uint32_t>& boundary,
          UniformRanges& ranges)
      : a_(a), boundary_(boundary), first_only_(a.cfg.size(), kNoId) {
    find_first_iteration_blocks(ranges);
  }

  // i runs only in the first iteration of some loop.
  bool first_iteration_only(InstId i) const { return first_only_[a_.cfg.block_of(i)] != kNoId; }

  bool may_meet(InstId start, InstId p, InstId q, bool same_iteration) {
    fwd_only_ = same_iteration;
    if (p == q || reaches(p, q) || reaches(q, p)) return true;
    const Back& to_p = back(p); // std::map: references stay valid
    const Back& to_q = back(q);
    const std::vector<std::uint8_t> from = forward(start);
    for (BlockId b = 0; b < a_.cfg.size(); ++b) {
      const InstId t = a_.cfg.terminator(b);
      const auto& succs = a_.cfg.block(b).succs;
      if (!from[b] || t == kNoId || succs.size() != 2 || a_.ir.info(t).guard == kNoId) continue;
      const ValueId g = a_.values.guard_value(t);
      if (g != kNoId && a_.block_uniformity.is_uniform(g)) continue;
      if ((via(to_p, b, succs[0]) && via(to_q, b, succs[1])) ||
          (via(to_p, b, succs[1]) && via(to_q, b, succs[0])))
        return true;
    }
    return false;
  }

private:
  bool barrier_in(InstId from, InstId to) const { // [from, to)
    for (InstId i = from; i < to; ++i)
      if (boundary_[i] != kNoId) return true;
    return false;
  }
  bool edge(BlockId from, BlockId to) const {
    return !fwd_only_ || !a_.loops.is_back_edge(from, to);
  }
  // p then q on one barrier-free path.
  bool reaches(InstId p, InstId q) {
    const BlockId bp = a_.cfg.block_of(p), bq = a_.cfg.block_of(q);
    if (bp == bq && p < q && !barrier_in(p, q)) return true;
    if (barrier_in(p + 1, a_.cfg.block(bp).end)) return false;
    const Back& to_q = back(q);
    for (BlockId s : a_.cfg.block(bp).succs)
      if (via(to_q, bp, s) && edge(bp, s)) return true;
    return false;
  }
  // The blocks from whose start an instruction is reached without a barrier, per state of the
  // walk (bit 0: state 0, bit 1: state 1; see back()).
  struct Back {
    std::vector<std::uint8_t> in;
    LoopId loop = kNoId;
  };
  // `to` is in `r` and the edge from -> to may start that path (a back edge of the loop whose
  // first iteration the instruction needs leads only to state 1).
  bool via(const Back& r, BlockId from, BlockId to) const {
    if (r.in[to] & 2) return true;
    if (!(r.in[to] & 1)) return false;
    return r.loop == kNoId ||
           !(a_.loops.is_back_edge(from, to) && to == a_.loops.loop(r.loop).header);
  }
  // Blocks from whose start `i` is reached without a barrier. When i runs only in the first
  // iteration of loop L (first_only_), a path to it that stays in L since it last entered L
  // takes no back edge of L: the search walks back in two states, 0 (inside L since the last
  // entry: L's back edges are closed) and 1 (before that entry: every edge).
  const Back& back(InstId i) {
    auto& cache = back_[fwd_only_];
    auto it = cache.find(i);
    if (it != cache.end()) return it->second;
    const std::size_t n = a_.cfg.size();
    const BlockId bi = a_.cfg.block_of(i);
    const LoopId l = fwd_only_ ? kNoId : first_only_[bi];
    std::vector<std::uint8_t> in(2 * n, 0); // [state * n + block]
    std::vector<std::pair<BlockId, int>> work;
    const int s0 = l == kNoId ? 1 : 0;
    if (!barrier_in(a_.cfg.block(bi).begin, i)) in[s0 * n + bi] = 1, work.push_back({bi, s0});
    while (!work.empty()) {
      const auto [b, st] = work.back();
      work.pop_back();
      for (BlockId pr : a_.cfg.block(b).preds) {
        if (!edge(pr, b) || barrier_in(a_.cfg.block(pr).begin, a_.cfg.block(pr).end)) continue;
        int ns = st;
        if (st == 0) {
          if (a_.loops.is_back_edge(pr, b) && b == a_.loops.loop(l).header) continue;
          if (!a_.loops.contains(l, pr)) ns = 1; // L's entry edge, walked back
        }
        if (!in[ns * n + pr]) in[ns * n + pr] = 1, work.push_back({pr, ns});
      }
    }
    Back out{std::vector<std::uint8_t>(n, 0), l};
    for (std::size_t b = 0; b < n; ++b)
      out.in[b] = static_cast<std::uint8_t>(in[b] | (in[n + b] << 1));
    return cache.emplace(i, std::move(out)).first->second;
  }

  // Blocks of a loop L entered only through an edge on which a header phi of L still equals
  // its value on entry to L (`if (i == i0)`, i stepping by a non-zero amount each iteration):
  // they run only in L's first iteration, and so do the blocks of L they dominate.
  void find_first_iteration_blocks(UniformRanges& ranges) {
    const ValueNumbering& vn = a_.values;
    for (BlockId s = 0; s < a_.cfg.size(); ++s) {
      const auto& preds = a_.cfg.block(s).preds;
      if (preds.size() != 1) continue;
      const BlockId d = preds[0];
      const InstId t = a_.cfg.terminator(d);
      if (t == kNoId || a_.ir.info(t).guard == kNoId ||
          a_.ir.info(t).control != ControlKind::kBranch || a_.cfg.block(d).succs.size() != 2)
        continue;
      const ValueId pv = vn.guard_value(t);
      const InstId sd = pv == kNoId ? kNoId : vn.defining_instruction(pv);
      if (sd == kNoId || vn.info(vn.leader(pv)).kind != ValueKind::kDef) continue;
      const Instruction& setp = a_.ir.inst(sd);
      const bool eq = setp.has_modifier("eq"), ne = setp.has_modifier("ne");
      if (setp.op != Opcode::kSetp || setp.operands.size() != 3 || (!eq && !ne)) continue;
      // The edge d -> s: taken branch (s is not the fall-through) when the guard holds.
      const bool taken = s != d + 1;
      const bool pred_holds = taken != a_.ir.info(t).guard_negated;
      if (pred_holds != eq) continue; // on this edge the two operands are not known equal
      const ValueId x = vn.value_of(sd, 1), y = vn.value_of(sd, 2);
      if (x == kNoId || y == kNoId) continue;
      for (const auto& [phi, init] : {std::pair{x, y}, std::pair{y, x}}) {
        const ValueInfo& info = vn.info(vn.leader(phi));
        if (info.kind != ValueKind::kPhi) continue;
        const LoopId l = a_.loops.loop_with_header(info.block);
        if (l == kNoId || !a_.loops.contains(l, s)) continue;
        const auto lc = vn.loop_carried(vn.leader(phi), a_.loops);
        if (lc.initial.size() != 1 || lc.updated.size() != 1 ||
            vn.leader(lc.initial[0]) != vn.leader(init))
          continue;
        if (!steps(lc.updated[0], vn.leader(phi), l, ranges)) continue;
        for (BlockId b : a_.loops.loop(l).blocks)
          if (a_.dom.dominates(s, b)) first_only_[b] = l;
      }
    }
  }

  // `updated = phi + step` with a step that is never 0 (a non-zero immediate, or a value
  // computed before the loop whose range excludes 0).
  bool steps(ValueId updated, ValueId phi, LoopId l, UniformRanges& ranges) const {
    const ValueNumbering& vn = a_.values;
    const InstId d = vn.defining_instruction(updated);
    if (d == kNoId || vn.info(vn.leader(updated)).kind != ValueKind::kDef) return false;
    const Instruction& in = a_.ir.inst(d);
    if (in.op != Opcode::kAdd || in.operands.size() != 3) return false;
    for (const std::string_view m : in.modifiers)
      if (m == "cc" || m == "sat" || m.starts_with("f")) return false;
    for (std::uint32_t k = 1; k <= 2; ++k) {
      if (vn.value_of(d, k) == kNoId || vn.leader(vn.value_of(d, k)) != phi) continue;
      const Operand& o = in.operands[3 - k];
      if (o.kind == OperandKind::kImmInt) return o.int_value() != 0;
      const ValueId sv = vn.value_of(d, 3 - k);
      const InstId sdef = sv == kNoId ? kNoId : vn.defining_instruction(sv);
      if (sdef == kNoId || a_.loops.contains(l, a_.cfg.block_of(sdef))) return false;
      return ranges.sign(d, 3 - k).has_value();
    }
    return false;
  }
  // Blocks whose terminator is reached from `start` (a boundary, or kNoId: the entry) without
  // another barrier.
  const std::vector<std::uint8_t>& forward(InstId start) {
    auto& cache = fwd_[fwd_only_];
    auto it = cache.find(start);
    if (it != cache.end()) return it->second;
    std::vector<std::uint8_t> out(a_.cfg.size(), 0);
    std::vector<BlockId> work;
    const BlockId b0 = start == kNoId ? a_.cfg.entry() : a_.cfg.block_of(start);
    const InstId from = start == kNoId ? a_.cfg.block(b0).begin : start + 1;
    if (!barrier_in(from, a_.cfg.block(b0).end)) out[b0] = 1, work.push_back(b0);
    while (!work.empty()) {
      const BlockId b = work.back();
      work.pop_back();
      for (BlockId s : a_.cfg.block(b).succs)
        if (!out[s] && edge(b, s) && !barrier_in(a_.cfg.block(s).begin, a_.cfg.block(s).end))
          out[s] = 1, work.push_back(s);
    }
    return cache.emplace(start, std::move(out)).first->second;
  }

  const FunctionAnalysis& a_;
  const std::vector<std::uint32_t>& boundary_;
  bool fwd_only_ = false;
  std::vector<LoopId> first_only_; // per block: the loop it runs only the first iteration of
  std::map<InstId, Back> back_[2];
  std::map<InstId, std::vector<std::uint8_t>> fwd_[2];
};

void SharedRaceRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const AddressProvenance& prov = a.provenance(ctx.module());
  // Boundaries.
  std::vector<std::uint32_t> cta_start(a.ir.size(), kNoId), warp_start(a.ir.size(), kNoId);
  std::vector<InstId> cta_starts{kNoId}, warp_starts{kNoId}, ordering;
  for (InstId i = 0; i < a.ir.size(); ++i) {
    const Instruction& in = a.ir.inst(i);
    if (cta_barrier(in)) {
      cta_start[i] = static_cast<std::uint32_t>(cta_starts.size());
      cta_starts.push_back(i);
    }
    if (cta_barrier(in) || warp_sync(a, i)) {
      warp_start[i] = static_cast<std::uint32_t>(warp_starts.size());
      warp_starts.push_back(i);
    }
    if (orders(in)) ordering.push_back(i);
  }
  // Accesses.
  std::vector<Access> acc;
  for (InstId i = 0; i < a.ir.size(); ++i) {
    if (!a.cfg.reachable(a.cfg.block_of(i))) continue;
    const Instruction& in = a.ir.inst(i);
    if (in.op != Opcode::kLd && in.op != Opcode::kSt && in.op != Opcode::kAtom &&
        in.op != Opcode::kRed)
      continue;
    for (const MemoryOperand& mo : memory_operands(in)) {
      AddrSpace space = mo.space;
      if (space == AddrSpace::kNone) {
        AbsValue v = prov.operand_value(i, mo.operand);
        if (v.kind != AbsValue::Kind::kAddr || !v.generic) continue;
        space = v.space;
      }
      if (space != AddrSpace::kShared && space != AddrSpace::kGlobal) continue;
      if (local_stack_address(a, i, mo.operand)) continue;
      Access x;
      x.inst = i;
      x.space = space;
      x.write = in.op != Opcode::kLd;
      x.strong = strong(in);
      x.lockstep = lockstep_volatile(in);
      x.width = access_width(in);
      if (x.width == 0) continue;
      acc.push_back(std::move(x));
    }
  }
  if (acc.empty()) return;
  bool any_write = false;
  for (const Access& x : acc)
    any_write |= x.write;
  if (!any_write) {
    ctx.add_sites(static_cast<std::uint32_t>(acc.size()));
    return;
  }
  AffineIndex ai(ctx.module(), a);
  UniformRanges uranges(a);
  const auto ncta = static_cast<std::uint32_t>(cta_starts.size());
  const auto nwarp = static_cast<std::uint32_t>(warp_starts.size());
  Phases pc = phases(a, cta_start, ncta, false);
  Phases pf = phases(a, cta_start, ncta, true);
  Phases pw = phases(a, warp_start, nwarp, false);
  std::vector<std::uint8_t> ordered_phase(ncta, 0);
  for (InstId o : ordering)
    for (std::uint32_t s : phase_at(a, pc, cta_start, o))
      ordered_phase[s] = 1;
  // Guards are read without uniform ranges first; a pair that is not decided race-free that way
  // is decided again with them (more constraints only remove collisions, so a pair found
  // race-free without them is race-free with them). `unguarded` keeps what the second reading
  // starts from.
  UniformRanges no_ranges = UniformRanges::none(a);
  FormPairs forms;
  CollisionSearches searches;
  std::vector<std::optional<Access>> unguarded(acc.size());
  auto read_guard = [&](Access& x, UniformRanges& ur) {
    collect_guard(a, ai, ur, x);
    resolve_selects(a, ai, x);
    resolve_clamps(ai, x);
  };
  for (std::size_t k = 0; k < acc.size(); ++k) {
    Access& x = acc[k];
    x.addr = ai.address(x.inst, memory_operands(a.ir.inst(x.inst))[0].operand);
    x.phase = phase_at(a, pc, cta_start, x.inst);
    x.fwd_phase = phase_at(a, pf, cta_start, x.inst);
    x.warp_phase = phase_at(a, pw, warp_start, x.inst);
    Access before = x;
    no_ranges.clear_asked();
    read_guard(x, no_ranges);
    x.form_class = forms.class_of(x.addr);
    if (no_ranges.asked()) {
      x.wants_ranges = true;
      unguarded[k] = std::move(before);
    }
  }
  auto with_ranges = [&](std::size_t k) {
    if (!acc[k].wants_ranges) return;
    Access x = std::move(*unguarded[k]);
    read_guard(x, uranges);
    x.form_class = forms.class_of(x.addr);
    acc[k] = std::move(x);
  };
  ctx.add_sites(static_cast<std::uint32_t>(acc.size()));
  std::vector<std::uint8_t> reported(acc.size(), 0);
  Meeting meeting(a, cta_start, uranges);
  struct Undecided {
    std::uint32_t pairs = 0;
    InstId p = kNoId, q = kNoId;
    std::string why;
  };
  std::array<Undecided, static_cast<std::size_t>(Cause::kCount)> undecided;
  InstId first_undecided = kNoId;
  std::uint32_t pairs = 0;
  bool truncated = false;
  auto kind = [](const Access& x) {
    return std::string(x.lockstep ? "volatile "
                       : x.strong ? "atomic "
                                  : "") +
           (x.write ? "write" : "read");
  };
  for (std::size_t j = 0; j < acc.size() && !truncated; ++j) {
    for (std::size_t i = 0; i <= j; ++i) {
      const Access& p = acc[i];
      const Access& q = acc[j];
      if (reported[j] || p.space != q.space || (!p.write && !q.write)) continue;
      const bool other_warp = !common(p.warp_phase, q.warp_phase).has_value();
      // Two strong accesses never race, but two lockstep-volatile ones of lanes of one warp that
      // no warp sync orders are warp-synchronous code (`s[t] += s[t + 16]`): since sm_70 the
      // lanes run independently and the read may see the write or not.
      const bool lockstep = p.strong && q.strong && p.lockstep && q.lockstep && !other_warp;
      if (p.strong && q.strong && !lockstep) continue;
      auto start = common(p.phase, q.phase);
      if (!start) continue;
      if (++pairs > kMaxPairs) {
        truncated = true;
        break;
      }
      const bool same_iter = common(p.fwd_phase, q.fwd_phase).has_value();
      const Pairing pairing = lockstep     ? Pairing::kOneWarp
                              : other_warp ? Pairing::kOtherWarp
                                           : Pairing::kAny;
      Verdict v = decide(a, ai, p, q, same_iter, pairing, cta_starts[*start], forms, searches);
      if (v.kind != Verdict::Kind::kNone && (p.wants_ranges || q.wants_ranges)) {
        with_ranges(i); // p and q refer to acc[i] and acc[j]: now read with ranges
        with_ranges(j);
        v = decide(a, ai, p, q, same_iter, pairing, cta_starts[*start], forms, searches);
      }
      if (v.kind == Verdict::Kind::kNone) continue;
      // The two threads collide, if they can be at the two accesses in one interval: in one
      // iteration (a finding), or only across iterations (undecided: a loop).
      if ((v.kind == Verdict::Kind::kCertain || v.kind == Verdict::Kind::kShape) &&
          !meeting.may_meet(cta_starts[*start], p.inst, q.inst, true)) {
        if (!meeting.may_meet(cta_starts[*start], p.inst, q.inst, false)) continue;
        v.kind = Verdict::Kind::kUndecided;
        v.cause = Cause::kLoop;
        v.why_atom = kNoId;
        v.detail = "threads " + v.other + " and " + v.detail +
                   " meet only if a condition changes between iterations";
      }
      if (v.kind == Verdict::Kind::kShape && !lockstep) {
        v.kind = Verdict::Kind::kUndecided;
        v.cause = Cause::kShape;
        const std::string cond =
            v.other.starts_with("(index") ? "" : shape_condition(v.other, v.detail);
        v.detail = "threads " + v.other + " and " + v.detail +
                   (cond.empty() ? "" : ": they collide if " + cond);
      }
      // An undecided pair no barrier-free path joins (a block that runs only in a loop's first
      // iteration, before its barrier) needs no decision.
      if (v.kind == Verdict::Kind::kUndecided && v.cause != Cause::kLoop &&
          v.cause != Cause::kShape &&
          (meeting.first_iteration_only(p.inst) || meeting.first_iteration_only(q.inst)) &&
          !meeting.may_meet(cta_starts[*start], p.inst, q.inst, false))
        continue;
      // An undecided lockstep pair is no data race the rule failed to rule out: left out (one
      // that needs a block shape the kernel does not declare is kept).
      if (v.kind == Verdict::Kind::kUndecided && lockstep && v.cause != Cause::kShape) continue;
      if (v.kind == Verdict::Kind::kUndecided) {
        Undecided& u = undecided[static_cast<std::size_t>(v.cause)];
        if (u.pairs++ == 0)
          u.p = p.inst, u.q = q.inst,
          u.why =
              v.why_atom == kNoId ? v.detail : "an address depends on " + ai.atom_name(v.why_atom);
        if (first_undecided == kNoId) first_undecided = q.inst;
        continue;
      }
      // A lockstep pair only where both guards are modelled: a thread the guard would exclude
      // (`if (rank == 0)` over a 3-D rank) is no lane of the pair, and a volatile pair is no data
      // race to warn about on that doubt.
      if (lockstep && (!p.guard_known || !q.guard_known)) continue;
      // A per-pair finding, an error when nothing is missing.
      std::string uncertain;
      std::optional<bool> same;
      if (v.kind == Verdict::Kind::kShape)
        uncertain = "the two lanes exist only in a large enough block, and the kernel declares no "
                    ".reqntid (state the launch's with --block-dim)";
      else if (!p.guard_known)
        uncertain = p.guard_why;
      else if (!q.guard_known)
        uncertain = q.guard_why;
      else if (ordered_phase[*start])
        uncertain = "a fence, acquire/release or mbarrier operation in the interval may order them";
      else if ((other_warp || lockstep) && !ai.warps_follow_x())
        uncertain = "the lanes of one warp are ordered by a warp sync, and the block shape does "
                    "not say which threads share a warp";
      else if (lockstep && before_independent_scheduling(ctx.module()))
        uncertain = "the module targets " + std::string(ctx.module().sm_target()) +
                    ", whose warps run in lockstep; since sm_70 they do not";
      else if (p.write != q.write && stores_uniform_value(a, p.write ? p : q))
        uncertain = "the write stores a value that is the same in every thread: the read sees "
                    "it once any thread has stored it (benign when the reading thread stored it "
                    "first, a data race under the PTX memory model)";
      else if (p.write && q.write && !p.strong && !q.strong &&
               (same = same_value(ai, a, p, q, v)) != std::optional<bool>(false))
        uncertain = same.value_or(false)
                        ? "both threads store the same value (benign on current GPUs, a data "
                          "race under the PTX memory model)"
                        : "two plain writes of values the rule cannot compare (benign only if "
                          "both threads store the same value)";
      const std::string_view space = addr_space_name(p.space);
      const std::string interval = cta_starts[*start] == kNoId
                                       ? "the barrier interval from the kernel's entry"
                                       : "the barrier interval after line " +
                                             std::to_string(a.ir.inst(cta_starts[*start]).loc.line);
      const std::string threads = std::string(" by thread ") + v.detail + " and " + kind(p) +
                                  " (line " + std::to_string(a.ir.inst(p.inst).loc.line) +
                                  ") by thread " + v.other;
      std::string msg;
      const std::string shape =
          v.any_block ? " (in every block of two threads or more: the kernel declares no .reqntid)"
                      : "";
      // .volatile is relaxed in the PTX memory model: no data race, but nothing orders the lanes.
      const std::string what =
          lockstep ? "unordered accesses of one warp's lanes (warp-synchronous code) on "
                   : "data race on ";
      const std::string why_lockstep =
          lockstep ? ": no __syncwarp() (bar.warp.sync) lies between them and since sm_70 the "
                     "lanes of a warp run independently, so the read may see the write or not"
                   : "";
      msg = std::string(uncertain.empty() ? "" : "possible ") + what + std::string(space) +
            " memory: " + kind(q) + threads + " touch the same bytes in " + interval + shape +
            why_lockstep + (uncertain.empty() ? "" : ", not certain: " + uncertain);
      auto f = ctx.report(q.inst, msg);
      if (!uncertain.empty())
        f.assuming("the accesses meet as the message says (" + uncertain + ")",
                   "state the launch and parameters with --block-dim or --contract");
      // The two threads, the same block, and the two accesses as the path.
      Witness w;
      w.block_dim = ctx.function().reqntid();
      auto later = witness_thread(v.detail, kind(q) + " at line " +
                                                std::to_string(a.ir.inst(q.inst).loc.line));
      auto earlier = witness_thread(v.other, kind(p) + " at line " +
                                                 std::to_string(a.ir.inst(p.inst).loc.line));
      if (later && earlier) {
        w.threads = {*earlier, *later};
        w.path = {f.step(p.inst), f.step(q.inst)};
        f.witness(std::move(w));
      }
      if (i != j) f.relate(p.inst, "the other access (" + kind(p) + " by thread " + v.other + ")");
      if (cta_starts[*start] != kNoId) f.relate(cta_starts[*start], "the interval starts here");
      // The interval's end: the next CTA barrier after the later access in its block.
      const BlockId b = a.cfg.block_of(q.inst);
      for (InstId k = q.inst + 1; k < a.cfg.block(b).end; ++k)
        if (cta_start[k] != kNoId) {
          f.relate(k, "the interval ends here");
          break;
        }
      reported[j] = 1;
    }
  }
  // Undecided pairs: one warning for the function, by cause, naming each cause's first pair.
  std::uint32_t total = 0;
  for (const Undecided& u : undecided)
    total += u.pairs;
  if (total == 0 && !truncated) return;
  std::string msg;
  if (total != 0) {
    msg = std::to_string(total) + " pair" + (total == 1 ? "" : "s") +
          " of accesses in one barrier interval could not be decided, so `" +
          std::string(ctx.function().name) + "` is not proven free of data races:";
    bool first = true;
    for (std::size_t c = 0; c < undecided.size(); ++c) {
      const Undecided& u = undecided[c];
      if (u.pairs == 0) continue;
      msg += std::string(first ? " " : "; ") + std::to_string(u.pairs) + " because " +
             kCauseText[c] + " (first: lines " + std::to_string(a.ir.inst(u.p).loc.line) + " and " +
             std::to_string(a.ir.inst(u.q).loc.line) + ", " + u.why + ")";
      first = false;
    }
  }
  if (truncated)
    msg += std::string(msg.empty() ? "" : "; ") + "more than " + std::to_string(kMaxPairs) +
           " pairs of accesses share barrier intervals: the rest are not checked";
  const InstId at = first_undecided != kNoId ? first_undecided : acc.back().inst;
  auto f = ctx.report(at, msg);
  std::string decide;
  for (std::size_t c = 0; c < undecided.size(); ++c)
    if (undecided[c].pairs != 0) decide += std::string(decide.empty() ? "" : "; ") + kDecideText[c];
  if (truncated) decide += std::string(decide.empty() ? "" : "; ") + "split the kernel";
  f.assuming("two of these accesses touch the same bytes in one barrier interval (the rule could "
             "not decide it)",
             decide);
  for (std::size_t c = 0; c < undecided.size(); ++c) {
    const Undecided& u = undecided[c];
    if (u.pairs == 0) continue;
    const std::string note = std::string("first pair undecided because ") + kCauseText[c];
    if (u.q != at) f.relate(u.q, note);
    if (u.p != u.q) f.relate(u.p, u.q == at ? note + " (the other access)" : "its other access");
  }
}

} // namespace

std::unique_ptr<Rule> make_shared_race_rule() {
  return std::make_unique<SharedRaceRule>();
}

} // namespace ptxkit::verifier
