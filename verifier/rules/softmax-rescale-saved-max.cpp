// softmax-rescale-saved-max.cpp: rule `softmax-rescale-saved-max`: an online-softmax rescale
// exp((old max − new max)·c) must read the maximum from before the update, not the new one.
//
// Why: in an LLM stack's generated attention kernel, `let old_max = max_score;` aliased a
// register handle, so the in-place update `max.f32 %f8, %f8, %f23` also overwrote the "old"
// maximum and the rescale became `sub.f32 %f27, %f8, %f8` -> ex2(0) == 1.0: the running sum and the
// output accumulators were never brought onto the new maximum's scale, and batched decode emitted
// garbage. Nothing overflows, nothing is NaN; only dataflow can see it.
//
// What it proves, per natural loop L and per loop-header phi φ (the value "before this
// iteration's update") whose back-edge value is a running maximum — a chain of `max` (float
// types) instructions, and phis inside L, over φ and other operands (the scores):
//   - The running-maximum values RM(φ) are φ and every max/phi of that chain that contains φ.
//     Each u ∈ RM other than φ is an update; the values it contains (its operands, recursively,
//     within RM) are the maxima "from before" u. nvcc's unrolled loops chain several updates in
//     one iteration (max1 = max(φ, s1), max2 = max(max1, s2)): each has its own "before".
//   - A rescale site is a difference a − b with b ≡ u ∈ RM \ {φ} (value numbering: copies
//     through `mov` keep their identity) whose result reaches an `ex2` through at most six
//     float arithmetic steps (mul, fma, add, sub, neg, cvt, mov: the `sub; mul log2e; ex2`
//     shape, `sub; ex2` with a pre-scaled score, and nvcc's precise expf expansion). Differences
//     are `sub a, b`, `add a, n` and `fma a, c, n` where n = neg(b), neg(mul(b, c)) or
//     mul(b, −c) (the fma-folded (a−b)·c = fma(a, c, −b·c)).
//   - At each site: if a is the update u itself (the aliased handle's `sub x, m', m'`, a `mov` copy
//   of
//     m', or a register the loop overwrote with m' before the read), it reports an error at the
//     difference. If a is another running maximum, the site is a rescale (a later maximum than
//     u is not reported: exp(new − old) is a valid rescale when divided by). If a is no running
//     maximum (a score: exp(s − m')), the site is the current score's exponent: examined, never
//     reported.
//   - Rescale factors (MaxDependence): any value computed in the loop from exactly two values
//     of the running maximum (before and after an update), through any computation, phis,
//     guarded writes and calls: exp(old - new), exp(-(new - old)), 1/exp(new - old), a select of
//     one (the first iteration's 0), nvcc's accurate expf expansion.
//   - Every state rescaled (StateRescale): each header phi that score exponents reach (sum,
//     accumulators; through shuffles too, not through tensor-core ops, which mix rows) is, in
//     every iteration, moved onto the new maximum's scale: scales are inferred over the values
//     computed from it (a product with a factor moves between its pair, additions must agree, an
//     exponent brings its maximum's scale); a next value not computed from the previous one is a
//     re-initialisation. A state left on the old scale, or mixing scales, is reported at its
//     update; if no state is rescaled and no old-minus-new difference exists, one error at the
//     maximum's update ("nothing rescales"). A stale maximum already reported is not repeated.
// Sites: every difference against a running-maximum update that reaches an ex2. A kernel with no
// loop-carried maximum, or whose maximum feeds no exponent, is not-applicable.
//
// Assumptions: the maximum is computed by `max`, by `setp` + `selp` on the same two values, or by
// `setp` + a guarded `mov` (nvcc's if-converted `if (s > m) m = s;`); a phi across real branches
// is not recognised, so not checked; a rescale is a difference of values,
// not of memory reloads (a maximum spilled to memory and reloaded is a new value: not checked).
//
// How: softmax-rescale-saved-max.cpp: the `softmax-rescale-saved-max` rule (see the header): finds
// loop-carried running maxima, the differences against their updates that feed an exponent, and
// reports those whose minuend is the updated maximum instead of the one from before the update.
#include "ptxkit/verifier/analysis/use_walk.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

bool is_float(const Instruction& inst) {
  for (std::string_view t : {"f32", "f64", "f16", "bf16", "f16x2", "bf16x2"})
    if (inst.has_modifier(t)) return true;
  return false;
}

bool is_float_max(const Instruction& inst) {
  return inst.op == Opcode::kMax && is_float(inst);
}

// `setp` instruction c says x > y (or x >= y): a gt/ge test of (x, y) or a lt/le test of (y, x).
bool says_greater(const FunctionAnalysis& a, InstId c, ValueId x, ValueId y) {
  const Instruction& cmp = a.ir.inst(c);
  if (cmp.op != Opcode::kSetp || cmp.operands.size() != 3) return false;
  const ValueNumbering& vn = a.values;
  ValueId u = vn.value_of(c, 1), v = vn.value_of(c, 2); // kNoId for an immediate
  if (u == kNoId || v == kNoId || x == kNoId || y == kNoId) return false;
  u = vn.leader(u);
  v = vn.leader(v);
  x = vn.leader(x);
  y = vn.leader(y);
  bool gt = cmp.has_modifier("gt") || cmp.has_modifier("ge") || cmp.has_modifier("gtu") ||
            cmp.has_modifier("geu");
  bool lt = cmp.has_modifier("lt") || cmp.has_modifier("le") || cmp.has_modifier("ltu") ||
            cmp.has_modifier("leu");
  return (gt && u == x && v == y) || (lt && u == y && v == x);
}

