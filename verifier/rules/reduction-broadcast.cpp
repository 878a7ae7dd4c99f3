// reduction-broadcast.cpp: rule `reduction-broadcast`: the result of a `shfl.sync.down`/`up`
// reduction tree is complete only in the owning lane, yet reaches an effect in every lane.
//
// Why: after `x += shfl.down(x, 16) ... x += shfl.down(x, 1)` only lane 0
// holds the warp's sum; lanes 1..31 hold partial sums of their suffix. The batched attention
// kernel used the "sum" in every lane for its softmax and V accumulation until a
// `shfl.sync.idx` from lane 0 was added. Every lane computes plausible numbers, so nothing but
// dataflow sees it.
//
// What it proves. A reduction step is `op y, x, s` (add, mul, min, max, and, or, xor; either
// operand order) where s is `shfl.sync.down` (or `.up`) of the same value x (value numbering:
// the `mov.b32` round trips nvcc and Triton put around shuffles keep identity), or CUB's form
// `shfl.sync.down r|p, x, ...; @p op r, r, x`. A chain of steps whose offsets (immediates, or
// registers holding them) are {1, 2, ..., 2^(k-1)}, k >= 2, in any order (down) or in
// decreasing order (up; increasing `up` offsets are a Kogge-Stone scan, valid in every lane) is
// a reduction tree over groups of G = min(2^k, segment width from the c operand) lanes, owned
// by the group's first lane (down) or last lane (up). For each tree's final value R the rule
// follows what the lanes that are NOT owners see: R, copies and everything computed from it,
// through phis (loop-carried accumulators) and guarded writes, except
//   - `shfl.sync.idx` whose source lane is, in every lane, the owner of the reader's own group
//     (is_broadcast: per bit, from the c operand's segment mask and the known lane/0/1 bits of
//     the source: `lane & ~(G-1)`, `lane | (G-1)` for up, lane 0 of G-lane segments, lane 0 for
//     a whole-warp tree), or a lane-uniform register when every lane reads within its group: a
//     broadcast, complete in every lane. A constant lane for a G < 32 tree read by the whole
//     warp is no broadcast: an error when .reqntid declares more than G threads, a warning
//     naming the assumption when none is declared;
//   - instructions guarded by, and blocks only reached through branch edges whose condition
//     implies, "this lane is an owner": `%laneid`, `%tid.x`, a linear thread id, or such a value
//     masked (`and` with a mask covering G-1, `rem` by a multiple of G) compared `== 0`
//     (`!= 0` on the other edge, `< 1`, `<= 0`; `== G-1`/`== 31` for up), combined with `and`;
//   - memory: a value stored to shared memory by the owner and read back after `bar.sync` is
//     a new value (the shared-memory broadcast).
// An error is reported when that flow reaches a store, atomic or reduction to global, shared
// or generic memory (not the thread's `.local` stack, not `.param`) that is not restricted to
// the owner. The finding sits at the first instruction that reads R (or a copy of it) on such a
// flow — where a broadcast belongs — with the reduction's last step and the store as related
// locations.
//
// A complete `shfl.sync.bfly` reduction is valid in every lane: examined (a site), never
// reported. Sites: every down/up reduction tree and every complete butterfly reduction.
//
// Assumptions: `%tid.x == 0` implies lane 0 when warps are runs of tid.x (`.reqntid` 1-D or
// with ntid.x a multiple of 32, or no .reqntid and no read of %tid.y/%tid.z); with a declared
// ntid.x below 32 only the bits below ntid.x's lowest set bit; a kernel reading %tid.y/%tid.z
// without .reqntid gets a warning where the finding rests on that shape; values spilled to and
// reloaded from memory are not followed (so -G builds are checked less); a partial chain (offsets
// not starting at 1) is not a reduction tree.
//
// How: reduction-broadcast.cpp: the `reduction-broadcast` rule (see the header): recognises
// shfl.down/up reduction trees, then follows what the non-owner lanes compute from the result
// until a broadcast, an owner-only guard, or an unguarded store.
#include "ptxkit/verifier/analysis/memory_access.h"
#include "ptxkit/verifier/analysis/thread_index.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

enum class Mode : std::uint8_t { kNone, kDown, kUp, kBfly, kIdx };

Mode shfl_mode(const Instruction& inst) {
  if (inst.op != Opcode::kShfl) return Mode::kNone;
  if (inst.has_modifier("down")) return Mode::kDown;
  if (inst.has_modifier("up")) return Mode::kUp;
  if (inst.has_modifier("bfly")) return Mode::kBfly;
  if (inst.has_modifier("idx")) return Mode::kIdx;
  return Mode::kNone;
}

// Operand k of i as an integer constant: an immediate, or a register holding one.
std::optional<std::int64_t> const_int(const FunctionAnalysis& a, InstId i, std::uint32_t k) {
  const Instruction& inst = a.ir.inst(i);
  if (k >= inst.operands.size()) return std::nullopt;
  if (inst.operands[k].kind == OperandKind::kImmInt) return inst.operands[k].int_value();
  ValueId v = a.values.value_of(i, k);
  if (v == kNoId) return std::nullopt;
  InstId d = a.values.defining_instruction(v);
  if (d == kNoId || a.ir.info(d).guard != kNoId) return std::nullopt;
  const Instruction& di = a.ir.inst(d);
  if (di.op == Opcode::kMov && di.operands.size() == 2 &&
      di.operands[1].kind == OperandKind::kImmInt)
    return di.operands[1].int_value();
  return std::nullopt;
}

bool is_reduce_op(const Instruction& inst) {
  return isa::has(inst.op, isa::kAssociative) && inst.operands.size() == 3 &&
         !inst.has_modifier("cc");
}

struct Step {
  ValueId x = kNoId; // the value reduced by this step
  std::int64_t offset = 0;
  Mode mode = Mode::kNone;
  std::uint32_t width = 32; // segment width from the shuffle's c operand
  InstId op = kNoId;
};

// The unguarded shuffle whose data result (not its predicate) is v, or kNoId.
InstId shuffle_of(const FunctionAnalysis& a, ValueId v) {
  if (v == kNoId) return kNoId;
  const ValueInfo& x = a.values.info(v);
  if (x.kind != ValueKind::kDef || a.ir.info(x.inst).guard != kNoId) return kNoId;
  if (shfl_mode(a.ir.inst(x.inst)) == Mode::kNone) return kNoId;
  const Mention& m = a.ir.mention(x.mention);
  return m.operand == 0 && m.element == 0 ? x.inst : kNoId;
}

// y = op(x, shfl(x, offset)), or CUB's `@p op r, r, x` after `shfl r|p, x, ...`.
std::optional<Step> step_of(const FunctionAnalysis& a, ValueId y) {
  const ValueNumbering& vn = a.values;
  const ValueInfo& info = vn.info(y);
  InstId op = kNoId;
  if (info.kind == ValueKind::kGuarded && vn.info(info.fresh).kind == ValueKind::kDef)
    op = vn.info(info.fresh).inst;
  else if (info.kind == ValueKind::kDef && a.ir.info(info.inst).guard == kNoId)
    op = info.inst;
  if (op == kNoId || !is_reduce_op(a.ir.inst(op))) return std::nullopt;
  for (std::uint32_t k : {1u, 2u}) {
    InstId s = shuffle_of(a, vn.value_of(op, k));
    ValueId other = vn.value_of(op, 3 - k);
    if (s == kNoId || other == kNoId || vn.value_of(s, 1) != other) continue;
    auto off = const_int(a, s, 2);
    if (!off) return std::nullopt;
    Step st{other, *off, shfl_mode(a.ir.inst(s)), 32, op};
    if (auto c = const_int(a, s, 3)) st.width = 32 - static_cast<std::uint32_t>((*c >> 8) & 31);
    return st;
  }
  return std::nullopt;
}

struct Tree {
  ValueId result = kNoId;
  InstId last_op = kNoId;
  Mode mode = Mode::kNone;
  std::uint32_t group = 32; // lanes per owner
};