// `selp.f32 d, x, y, p` with p = (x > y) or (x >= y) (or y < x, y <= x): d = max(x, y), the
// maximum written as a compare and select (`m = s > m ? s : m`).
bool is_select_max(const FunctionAnalysis& a, InstId i) {
  const Instruction& in = a.ir.inst(i);
  if (in.op != Opcode::kSelp || !is_float(in) || in.operands.size() != 4) return false;
  const ValueNumbering& vn = a.values;
  ValueId x = vn.value_of(i, 1), y = vn.value_of(i, 2), p = vn.value_of(i, 3);
  InstId c = p == kNoId ? kNoId : vn.defining_instruction(p);
  if (x == kNoId || y == kNoId || c == kNoId || a.ir.info(i).guard != kNoId) return false;
  return !in.operands[3].negated() && says_greater(a, c, x, y);
}

// The instruction computes a running-maximum step: `max.f32`, or its compare-and-select form.
bool is_max_step(const FunctionAnalysis& a, InstId i) {
  return is_float_max(a.ir.inst(i)) || is_select_max(a, i);
}

// The running maximum of one loop-header phi: the values of the max chain that contain it.
class RunningMax {
public:
  RunningMax(const FunctionAnalysis& a, LoopId loop, ValueId phi) : a_(a), loop_(loop), phi_(phi) {}

  ValueId phi() const { return phi_; }
  // v is φ or an update of the chain that contains φ.
  bool member(ValueId v) { return v != kNoId && (v == phi_ || in_rm(v, 0)); }
  // Whether some back-edge value is a real update (the loop computes a running maximum).
  bool has_update() {
    for (ValueId u : a_.values.loop_carried(phi_, a_.loops).updated)
      if (u != phi_ && member(u)) return true;
    return false;
  }
  // The max instruction that computes update `u` (or kNoId for a phi member).
  InstId update_instruction(ValueId u) const {
    InstId d = a_.values.defining_instruction(u);
    return d != kNoId && is_max_step(a_, d) ? d : kNoId;
  }

private:
  bool in_rm(ValueId v, int depth) {
    if (v == phi_) return true;
    auto it = memo_.find(v);
    if (it != memo_.end()) return it->second == 1;
    if (depth > 64) return false;
    memo_[v] = 0; // visiting: a cycle that does not pass through φ is no running maximum
    const ValueNumbering& vn = a_.values;
    const ValueInfo& x = vn.info(v);
    bool yes = false;
    if (x.kind == ValueKind::kPhi) {
      if (x.block != a_.loops.loop(loop_).header && a_.loops.contains(loop_, x.block)) {
        yes = true;
        for (const PhiIncoming& in : vn.phi_incoming(v))
          yes = yes && (in.value == v || in_rm(in.value, depth + 1));
      }
    } else if (x.kind == ValueKind::kGuarded) {
      yes = in_loop(x.inst) &&
            ((in_rm(vn.leader(x.fresh), depth + 1) && in_rm(vn.leader(x.prior), depth + 1)) ||
             (guarded_max(x) && in_rm(vn.leader(x.prior), depth + 1)));
    } else if (InstId d = vn.defining_instruction(v); d != kNoId) {
      if (is_max_step(a_, d) && in_loop(d)) {
        ValueId a1 = vn.value_of(d, 1), a2 = vn.value_of(d, 2);
        yes = (a1 != kNoId && in_rm(a1, depth + 1)) || (a2 != kNoId && in_rm(a2, depth + 1));
      }
    }
    memo_[v] = yes ? 1 : 0;
    return yes;
  }

  bool in_loop(InstId i) const { return a_.loops.contains(loop_, a_.cfg.block_of(i)); }

  // `@p mov.f32 %m, %s` with p = (s > m) (or m < s; `@!p` with the opposite test): the branchy
  // `if (s > m) m = s;` that nvcc if-converts. The new value is max(s, m).
  bool guarded_max(const ValueInfo& x) const {
    const Instruction& w = a_.ir.inst(x.inst);
    InstId c = x.pred == kNoId ? kNoId : a_.values.defining_instruction(x.pred);
    if (w.op != Opcode::kMov || c == kNoId || x.fresh == kNoId || x.prior == kNoId) return false;
    // `@p`: p must say s > m; `@!p`: p must say m > s.
    return x.negated ? says_greater(a_, c, x.prior, x.fresh)
                     : says_greater(a_, c, x.fresh, x.prior);
  }

  const FunctionAnalysis& a_;
  LoopId loop_;
  ValueId phi_;
  std::unordered_map<ValueId, char> memo_;
};

// Operand `k` of `i` as a comparable key: the value (leader) of a register, or the bit
// pattern of a float immediate.
struct Coeff {
  ValueId value = kNoId;
  std::optional<double> imm;
};

Coeff coeff_of(const FunctionAnalysis& a, InstId i, std::uint32_t k) {
  Coeff c;
  const Operand& op = a.ir.inst(i).operands[k];
  if (op.kind == OperandKind::kImmFloat)
    c.imm = op.float_value();
  else
    c.value = a.values.value_of(i, k);
  // A register holding an immediate (`mov.f32 %f44, 0f3BBB989D`) compares as the immediate.
  if (c.value != kNoId && !c.imm) {
    InstId d = a.values.defining_instruction(c.value);
    if (d != kNoId && a.ir.inst(d).op == Opcode::kMov && a.ir.info(d).guard == kNoId &&
        a.ir.inst(d).operands.size() == 2 &&
        a.ir.inst(d).operands[1].kind == OperandKind::kImmFloat)
      c.imm = a.ir.inst(d).operands[1].float_value();
  }
  return c;
}

bool same_coeff(const Coeff& x, const Coeff& y) {
  if (x.imm && y.imm) return *x.imm == *y.imm;
  return x.value != kNoId && x.value == y.value;
}

bool negated_coeff(const Coeff& x, const Coeff& y) {
  return x.imm && y.imm && *x.imm == -*y.imm;
}