// Whether offsets (in execution order) form a tree over 2^k lanes, k >= 2; returns 2^k.
std::optional<std::uint32_t> tree_size(const std::vector<std::int64_t>& offsets, Mode mode) {
  std::uint32_t seen = 0;
  for (std::int64_t o : offsets) {
    if (o <= 0 || o > 16 || (o & (o - 1)) != 0 || (seen & o) != 0) return std::nullopt;
    seen |= static_cast<std::uint32_t>(o);
  }
  if (offsets.size() < 2 || (seen & (seen + 1)) != 0) return std::nullopt; // {1..2^(k-1)}
  if (mode == Mode::kUp)
    for (std::size_t k = 1; k < offsets.size(); ++k)
      if (offsets[k] > offsets[k - 1]) return std::nullopt; // a scan, valid in every lane
  return seen + 1;
}

// "This lane owns the group's result": facts about predicates and the blocks they guard.
class OwnerFacts {
public:
  // `tid_x_bits`: the bits of the lane id that %tid.x equals (31 when warps are runs of tid.x;
  // for a declared 2-D/3-D block with ntid.x < 32, the bits below ntid.x's lowest set bit).
  // `one_group`: assume the block has at most one group's threads (see is_broadcast).
  OwnerFacts(const FunctionAnalysis& a, const Tree& t, std::uint32_t tid_x_bits, bool one_group)
      : a_(a), t_(t), tid_x_bits_(tid_x_bits), one_group_(one_group) {}

  bool one_group() const { return one_group_; }

  bool restricted_inst(InstId i) {
    ValueId g = a_.values.guard_value(i);
    if (g != kNoId && implies(g, !a_.ir.info(i).guard_negated, 0)) return true;
    return restricted_block(a_.cfg.block_of(i));
  }

  bool restricted_block(BlockId b) {
    auto it = block_memo_.find(b);
    if (it != block_memo_.end()) return it->second;
    block_memo_[b] = false; // a cycle through phis proves nothing
    bool r = false;
    BlockId x = b;
    for (int steps = 0; steps < 64 && x != kNoId && !r; ++steps) {
      const auto& preds = a_.cfg.block(x).preds;
      if (preds.size() == 1 && preds[0] != x) r = edge_implies(preds[0], x);
      x = a_.dom.idom(x);
    }
    block_memo_[b] = r;
    return r;
  }

  // Whether `p == holds` implies this lane is an owner.
  bool implies(ValueId p, bool holds, int depth) {
    if (p == kNoId || depth > 6) return false;
    const ValueNumbering& vn = a_.values;
    const ValueInfo& x = vn.info(p);
    if (x.kind != ValueKind::kDef) return false;
    const Instruction& inst = a_.ir.inst(x.inst);
    auto operand_implies = [&](std::uint32_t k, bool h) {
      if (k >= inst.operands.size()) return false;
      return implies(vn.value_of(x.inst, k), inst.operands[k].negated() ? !h : h, depth + 1);
    };
    if (inst.op == Opcode::kAnd && inst.has_modifier("pred"))
      return holds && (operand_implies(1, true) || operand_implies(2, true));
    if (inst.op == Opcode::kOr && inst.has_modifier("pred"))
      return !holds && (operand_implies(1, false) || operand_implies(2, false));
    if (inst.op == Opcode::kNot && inst.has_modifier("pred")) return operand_implies(1, !holds);
    if (inst.op != Opcode::kSetp || inst.operands.size() < 3) return false;
    if (a_.ir.mention(x.mention).element == 1) holds = !holds; // q of `setp p|q`
    // `setp.cmp.and p, a, b, q`: p implies both parts; `.or`: !p implies neither holds.
    if (inst.operands.size() >= 4) {
      bool combine_and = inst.has_modifier("and"), combine_or = inst.has_modifier("or");
      if (combine_and && !holds) return false;
      if (combine_or && holds) return false;
      if ((combine_and || combine_or) && operand_implies(3, holds)) return true;
    }
    return compare_implies(x.inst, holds);
  }

private:
  bool edge_implies(BlockId from, BlockId to) {
    InstId t = a_.cfg.terminator(from);
    if (t == kNoId) return false;
    const InstInfo& info = a_.ir.info(t);
    ValueId g = a_.values.guard_value(t);
    if (g == kNoId) return false;
    bool jumps = false;
    for (const InstId* y = a_.ir.targets_begin(t); y != a_.ir.targets_end(t); ++y)
      jumps = jumps || (*y < a_.ir.size() && a_.cfg.block_of(*y) == to);
    bool falls =
        a_.cfg.block(from).end < a_.ir.size() && a_.cfg.block_of(a_.cfg.block(from).end) == to;
    if (jumps == falls) return false;
    bool branch = info.control == ControlKind::kBranch;
    if (!branch && info.control == ControlKind::kNone) return false;
    bool holds = jumps && branch ? !info.guard_negated : info.guard_negated;
    return implies(g, holds, 0);
  }

  // setp.cmp x, y with result `holds` implies x == c for a lane-derived x: an owner?
  bool compare_implies(InstId s, bool holds) {
    const Instruction& inst = a_.ir.inst(s);
    std::string_view cmp;
    for (std::string_view c : {"eq", "ne", "lt", "lo", "le", "ls", "gt", "hi", "ge", "hs"})
      if (inst.has_modifier(c)) cmp = c;
    std::optional<std::int64_t> c = const_int(a_, s, 2);
    std::uint32_t var = 1;
    if (!c && (cmp == "eq" || cmp == "ne")) {
      c = const_int(a_, s, 1);
      var = 2;
    }
    if (!c) return false;
    std::int64_t eq;
    if ((cmp == "eq" && holds) || (cmp == "ne" && !holds))
      eq = *c;
    else if ((cmp == "lt" || cmp == "lo") && holds && *c == 1)
      eq = 0;
    else if ((cmp == "le" || cmp == "ls") && holds && *c == 0)
      eq = 0;
    else if ((cmp == "ge" || cmp == "hs") && !holds && *c == 1)
      eq = 0;
    else if ((cmp == "gt" || cmp == "hi") && !holds && *c == 0)
      eq = 0;
    else
      return false;
    return equal_implies(a_.values.value_of(s, var), eq, 0);
  }

  // Whether v == eq implies this lane is an owner. A phi needs it of every incoming value that
  // can arrive from a predecessor not already restricted to the owner (nvcc merges `tid.x` with
  // the constant 0 it knows on the thread-0 path).
  bool equal_implies(ValueId v, std::int64_t eq, int depth) {
    if (v == kNoId || depth > 6) return false;
    const ValueNumbering& vn = a_.values;
    if (vn.is_phi(v)) {
      for (const PhiIncoming& in : vn.phi_incoming(v)) {
        if (in.value == v || restricted_block(in.pred)) continue;
        if (!equal_implies(in.value, eq, depth + 1)) return false;
      }
      return true;
    }
    InstId d = vn.defining_instruction(v);
    if (d != kNoId && a_.ir.info(d).guard == kNoId && a_.ir.inst(d).op == Opcode::kMov &&
        a_.ir.inst(d).operands.size() == 2 &&
        a_.ir.inst(d).operands[1].kind == OperandKind::kImmInt)
      return a_.ir.inst(d).operands[1].int_value() != eq; // never equal: vacuous
    std::uint32_t need = t_.group - 1;
    if ((lane_bits(v, 0) & need) != need) return false;
    // Lane 0 is an owner of a down tree whatever the group; the last lane of an up tree.
    std::uint32_t want = t_.mode == Mode::kUp ? need : 0;
    return (static_cast<std::uint32_t>(eq) & need) == want;
  }

public:
  // What is known about the low five bits of an integer value (a lane number): the bits equal to
  // the reading lane's own lane id, and the bits known to be 0 or 1 in every lane.
  struct LaneKnown {
    std::uint32_t lane = 0, zero = 0, one = 0;
  };