// The instruction defining operand k's value, with its opcode, or kNoId.
InstId def_with(const FunctionAnalysis& a, InstId i, std::uint32_t k, Opcode opcode) {
  ValueId v = a.values.value_of(i, k);
  if (v == kNoId) return kNoId;
  InstId d = a.values.defining_instruction(v);
  if (d == kNoId || a.ir.info(d).guard != kNoId || a.ir.inst(d).op != opcode) return kNoId;
  return d;
}

struct Difference {
  ValueId a = kNoId; // minuend
  ValueId b = kNoId; // subtrahend
};

// The differences a − b that instruction i computes (possibly scaled: (a − b)·c).
std::vector<Difference> differences(const FunctionAnalysis& a, InstId i) {
  std::vector<Difference> out;
  const Instruction& inst = a.ir.inst(i);
  if (!is_float(inst) || a.ir.info(i).guard != kNoId) return out;
  const ValueNumbering& vn = a.values;
  const auto n_ops = inst.operands.size();
  if (inst.op == Opcode::kSub && n_ops == 3) {
    out.push_back({vn.value_of(i, 1), vn.value_of(i, 2)});
    // a·c − b·c
    InstId m1 = def_with(a, i, 1, Opcode::kMul), m2 = def_with(a, i, 2, Opcode::kMul);
    if (m1 != kNoId && m2 != kNoId) {
      for (std::uint32_t k : {1u, 2u})
        for (std::uint32_t l : {1u, 2u})
          if (same_coeff(coeff_of(a, m1, 3 - k), coeff_of(a, m2, 3 - l)))
            out.push_back({vn.value_of(m1, k), vn.value_of(m2, l)});
    }
  } else if (inst.op == Opcode::kAdd && n_ops == 3) {
    for (std::uint32_t k : {1u, 2u})
      if (InstId n = def_with(a, i, k, Opcode::kNeg); n != kNoId)
        out.push_back({vn.value_of(i, 3 - k), vn.value_of(n, 1)});
  } else if ((inst.op == Opcode::kFma || inst.op == Opcode::kMad) && n_ops == 4) {
    // fma(x, y, n) = x·y + n with n the negated, scaled subtrahend.
    Coeff x = coeff_of(a, i, 1), y = coeff_of(a, i, 2);
    if (InstId n = def_with(a, i, 3, Opcode::kNeg); n != kNoId) {
      if (InstId m = def_with(a, n, 1, Opcode::kMul); m != kNoId) {
        Coeff m1 = coeff_of(a, m, 1), m2 = coeff_of(a, m, 2);
        if (same_coeff(m2, y)) out.push_back({vn.value_of(i, 1), vn.value_of(m, 1)});
        if (same_coeff(m1, y)) out.push_back({vn.value_of(i, 1), vn.value_of(m, 2)});
        if (same_coeff(m2, x)) out.push_back({vn.value_of(i, 2), vn.value_of(m, 1)});
        if (same_coeff(m1, x)) out.push_back({vn.value_of(i, 2), vn.value_of(m, 2)});
      }
      ValueId b = vn.value_of(n, 1);
      out.push_back({vn.value_of(i, 1), b});
      out.push_back({vn.value_of(i, 2), b});
    }
    if (InstId m = def_with(a, i, 3, Opcode::kMul); m != kNoId) {
      Coeff m1 = coeff_of(a, m, 1), m2 = coeff_of(a, m, 2);
      if (negated_coeff(m2, y)) out.push_back({vn.value_of(i, 1), vn.value_of(m, 1)});
      if (negated_coeff(m1, y)) out.push_back({vn.value_of(i, 1), vn.value_of(m, 2)});
      if (negated_coeff(m2, x)) out.push_back({vn.value_of(i, 2), vn.value_of(m, 1)});
      if (negated_coeff(m1, x)) out.push_back({vn.value_of(i, 2), vn.value_of(m, 2)});
    }
  }
  out.erase(
      std::remove_if(out.begin(), out.end(), [](const Difference& d) { return d.b == kNoId; }),
      out.end());
  return out;
}

// Whether op is one of `ops`.
template <std::size_t N>
bool one_of(Opcode op, const Opcode (&ops)[N]) {
  return std::find(std::begin(ops), std::end(ops), op) != std::end(ops);
}

// The `ex2` that the result of i reaches through at most six float arithmetic steps, or kNoId.
InstId reaches_ex2(const FunctionAnalysis& a, InstId i) {
  static constexpr Opcode kThrough[] = {Opcode::kMul, Opcode::kFma, Opcode::kMad,
                                        Opcode::kAdd, Opcode::kSub, Opcode::kNeg,
                                        Opcode::kCvt, Opcode::kMov, Opcode::kAbs};
  InstId found = kNoId;
  walk_uses(a, i, [&](const ValueUse& u, int depth) {
    if (u.inst == kNoId || u.via_guard) return WalkStep::kSkip;
    const Opcode op = a.ir.inst(u.inst).op;
    if (op == Opcode::kEx2) {
      found = u.inst;
      return WalkStep::kStop;
    }
    return depth < 6 && one_of(op, kThrough) ? WalkStep::kFollow : WalkStep::kSkip;
  });
  return found;
}

// The maximum a guarded form stands for: `selp m_safe, 0, m, p` (softmax kernels replace a
// −inf maximum by 0 before subtracting it) stands for m.
ValueId strip_safe_select(const FunctionAnalysis& a, ValueId v) {
  if (v == kNoId) return v;
  InstId d = a.values.defining_instruction(v);
  if (d == kNoId || a.ir.info(d).guard != kNoId) return v;
  const Instruction& inst = a.ir.inst(d);
  if (inst.op != Opcode::kSelp || inst.operands.size() != 4) return v;
  bool imm1 = inst.operands[1].kind == OperandKind::kImmFloat;
  bool imm2 = inst.operands[2].kind == OperandKind::kImmFloat;
  if (imm1 == imm2) return v;
  ValueId m = a.values.value_of(d, imm1 ? 2 : 1);
  return m == kNoId ? v : m;
}

// The header phis of `loop` whose back-edge value the result of `ex2` reaches through at most
// 24 arithmetic steps (a warp's butterfly sum takes 15): the accumulators (running sum, output
// accumulators) it feeds.
std::set<ValueId> accumulators_fed(const FunctionAnalysis& a, LoopId loop, InstId ex2) {
  // Warp-reduced sums come back through shuffles. (Not through the tensor cores: a wgmma/mma
  // makes every output register depend on every input one, mixing the rows whose maxima differ.)
  static constexpr Opcode kThrough[] = {Opcode::kMul, Opcode::kFma,  Opcode::kMad,
                                        Opcode::kAdd, Opcode::kSub,  Opcode::kMov,
                                        Opcode::kCvt, Opcode::kSelp, Opcode::kShfl};
  const BlockId header = a.loops.loop(loop).header;
  std::set<ValueId> out;
  walk_uses(a, ex2, [&](const ValueUse& u, int depth) {
    if (u.inst == kNoId) {
      const ValueInfo& p = a.values.info(u.phi);
      if (p.kind == ValueKind::kPhi && p.block == header) out.insert(u.phi);
      return WalkStep::kSkip;
    }
    return depth < 24 && one_of(a.ir.inst(u.inst).op, kThrough) ? WalkStep::kFollow
                                                                : WalkStep::kSkip;
  });
  return out;
}

// v is computed from the result of one of the `factors` (rescale ex2s) through at most six
// arithmetic steps (copies, conversions, products, the reciprocal of a division form).
bool derived_from(const FunctionAnalysis& a, ValueId v, const std::set<InstId>& factors,
                  int depth = 0) {
  static constexpr Opcode kThrough[] = {Opcode::kMov, Opcode::kCvt, Opcode::kMul, Opcode::kFma,
                                        Opcode::kMad, Opcode::kAdd, Opcode::kSub, Opcode::kNeg,
                                        Opcode::kRcp, Opcode::kDiv, Opcode::kEx2, Opcode::kSelp};
  InstId d = v == kNoId ? kNoId : a.values.defining_instruction(v);
  if (d == kNoId) return false;
  if (factors.count(d)) return true;
  const Instruction& in = a.ir.inst(d);
  if (depth >= 6 || !one_of(in.op, kThrough)) return false;
  for (std::uint32_t k = 1; k < in.operands.size(); ++k)
    if (in.operands[k].kind == OperandKind::kRegister &&
        derived_from(a, a.values.value_of(d, k), factors, depth + 1))
      return true;
  return false;
}

// The call whose return parameter `ld.param` instruction `load` reads (in the same block), or
// kNoId: `call (retval0), f, (param0, ...)` then `ld.param %f, [retval0]`.
InstId call_returning(const FunctionAnalysis& a, InstId load) {
  const Instruction& ld = a.ir.inst(load);
  if (ld.op != Opcode::kLd || !ld.has_modifier("param") || ld.operands.size() != 2 ||
      ld.operands[1].kind != OperandKind::kAddress || a.ir.info(load).guard != kNoId)
    return kNoId;
  const BlockId b = a.cfg.block_of(load);
  for (InstId j = load; j-- > a.cfg.block(b).begin;) {
    const Instruction& c = a.ir.inst(j);
    if (c.op != Opcode::kCall) continue;
    // call (retvals), name, (params)
    if (c.operands.size() < 3 || c.operands[0].kind != OperandKind::kParenList ||
        c.operands[1].kind != OperandKind::kSymbol || c.operands[2].kind != OperandKind::kParenList)
      return kNoId;
    for (const Operand& r : c.operands[0].elements())
      if (r.text() == ld.operands[1].text()) return j;
    return kNoId;
  }
  return kNoId;
}

// The value last stored into argument parameter `name` before `call` (in its block), or kNoId;
// `text` receives the register as written.
ValueId stored_argument(const FunctionAnalysis& a, InstId call, std::string_view name,
                        std::string* text = nullptr) {
  for (InstId j = call; j-- > a.cfg.block(a.cfg.block_of(call)).begin;) {
    const Instruction& st = a.ir.inst(j);
    if (st.op == Opcode::kSt && st.has_modifier("param") && st.operands.size() == 2 &&
        st.operands[0].kind == OperandKind::kAddress && st.operands[0].text() == name &&
        st.operands[0].address_offset() == 0) {
      if (text) *text = std::string(st.operands[1].text());
      return a.values.value_of(j, 1);
    }
  }
  return kNoId;
}

// Which values of one running maximum a value is computed from. The walk goes back through
// every computation in the loop (arithmetic, conversions, bit operations, selects and their
// predicates, phis, guarded writes, the ex2/expf expansions, and a call's result to the
// arguments it was passed) and stops at the running maximum's own values, at loads (a value
// reloaded from memory is a new value), at other loop-carried states and at the loop's entry.
class MaxDependence {
public:
  MaxDependence(const FunctionAnalysis& a, LoopId loop, RunningMax& rm)
      : a_(a), loop_(loop), rm_(rm) {}

  // The running-maximum values (leaders) v is computed from, at most three.
  const std::vector<ValueId>& maxima(ValueId v) {
    static const std::vector<ValueId> kNone;
    if (v == kNoId) return kNone;
    v = a_.values.leader(v);
    auto it = memo_.find(v);
    if (it != memo_.end()) return it->second;
    return memo_[v] = maxima_reached(v);
  }