  LaneKnown known_bits(ValueId v, int depth = 0) {
    if (v == kNoId || depth > 6) return {};
    InstId d = a_.values.defining_instruction(v);
    if (d == kNoId || a_.ir.info(d).guard != kNoId) return {};
    const Instruction& inst = a_.ir.inst(d);
    if (inst.op == Opcode::kMov && inst.operands.size() == 2) {
      if (inst.operands[1].kind == OperandKind::kImmInt)
        return constant(inst.operands[1].int_value());
      if (inst.operands[1].kind != OperandKind::kSpecialReg) return {};
      std::string_view sr = inst.operands[1].text();
      return {sr == "%laneid" ? 31u : sr == "%tid.x" ? tid_x_bits_ : 0u, 0, 0};
    }
    if (inst.op == Opcode::kCvt) return known_bits(a_.values.value_of(d, 1), depth + 1);
    if ((inst.op == Opcode::kAnd || inst.op == Opcode::kOr) && inst.operands.size() == 3) {
      for (std::uint32_t k : {1u, 2u})
        if (auto c = const_int(a_, d, k)) {
          LaneKnown x = known_bits(a_.values.value_of(d, 3 - k), depth + 1);
          const auto m = static_cast<std::uint32_t>(*c) & 31u;
          if (inst.op == Opcode::kAnd) return {x.lane & m, (x.zero | ~m) & 31u, x.one & m};
          return {x.lane & ~m, x.zero & ~m, (x.one | m) & 31u};
        }
      return {};
    }
    if (inst.op == Opcode::kRem && inst.operands.size() == 3) {
      auto m = const_int(a_, d, 2);
      if (!m || *m <= 0 || (*m & (*m - 1)) != 0) return {};
      const auto low = static_cast<std::uint32_t>(*m - 1) & 31u;
      LaneKnown x = known_bits(a_.values.value_of(d, 1), depth + 1);
      return {x.lane & low, (x.zero | ~low) & 31u, x.one & low};
    }
    // A linear thread id: tid.x plus lane-uniform terms (tid.y * ntid.x, ...): assumed to keep
    // the lane bits (block x-dimension a multiple of 32, or a 1-D block).
    if ((inst.op == Opcode::kAdd || inst.op == Opcode::kMad) && inst.operands.size() >= 3) {
      std::uint32_t best = 0;
      for (std::uint32_t k = 1; k < inst.operands.size(); ++k) {
        std::uint32_t bits = known_bits(a_.values.value_of(d, k), depth + 1).lane;
        if (bits != 0 && inst.op == Opcode::kMad && k != 3) return {};
        best = std::max(best, bits);
      }
      return {best, 0, 0};
    }
    return {};
  }

  static LaneKnown constant(std::int64_t c) {
    const auto u = static_cast<std::uint32_t>(c) & 31u;
    return {0, ~u & 31u, u};
  }

private:
  // Bits of the lane id that v equals (v & bits == laneid & bits), as far as known.
  std::uint32_t lane_bits(ValueId v, int depth) { return known_bits(v, depth).lane; }

  const FunctionAnalysis& a_;
  const Tree& t_;
  std::uint32_t tid_x_bits_;
  bool one_group_;
  std::unordered_map<BlockId, bool> block_memo_;
};

// The lane-id bits %tid.x carries under the declared launch shape (see OwnerFacts); nullopt when
// the function reads %tid.y/%tid.z and declares no .reqntid: then ntid.x may be below 32, and
// `tid.x == 0` holds in more than one lane of a warp.
std::optional<std::uint32_t> tid_x_lane_bits(const FunctionIR& ir) {
  if (analysis::warps_are_tid_x_runs(ir)) return 31u;
  auto req = ir.function().reqntid();
  if (!req) return std::nullopt;
  std::uint32_t low = (*req)[0] & (~(*req)[0] + 1); // lowest set bit of ntid.x
  return std::min<std::uint32_t>(low, 32) - 1;
}

// A store, atomic or reduction into memory other lanes or later kernels can see.
bool is_sink(const FunctionAnalysis& a, InstId i) {
  const Instruction& inst = a.ir.inst(i);
  if (inst.op != Opcode::kSt && inst.op != Opcode::kRed && inst.op != Opcode::kAtom) return false;
  if (inst.has_modifier("local") || inst.has_modifier("param")) return false;
  return !local_stack_address(a, i, 0);
}