  // v is a rescale factor: it is computed from exactly two values of the running maximum (the
  // one before an update and the one after: exp(old - new), its reciprocal, a select of it).
  // exp(m' - m') and exp(old - s) are not.
  bool is_factor(ValueId v) { return maxima(v).size() == 2; }

  // The running-maximum value (leader) an exponent `ex2` is taken against: its argument is a
  // difference x - m (through scalings by constants, negations, conversions: at most six steps)
  // with m a running-maximum value. exp(x - m) is on m's scale whatever x is, even when x is
  // selected from registers that held earlier exponents (nvcc's if-converted register arrays):
  // a difference in the log domain is a new value, not a product. kNoId: no such difference.
  ValueId exponent_scale(InstId ex2) {
    const ValueNumbering& vn = a_.values;
    std::vector<std::pair<ValueId, int>> work;
    vn.for_each_operand_value(ex2, [&](ValueId u) { work.push_back({u, 0}); });
    while (!work.empty()) {
      const auto [v, depth] = work.back();
      work.pop_back();
      const InstId d = v == kNoId ? kNoId : vn.defining_instruction(v);
      if (d == kNoId || depth > 6) continue;
      for (Difference diff : differences(a_, d)) {
        const ValueId m = strip_safe_select(a_, diff.b);
        if (rm_.member(m)) return vn.leader(m);
      }
      const Opcode op = a_.ir.inst(d).op;
      if (op != Opcode::kMul && op != Opcode::kNeg && op != Opcode::kMov && op != Opcode::kCvt &&
          op != Opcode::kFma)
        continue;
      vn.for_each_operand_value(d, [&](ValueId u) { work.push_back({u, depth + 1}); });
    }
    return kNoId;
  }

private:
  std::vector<ValueId> maxima_reached(ValueId root) {
    const ValueNumbering& vn = a_.values;
    // `seen` as one bit per value, not a tree: the walk runs once per value a state's scale
    // inference asks about, up to 1024 values each, on functions of 10^5 values. The bits this
    // walk set (the values in `visited`) are cleared at its end.
    if (seen_.empty()) seen_.assign(vn.size() / 64 + 1, 0);
    auto seen_bit = [&](ValueId l) -> bool { return (seen_[l / 64] >> (l % 64)) & 1; };
    auto mark = [&](ValueId l) {
      seen_[l / 64] |= std::uint64_t{1} << (l % 64);
      visited_.push_back(l);
    };
    visited_.clear();
    mark(root);
    std::vector<ValueId> maxima; // sorted, at most three
    std::vector<ValueId> work{root};
    auto push = [&](ValueId v) {
      if (v == kNoId || visited_.size() >= 1024) return;
      const ValueId l = vn.leader(v);
      if (seen_bit(l)) return;
      mark(l);
      work.push_back(l);
    };
    while (!work.empty() && maxima.size() < 3) {
      const ValueId v = work.back();
      work.pop_back();
      if (rm_.member(v)) {
        auto at = std::lower_bound(maxima.begin(), maxima.end(), v);
        if (at == maxima.end() || *at != v) maxima.insert(at, v);
        continue;
      }
      const ValueInfo& x = vn.info(v);
      if (!a_.loops.contains(loop_, x.block)) continue;
      if (x.kind == ValueKind::kPhi) {
        if (x.block == a_.loops.loop(loop_).header) continue; // another loop-carried state
        for (const PhiIncoming& in : vn.phi_incoming(v))
          push(in.value);
      } else if (x.kind == ValueKind::kGuarded) {
        push(x.fresh);
        push(x.prior);
        push(x.pred);
      } else if (x.kind == ValueKind::kDef) {
        for_each_input(x.inst, push);
      }
    }
    for (ValueId l : visited_)
      seen_[l / 64] &= ~(std::uint64_t{1} << (l % 64));
    return maxima;
  }

  // The values instruction i computes its result from.
  template <class F>
  void for_each_input(InstId i, F&& f) const {
    const Instruction& in = a_.ir.inst(i);
    if (in.op == Opcode::kLd) {
      const InstId call = call_returning(a_, i);
      if (call == kNoId) return; // a load: a new value
      for (const Operand& arg : a_.ir.inst(call).operands[2].elements())
        f(stored_argument(a_, call, arg.text()));
      return;
    }
    a_.values.for_each_operand_value(i, f);
  }

  const FunctionAnalysis& a_;
  LoopId loop_;
  RunningMax& rm_;
  std::unordered_map<ValueId, std::vector<ValueId>> memo_;
  std::vector<std::uint64_t> seen_; // one bit per value: reached by the current walk
  std::vector<ValueId> visited_;    // the values the current walk reached
};

// Whether one loop-carried state (a header phi: the running sum, an output accumulator) is
// brought onto the new maximum's scale in every iteration. Each value computed from the state's
// previous value has a scale, the running-maximum value it is relative to: the previous value is
// on the old maximum's (φ); a product (mul, fma, mad) or quotient with a rescale factor between
// m and n (MaxDependence::is_factor) moves a value on m's scale to n's; every other operation
// (add, the fma addend, selects, phis, copies, shuffles) keeps the scale of its operands, which
// must agree, and an operand not computed from the state but from exactly one running-maximum
// value (a score's exponent exp(s - m')) brings that scale. A state is rescaled when each
// back-edge value is on one scale other than φ's, or is not computed from the previous value at
// all (a re-initialisation: the first iteration's `s = e` or `add s, e, 0`, a selected restart).
class StateRescale {
public:
  StateRescale(const FunctionAnalysis& a, LoopId loop, MaxDependence& maxima)
      : a_(a), loop_(loop), maxima_(maxima) {}