class ReductionBroadcastRule final : public Rule {
public:
  std::string_view summary() const override {
    return "a shfl.down/up reduction result, complete only in one lane, is used in every lane";
  }
  void check(RuleContext& ctx) const override;
};

// `shfl.sync.idx` whose source lane, in every lane, is the owner of the reading lane's group:
// the lane j it reads is (laneid & segmask) | (b & ~segmask) (segmask from the c operand), so
// each bit of j below log2(G) must be the owner's (0 for down, 1 for up) and each bit above must
// be the reader's own: `lane & ~(G-1)` after a down tree over G lanes, 0 with a segment of G
// lanes, lane 0 for a whole-warp tree. A lane-uniform source register of unknown value is taken
// as an owner's when every lane reads within its own group (G = 32, or segments of at most G).
// `one_group`: the block has at most G threads (all lanes of one group), so bits above log2(G)
// of every lane id are 0.
bool is_broadcast(const FunctionAnalysis& a, const Tree& t, OwnerFacts& facts, InstId i) {
  const bool one_group = facts.one_group();
  if (shfl_mode(a.ir.inst(i)) != Mode::kIdx) return false;
  const std::uint32_t need = t.group - 1, want = t.mode == Mode::kUp ? need : 0;
  const auto c = const_int(a, i, 3);
  const std::uint32_t segmask = c ? static_cast<std::uint32_t>(*c >> 8) & 31u : 0u;
  const std::uint32_t high = ~need & 31u;  // the group-selecting bits of a lane id
  if ((segmask & need) != 0) return false; // segments smaller than a group: reads a non-owner
  OwnerFacts::LaneKnown b;
  if (auto lane = const_int(a, i, 2)) {
    b = OwnerFacts::constant(*lane);
  } else {
    b = facts.known_bits(a.values.value_of(i, 2));
    if (a.uniformity.operand_uniform(i, 2) && (b.zero | b.one) == 0)
      return (high & ~segmask) == 0 || one_group;
  }
  // Low bits (within the group) from b: the owner's; high bits from the segment or the reader.
  const std::uint32_t low_ok = (b.zero & need & ~want) | (b.one & want);
  const std::uint32_t high_ok = segmask | b.lane | (one_group ? b.zero : 0u);
  return low_ok == need && (high_ok & high) == high;
}

// Whether i is a register copy (`mov`) whose result is the value v.
bool is_copy_of(const FunctionAnalysis& a, InstId i, ValueId v) {
  if (a.ir.inst(i).op != Opcode::kMov) return false;
  const InstInfo& info = a.ir.info(i);
  for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m)
    if (a.ir.mention(m).is_def && a.values.leader(a.values.ssa_def(m)) == v) return true;
  return false;
}

// Follows the non-owner lanes' view of the values in `start`; returns the first unrestricted
// sink reached, or kNoId.
InstId flow_to_sink(const FunctionAnalysis& a, const Tree& t, OwnerFacts& facts,
                    const std::vector<ValueId>& start) {
  const ValueNumbering& vn = a.values;
  std::vector<char> seen(vn.size(), 0);
  std::vector<ValueId> work;
  auto taint = [&](ValueId v) {
    if (v != kNoId && !seen[v]) {
      seen[v] = 1;
      work.push_back(v);
    }
  };
  auto taint_defs = [&](InstId i) {
    const InstInfo& info = a.ir.info(i);
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m)
      if (a.ir.mention(m).is_def) taint(vn.ssa_def(m));
  };
  for (ValueId v : start)
    taint(v);
  while (!work.empty()) {
    ValueId v = work.back();
    work.pop_back();
    for (const ValueUse& u : vn.uses(v)) {
      if (u.inst == kNoId) {
        const ValueInfo& w = vn.info(u.phi);
        if (w.kind == ValueKind::kGuarded) {
          if (w.fresh == v && facts.implies(vn.leader(w.pred), !w.negated, 0)) continue;
          taint(u.phi);
        } else {
          for (const PhiIncoming& in : vn.raw_phi_incoming(u.phi))
            if (in.value == v && !facts.restricted_block(in.pred)) taint(u.phi);
        }
        continue;
      }
      InstId i = u.inst;
      if (facts.restricted_inst(i)) continue;
      if (u.via_guard) {
        taint_defs(i);
        continue;
      }
      if (a.ir.mention(u.mention).operand == 1 && is_broadcast(a, t, facts, i)) continue;
      if (is_sink(a, i)) return i;
      taint_defs(i);
    }
  }
  return kNoId;
}