  // Whether state `acc` (a header phi of the loop, whose old scale is `old_max`) is rescaled in
  // every iteration. `applied` receives a factor's defining instruction that multiplies it.
  bool rescaled(ValueId acc, ValueId old_max, InstId& applied) {
    collect(acc);
    scale_[acc] = old_max;
    // Scales only descend (unknown, one maximum, conflict): iterate to the fixpoint.
    for (bool changed = true; changed;) {
      changed = false;
      for (ValueId v : chain_) {
        if (v == acc) continue;
        const ValueId s = join(scale_[v], infer(v));
        if (s != scale_[v]) {
          scale_[v] = s;
          changed = true;
        }
      }
    }
    applied = applied_;
    for (const PhiIncoming& in : a_.values.raw_phi_incoming(acc)) {
      if (!a_.loops.contains(loop_, in.pred)) continue;
      auto it = scale_.find(in.value);
      if (it != scale_.end() && (it->second == kConflict || it->second == old_max)) return false;
    }
    return true;
  }

private:
  static constexpr ValueId kUnknown = kNoId;
  static constexpr ValueId kConflict = kNoId - 1;

  static ValueId join(ValueId x, ValueId y) {
    if (x == kUnknown) return y;
    if (y == kUnknown || x == y) return x;
    return kConflict;
  }

  // The values computed from `acc` in the loop, up to its back-edge values (not through other
  // states: another header phi is a value of its own).
  void collect(ValueId acc) {
    const ValueNumbering& vn = a_.values;
    std::vector<ValueId> work;
    auto add = [&](ValueId v) {
      if (v == kNoId || scale_.count(v) || chain_.size() >= 4096) return;
      scale_[v] = kUnknown;
      chain_.push_back(v);
      work.push_back(v);
    };
    add(acc);
    const BlockId header = a_.loops.loop(loop_).header;
    while (!work.empty()) {
      const ValueId v = work.back();
      work.pop_back();
      for (const ValueUse& u : vn.uses(v)) {
        if (u.inst == kNoId) {
          const ValueInfo& p = vn.info(u.phi);
          if ((p.kind != ValueKind::kPhi || p.block != header) && a_.loops.contains(loop_, p.block))
            add(u.phi);
          continue;
        }
        if (u.via_guard || !a_.loops.contains(loop_, a_.cfg.block_of(u.inst))) continue;
        const InstInfo& info = a_.ir.info(u.inst);
        for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
          if (!a_.ir.mention(m).is_def) continue;
          const ValueId d = vn.ssa_def(m);
          add(d);
          if (d != kNoId && vn.info(d).kind == ValueKind::kGuarded) add(vn.info(d).fresh);
        }
      }
    }
  }

  // The scale operand value v brings: its own for a value of the chain; for another value, the
  // one running-maximum value it is computed from (none: a constant, a loaded value, a factor).
  ValueId scale_of(ValueId v) {
    if (v == kNoId) return kUnknown;
    auto it = scale_.find(v);
    if (it != scale_.end()) return it->second;
    const std::vector<ValueId>& m = maxima_.maxima(v);
    return m.size() == 1 ? m[0] : kUnknown;
  }

  bool in_chain(ValueId v) const { return v != kNoId && scale_.count(v) != 0; }

  // Operand k of i as a raw SSA value (kNoId for an immediate).
  ValueId operand(InstId i, std::uint32_t k) const {
    const std::uint32_t m = a_.values.mention_index(i, k, 0, false);
    return m == kNoId ? kNoId : a_.values.ssa_use(m);
  }

  // The scale of x · f (or x / f): a factor between m and n moves x from one to the other;
  // another multiplier keeps x's scale. Which operand is the state's is the one in the chain.
  ValueId product(InstId i, std::uint32_t k1, std::uint32_t k2) {
    const ValueId v1 = operand(i, k1), v2 = operand(i, k2);
    if (in_chain(v1) && in_chain(v2)) return join(scale_of(v1), scale_of(v2));
    const ValueId x = in_chain(v1) ? v1 : v2, f = x == v1 ? v2 : v1;
    const ValueId s = scale_of(x);
    if (s == kUnknown || s == kConflict || !maxima_.is_factor(f)) return s;
    const std::vector<ValueId>& pair = maxima_.maxima(f);
    if (applied_ == kNoId) applied_ = a_.values.defining_instruction(a_.values.leader(f));
    return s == pair[0] ? pair[1] : s == pair[1] ? pair[0] : kConflict;
  }

  // The scale of chain value v from its inputs' current scales.
  ValueId infer(ValueId v) {
    const ValueNumbering& vn = a_.values;
    const ValueInfo& x = vn.info(v);
    if (x.kind == ValueKind::kPhi) {
      ValueId s = kUnknown;
      for (const PhiIncoming& in : vn.raw_phi_incoming(v))
        if (in_chain(in.value)) s = join(s, scale_of(in.value));
      return s;
    }
    if (x.kind == ValueKind::kGuarded) return join(scale_of(x.fresh), scale_of(x.prior));
    if (x.kind != ValueKind::kDef) return kUnknown;
    const Instruction& in = a_.ir.inst(x.inst);
    const auto n = in.operands.size();
    if (in.op == Opcode::kEx2)
      if (const ValueId m = maxima_.exponent_scale(x.inst); m != kNoId) return m;
    if (in.op == Opcode::kMul && n == 3) return product(x.inst, 1, 2);
    if (in.op == Opcode::kDiv && n == 3) return product(x.inst, 1, 2);
    if ((in.op == Opcode::kFma || in.op == Opcode::kMad) && n == 4)
      return join(product(x.inst, 1, 2), scale_of(operand(x.inst, 3)));
    ValueId s = kUnknown;
    vn.for_each_operand_value(x.inst, [&](ValueId u) { s = join(s, scale_of(u)); });
    return s;
  }

  const FunctionAnalysis& a_;
  LoopId loop_;
  MaxDependence& maxima_;
  std::vector<ValueId> chain_;
  std::unordered_map<ValueId, ValueId> scale_;
  InstId applied_ = kNoId;
};