std::pair<InstId, InstId> find_unbroadcast_use(const FunctionAnalysis& a, const Tree& t,
                                               std::uint32_t tid_x_bits, bool one_group);

// The number of threads a declared .reqntid gives the block, or nullopt.
std::optional<std::uint64_t> declared_threads(const FunctionIR& ir) {
  auto req = ir.function().reqntid();
  if (!req) return std::nullopt;
  return std::uint64_t{(*req)[0]} * (*req)[1] * (*req)[2];
}

void ReductionBroadcastRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const ValueNumbering& vn = a.values;
  // Every reduction step, by its result value (leaders only).
  std::unordered_map<ValueId, Step> steps;
  std::set<ValueId> continued; // values reduced further by another step
  for (ValueId v = 0; v < vn.size(); ++v) {
    if (vn.leader(v) != v) continue;
    const ValueInfo& info = vn.info(v);
    if (info.kind != ValueKind::kDef && info.kind != ValueKind::kGuarded) continue;
    if (!a.cfg.reachable(info.block)) continue;
    if (auto s = step_of(a, v)) {
      steps.emplace(v, *s);
      continued.insert(s->x);
    }
  }
  std::vector<Tree> trees;
  std::uint32_t butterflies = 0;
  for (const auto& [y, s] : steps) {
    if (continued.count(y)) continue;
    std::vector<std::int64_t> offsets; // execution order, built backwards
    ValueId x = y;
    std::uint32_t width = s.width;
    for (int k = 0; k < 8; ++k) {
      auto it = steps.find(x);
      if (it == steps.end() || it->second.mode != s.mode) break;
      offsets.insert(offsets.begin(), it->second.offset);
      width = std::min(width, it->second.width);
      x = it->second.x;
    }
    auto size = tree_size(offsets, s.mode);
    if (!size) continue;
    if (s.mode == Mode::kBfly) {
      ++butterflies;
      continue;
    }
    if (s.mode != Mode::kDown && s.mode != Mode::kUp) continue;
    trees.push_back({y, s.op, s.mode, std::max<std::uint32_t>(2, std::min(*size, width))});
  }
  std::sort(trees.begin(), trees.end(),
            [](const Tree& p, const Tree& q) { return p.last_op < q.last_op; });
  ctx.add_sites(static_cast<std::uint32_t>(trees.size()) + butterflies);

  const std::optional<std::uint32_t> shape_bits = tid_x_lane_bits(a.ir);
  const std::optional<std::uint64_t> threads = declared_threads(a.ir);
  for (const Tree& t : trees) {
    // A block of at most one group's threads has a single group: its owner's result is the
    // block's, whatever lane a broadcast names above the group bits.
    const bool one_group = threads && *threads <= t.group;
    auto [at, sink] = find_unbroadcast_use(a, t, shape_bits.value_or(0), one_group);
    if (at == kNoId) continue;
    // Found only because the block's shape is undeclared: under the 1-D (or ntid.x multiple
    // of 32) shape such kernels are launched with, `tid.x == 0` is lane 0.
    const bool shape_dependent =
        !shape_bits && find_unbroadcast_use(a, t, 31, one_group).first == kNoId;
    // Found only because a broadcast names one group's owner for the whole warp: wrong when
    // the block has more than one group of threads, which only a .reqntid can rule out.
    const bool group_dependent =
        !one_group && t.group < 32 &&
        find_unbroadcast_use(a, t, shape_bits.value_or(0), true).first == kNoId;
    const bool idx_read = shfl_mode(a.ir.inst(at)) == Mode::kIdx;
    const char* dir = t.mode == Mode::kDown ? "down" : "up";
    std::string owner = t.mode == Mode::kDown ? "the first lane" : "the last lane";
    if (t.group == 32) owner = t.mode == Mode::kDown ? "lane 0" : "lane 31";
    std::string msg = "the result of a shfl.sync." + std::string(dir) + " reduction (line " +
                      std::to_string(a.ir.inst(t.last_op).loc.line) + ") is complete only in " +
                      owner +
                      (t.group == 32 ? "" : " of each " + std::to_string(t.group) + "-lane group") +
                      (idx_read ? ", but this shfl.sync.idx reads it from a lane that is not the "
                                  "reading lane's owner (the source lane must be " +
                                      owner + " of the reader's own group, e.g. lane & ~" +
                                      std::to_string(t.group - 1) + ")"
                                : ", but every lane uses it here without a broadcast "
                                  "(shfl.sync.idx from " +
                                      owner + ", or shared memory written by it)");
    if (group_dependent && threads)
      msg += "; every lane reads one group's result as if it were the whole warp's (the block "
             "declares " +
             std::to_string(*threads) + " threads, more than one " + std::to_string(t.group) +
             "-lane group)";
    else if (group_dependent)
      msg += "; every lane reads one group's result as if it were the whole warp's";
    auto f = ctx.report(at, msg);
    if (group_dependent && !threads)
      f.assuming("the block has more than " + std::to_string(t.group) + " threads",
                 "declare .reqntid (or pass --block-dim) to state the block's size");
    if (shape_dependent)
      f.assuming("blockDim.x is not a multiple of 32 (then the owner test on %tid.x selects no "
                 "single lane per warp; the kernel reads %tid.y/%tid.z without a .reqntid)",
                 "declare .reqntid or pass --block-dim");
    f.relate(t.last_op, "the reduction completes here, in " + owner + " only");
    if (sink != at) f.relate(sink, "and reaches this store in every lane");
  }
}

// The first use of tree t's result that lanes other than the owner reach without a broadcast,
// and the store it flows to ({kNoId, kNoId}: none).
std::pair<InstId, InstId> find_unbroadcast_use(const FunctionAnalysis& a, const Tree& t,
                                               std::uint32_t tid_x_bits, bool one_group) {
  const ValueNumbering& vn = a.values;
  {
    OwnerFacts facts(a, t, tid_x_bits, one_group);
    // R and its copies; the instructions that read them (not copies), in source order.
    std::vector<ValueId> copies;
    for (ValueId v = 0; v < vn.size(); ++v)
      if (vn.leader(v) == t.result) copies.push_back(v);
    std::set<InstId> readers;
    for (ValueId v : copies)
      for (const ValueUse& u : vn.uses(v))
        if (u.inst != kNoId && !u.via_guard && !is_copy_of(a, u.inst, t.result))
          readers.insert(u.inst);
    InstId at = kNoId, sink = kNoId;
    for (InstId r : readers) {
      if (facts.restricted_inst(r)) continue;
      if (is_broadcast(a, t, facts, r)) continue;
      if (is_sink(a, r)) {
        at = sink = r;
        break;
      }
      std::vector<ValueId> defs;
      const InstInfo& info = a.ir.info(r);
      for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m)
        if (a.ir.mention(m).is_def) defs.push_back(vn.ssa_def(m));
      if ((sink = flow_to_sink(a, t, facts, defs)) != kNoId) {
        at = r;
        break;
      }
    }
    if (at == kNoId) {
      // Through phis and guarded writes only (no reading instruction on the way).
      if ((sink = flow_to_sink(a, t, facts, copies)) == kNoId) return {kNoId, kNoId};
      at = t.last_op;
    }
    return {at, sink};
  }
}

} // namespace

std::unique_ptr<Rule> make_reduction_broadcast_rule() {
  return std::make_unique<ReductionBroadcastRule>();
}

} // namespace ptxkit::verifier