// A `.func` whose return value is exp(c · (param x − param y)): the correction factor computed
// in a function of its own (`rescale(m_old, m_new)`), found by the same difference/ex2 search as
// in a kernel, on the callee's own analysis.
struct ExpDifferenceSummary {
  std::uint32_t minuend = 0, subtrahend = 0; // parameter positions
};

// The parameter position `ld.param` value v reads in function `fn`, or -1.
int param_position(const FunctionAnalysis& a, ValueId v) {
  InstId d = v == kNoId ? kNoId : a.values.defining_instruction(v);
  if (d == kNoId) return -1;
  const Instruction& in = a.ir.inst(d);
  if (in.op != Opcode::kLd || !in.has_modifier("param") || in.operands.size() != 2 ||
      in.operands[1].kind != OperandKind::kAddress || in.operands[1].address_offset() != 0)
    return -1;
  const Function& fn = a.ir.function();
  for (std::size_t k = 0; k < fn.params.size(); ++k)
    if (fn.params[k].name == in.operands[1].text()) return static_cast<int>(k);
  return -1;
}

std::optional<ExpDifferenceSummary> summarize_exp_difference(const Function& fn) {
  if (fn.kind != FunctionKind::kFunc || !fn.has_body || fn.returns.size() != 1) return {};
  FunctionAnalysis a(fn);
  const std::string_view ret = fn.returns[0].name;
  for (InstId i = 0; i < a.ir.size(); ++i) {
    for (const Difference& d : differences(a, i)) {
      const int x = param_position(a, d.a), y = param_position(a, d.b);
      if (x < 0 || y < 0) continue;
      const InstId ex2 = reaches_ex2(a, i);
      if (ex2 == kNoId) continue;
      // The exponent is what the function returns (through copies and conversions).
      for (InstId s = 0; s < a.ir.size(); ++s) {
        const Instruction& st = a.ir.inst(s);
        if (st.op != Opcode::kSt || !st.has_modifier("param") || st.operands.size() != 2 ||
            st.operands[0].kind != OperandKind::kAddress || st.operands[0].text() != ret)
          continue;
        if (derived_from(a, a.values.value_of(s, 1), {ex2}))
          return ExpDifferenceSummary{static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)};
      }
    }
  }
  return {};
}

// A correction factor computed by a call: `ld.param %f, [retval0]` after `call (retval0), f,
// (param0, param1)` with f's summary, and the values stored into the argument parameters
// before the call (in the same block).
struct CallFactor {
  Difference d;
  std::string minuend, subtrahend; // the argument registers as written
};

std::optional<CallFactor>
call_factor(const FunctionAnalysis& a, const Module& m, InstId load,
            std::map<std::string_view, std::optional<ExpDifferenceSummary>>& summaries) {
  const InstId call = call_returning(a, load);
  if (call == kNoId) return {};
  const Instruction& c = a.ir.inst(call);
  if (c.operands[0].elements().size() != 1) return {};
  const std::string_view callee = c.operands[1].text();
  auto it = summaries.find(callee);
  if (it == summaries.end()) {
    const Function* fn = m.find_function(callee);
    it = summaries.emplace(callee, fn ? summarize_exp_difference(*fn) : std::nullopt).first;
  }
  if (!it->second) return {};
  const auto args = c.operands[2].elements();
  if (it->second->minuend >= args.size() || it->second->subtrahend >= args.size()) return {};
  CallFactor f;
  f.d.a = stored_argument(a, call, args[it->second->minuend].text(), &f.minuend);
  f.d.b = stored_argument(a, call, args[it->second->subtrahend].text(), &f.subtrahend);
  if (f.d.a == kNoId || f.d.b == kNoId) return {};
  return f;
}

// The result of `ex2` reaches a value carried around `loop`: an accumulator (accumulators_fed).
bool feeds_accumulator(const FunctionAnalysis& a, LoopId loop, InstId ex2) {
  return !accumulators_fed(a, loop, ex2).empty();
}

class SoftmaxRescaleRule final : public Rule {
public:
  std::string_view summary() const override {
    return "an online-softmax rescale exp(old max - new max) reads the new maximum";
  }
  void check(RuleContext& ctx) const override;
};

void SoftmaxRescaleRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const ValueNumbering& vn = a.values;
  std::set<InstId> examined, reported;
  std::map<std::string_view, std::optional<ExpDifferenceSummary>> summaries; // callees seen
  for (ValueId phi = 0; phi < vn.size(); ++phi) {
    if (!vn.is_phi(phi) || vn.leader(phi) != phi) continue;
    LoopId loop = a.loops.loop_with_header(vn.info(phi).block);
    if (loop == kNoId) continue;
    RunningMax rm(a, loop, phi);
    if (!rm.has_update()) continue;
    bool stale = false; // a rescale of the new maximum from itself was found
    InstId score_ex2 = kNoId, score_update = kNoId;
    std::set<InstId> factors;         // ex2s of the differences whose minuend is a running max
    std::set<ValueId> accumulators;   // header phis fed by exponents of the scores
    std::map<ValueId, InstId> fed_by; // accumulator -> one score exponent feeding it
    // One difference a − b whose exponent `ex2` is taken at `site` (the subtraction, or the
    // load of a call's result that computes exp(a − b) in a .func).
    auto consider = [&](InstId site, Difference d, InstId ex2, const std::string& minuend,
                        const std::string& subtrahend) {
      d.a = strip_safe_select(a, d.a);
      d.b = strip_safe_select(a, d.b);
      if (d.b == rm.phi() || !rm.member(d.b)) return;
      examined.insert(site);
      if (!rm.member(d.a)) {
        if (score_ex2 == kNoId && feeds_accumulator(a, loop, ex2)) {
          score_ex2 = ex2;
          score_update = rm.update_instruction(d.b);
        }
        for (ValueId acc : accumulators_fed(a, loop, ex2))
          if (acc != rm.phi() && accumulators.insert(acc).second) fed_by[acc] = ex2;
        return;
      }
      factors.insert(ex2);
      // a ≡ b: the update itself, a copy, or an overwritten register. (a a later maximum
      // than b is not reported: exp(new − old) is a valid rescale when divided by.)
      if (d.a != d.b) return;
      stale = true;
      if (!reported.insert(site).second) return;
      InstId upd = rm.update_instruction(d.b);
      std::string where =
          upd != kNoId ? " (updated on line " + std::to_string(a.ir.inst(upd).loc.line) + ")" : "";
      std::string msg =
          minuend == subtrahend
              ? "online-softmax rescale subtracts the new running maximum" + where +
                    " from itself: " + minuend +
                    " must hold the maximum from before the update, or the correction is "
                    "exp(0) == 1 and the accumulators are never rescaled"
              : "online-softmax rescale reads " + minuend +
                    ", which holds the new running maximum" + where +
                    " (a copy, or the old maximum overwritten before this read), not the "
                    "maximum from before the update: the correction is exp(0) == 1 and the "
                    "accumulators are never rescaled";
      auto f = ctx.report(site, msg);
      if (upd != kNoId) f.relate(upd, "the running maximum is updated here");
      // Where the minuend's register received the new maximum (a copy or an overwrite).
      std::uint32_t m = vn.mention_index(site, 1, 0, false);
      if (m != kNoId && vn.ssa_use(m) != kNoId) {
        InstId w = vn.defining_instruction(vn.ssa_use(m));
        if (w != kNoId && w != upd && a.ir.inst(w).op == Opcode::kMov)
          f.relate(w, minuend + " receives the new maximum here");
      }
      if (ex2 != site) f.relate(ex2, "the rescale factor is computed here");
    };
    for (BlockId b : a.loops.loop(loop).blocks) {
      for (InstId i = a.cfg.block(b).begin; i < a.cfg.block(b).end; ++i) {
        const Instruction& inst = a.ir.inst(i);
        for (Difference d : differences(a, i)) {
          InstId ex2 = reaches_ex2(a, i);
          if (ex2 == kNoId) continue;
          consider(i, d, ex2,
                   inst.operands.size() > 1 ? std::string(inst.operands[1].text())
                                            : std::string("the minuend"),
                   inst.operands.size() > 2 ? std::string(inst.operands[2].text())
                                            : std::string("the subtrahend"));
        }
        if (std::optional<CallFactor> cf = call_factor(a, ctx.module(), i, summaries))
          consider(i, cf->d, i, cf->minuend, cf->subtrahend);
      }
    }
    // Every state kept on the old maximum's scale (the running sum, each output accumulator)
    // is brought onto the new one in every iteration: multiplied by a rescale factor (a value
    // computed from the maximum before and after an update), or re-initialised. A stale
    // maximum already reported explains the states its correction exp(0) leaves unscaled.
    if (stale) continue;
    MaxDependence dependence(a, loop, rm);
    std::vector<ValueId> unscaled;
    InstId applied = kNoId; // a factor that rescales some state
    for (ValueId acc : accumulators) {
      InstId used = kNoId;
      if (!StateRescale(a, loop, dependence).rescaled(acc, rm.phi(), used)) unscaled.push_back(acc);
      if (applied == kNoId) applied = used;
    }
    if (unscaled.empty()) continue;
    if (applied == kNoId && factors.empty()) {
      // Exponents of the scores against the new maximum accumulate across iterations, but no
      // state is rescaled at all: the correction was never computed or never applied (or a
      // compiler folded the defective exp(m' - m') == 1 away).
      if (score_ex2 == kNoId || score_update == kNoId || !reported.insert(score_update).second)
        continue;
      auto f = ctx.report(
          score_update,
          "online-softmax running maximum is updated here, but nothing rescales the accumulators "
          "by exp(old maximum - new maximum): the exponents of the scores against the new "
          "maximum (line " +
              std::to_string(a.ir.inst(score_ex2).loc.line) +
              ") are added to sums kept on the old maximum's scale");
      f.relate(score_ex2, "exponent against the new maximum, accumulated across iterations");
      continue;
    }
    const InstId factor = applied != kNoId ? applied : *factors.begin();
    for (ValueId acc : unscaled) {
      // Where the state gets its next iteration's value: the raw incoming over a back edge.
      InstId at = kNoId;
      for (const PhiIncoming& in : vn.raw_phi_incoming(acc))
        if (at == kNoId && a.loops.contains(loop, in.pred) && in.value != kNoId)
          at = vn.defining_instruction(in.value);
      if (at == kNoId || !reported.insert(at).second) continue;
      std::string name = !a.ir.inst(at).operands.empty()
                             ? std::string(a.ir.inst(at).operands[0].text())
                             : std::string("an accumulator");
      auto f = ctx.report(
          at, "online-softmax state " + name +
                  " carries a sum from the previous iteration that is never rescaled by "
                  "exp(old maximum - new maximum): it adds exponents against the new maximum "
                  "to a sum on the old maximum's scale");
      if (factor != kNoId)
        f.relate(factor, "the rescale factor is computed here, but not applied to it");
      f.relate(fed_by[acc], "exponent against the new maximum, added to it");
    }
  }
  ctx.add_sites(static_cast<std::uint32_t>(examined.size()));
}

} // namespace

std::unique_ptr<Rule> make_softmax_rescale_saved_max_rule() {
  return std::make_unique<SoftmaxRescaleRule>();
}

} // namespace ptxkit::verifier
