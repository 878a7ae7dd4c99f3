// buffer_offsets.cpp: the interpretation of buffer_offsets.h: launch ranges, a transfer function
// per integer instruction over strided intervals, pointers into parameters' buffers, joins at
// phis along refined edges, and the guard and trip-count refinement at uses.
#include "ptxkit/verifier/analysis/buffer_offsets.h"

#include "ptxkit/verifier/analysis/address_provenance.h"

#include <algorithm>

namespace ptxkit::verifier::analysis {

namespace {

using Kind = BufferValue::Kind;
using R = StridedRange;
constexpr int kWidenAfter = 4;
constexpr int kMaxDepth = 24;

enum Cmp : std::uint8_t { kLt, kLe, kGt, kGe, kEq, kNe, kNoCmp };

Cmp cmp_of(std::string_view m, bool& is_unsigned) {
  static constexpr std::pair<std::string_view, Cmp> kTable[] = {
      {"lt", kLt}, {"le", kLe}, {"gt", kGt}, {"ge", kGe}, {"eq", kEq},
      {"ne", kNe}, {"lo", kLt}, {"ls", kLe}, {"hi", kGt}, {"hs", kGe}};
  for (std::size_t k = 0; k < std::size(kTable); ++k)
    if (kTable[k].first == m) {
      if (k >= 6) is_unsigned = true;
      return kTable[k].second;
    }
  return kNoCmp;
}
Cmp negate(Cmp c) {
  static constexpr Cmp kNot[] = {kGe, kGt, kLe, kLt, kNe, kEq, kNoCmp};
  return kNot[c];
}
Cmp mirror(Cmp c) {
  static constexpr Cmp kMirror[] = {kGt, kGe, kLt, kLe, kEq, kNe, kNoCmp};
  return kMirror[c];
}

BufferValue int_value(R r) {
  BufferValue v;
  v.kind = Kind::kInt;
  v.range = r;
  return v;
}
BufferValue int_unknown() {
  return int_value(R::unknown());
}
BufferValue mixed() {
  BufferValue v;
  v.kind = Kind::kMixed;
  v.range = R::unknown();
  return v;
}

BufferValue join_values(const BufferValue& a, const BufferValue& b) {
  if (a.kind == Kind::kTop) return b;
  if (b.kind == Kind::kTop) return a;
  if (a.kind != b.kind || a.kind == Kind::kMixed) return mixed();
  if (a.kind == Kind::kPtr && (a.param != b.param || a.var != b.var)) return mixed();
  BufferValue r = a;
  r.range = join(a.range, b.range);
  r.slice_hi = std::max(a.slice_hi, b.slice_hi);
  if (a.origin != b.origin) r.origin = std::min(a.origin, b.origin);
  return r;
}

isa::Type first_type(const Instruction& inst) {
  for (std::string_view m : inst.modifiers)
    if (isa::Type x = isa::type_from_spelling(m); x != isa::Type::kUnknown) return x;
  return isa::Type::kUnknown;
}
bool is_int(isa::Type t) {
  isa::TypeKind k = isa::kind(t);
  return k == isa::TypeKind::kSigned || k == isa::TypeKind::kUnsigned || k == isa::TypeKind::kBits;
}
R read_as(const R& r, isa::Type t) {
  unsigned bits = isa::size_bits(t);
  return isa::kind(t) == isa::TypeKind::kSigned ? as_signed(r, bits) : as_unsigned(r, bits);
}

int launch_index(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix) || name.size() != prefix.size() + 1) return -1;
  char d = name.back();
  return d == 'x' ? 0 : d == 'y' ? 1 : d == 'z' ? 2 : -1;
}

} // namespace

BufferOffsets::BufferOffsets(const FunctionAnalysis& a, const KernelContract& contract,
                             const AddressProvenance* variables)
    : a_(&a), contract_(&contract), val_(a.values.size()), header_phis_(a.cfg.size()),
      induction_(a.values.size()), variables_(variables) {
  const Function& fn = a.ir.function();
  // Launch shape: the contract's, else what the PTX declares about the block.
  std::optional<std::array<std::uint32_t, 3>> block = contract.block;
  if (!block) block = fn.reqntid();
  block_declared_ = block.has_value();
  std::optional<std::uint32_t> max_threads;
  if (!block)
    if (auto m = fn.maxntid()) max_threads = (*m)[0] * (*m)[1] * (*m)[2];
  for (int d = 0; d < 3; ++d) {
    if (block) {
      ntid_[d] = R::constant((*block)[d]);
      ids_[d] = R::interval(0, std::int64_t{(*block)[d]} - 1);
    } else if (max_threads) {
      ntid_[d] = R::interval(1, *max_threads);
      ntid_[d].exact = false;
      ids_[d] = R::interval(0, std::int64_t{*max_threads} - 1);
      ids_[d].exact = false;
    } else {
      ntid_[d] = R::interval(1, R::kPosInf);
      ids_[d] = R::interval(0, R::kPosInf);
    }
    if (contract.grid) {
      nctaid_[d] = R::constant((*contract.grid)[d]);
      ids_[3 + d] = R::interval(0, std::int64_t{(*contract.grid)[d]} - 1);
    } else {
      nctaid_[d] = R::interval(1, R::kPosInf);
      ids_[3 + d] = R::interval(0, R::kPosInf);
    }
  }
  for (InstId i = 0; i < a.ir.size(); ++i)
    for (const Operand& o : a.ir.inst(i).operands)
      if (o.kind == OperandKind::kSpecialReg) {
        if (int d = launch_index(o.text(), "%tid."); d >= 0) reads_[d] = true;
        if (int d = launch_index(o.text(), "%ctaid."); d >= 0) reads_[3 + d] = true;
      }

  const ValueNumbering& vn = a.values;
  for (ValueId v = 0; v < vn.size(); ++v)
    if (vn.info(v).kind == ValueKind::kPhi && vn.leader(v) == v &&
        a.loops.loop_with_header(vn.info(v).block) != kNoId)
      header_phis_[vn.info(v).block].push_back(v);
  place_conditions();

  // Round-robin to a fixpoint; values only move up (each new value is joined with the old), a
  // range that keeps moving is widened at the end that moves.
  // A value's evaluation reads only the facts of other values (read()): when none of those it
  // read last time has changed since, it would compute the same again, so its last result is
  // reused (then widened and joined as a fresh one would be). Most values settle in the first
  // rounds; the phis re-evaluated with their refinements at every edge are what costs.
  std::vector<std::uint8_t> changes(vn.size(), 0);
  std::vector<std::vector<ValueId>> reads(vn.size()); // what each value's last evaluation read
  std::vector<BufferValue> last(vn.size());           // its result (before widening and join)
  std::vector<std::uint32_t> changed_at(vn.size(), 0), evaluated_at(vn.size(), 0);
  std::vector<std::uint8_t> evaluated(vn.size(), 0);
  std::uint32_t clock = 0; // counts changes of any fact
  std::vector<Cond> edge;
  for (int round = 0; round < 64; ++round) {
    bool changed = false;
    for (ValueId v = 0; v < vn.size(); ++v) {
      if (vn.leader(v) != v) continue;
      const ValueInfo& x = vn.info(v);
      if (x.block != kNoId && !a.cfg.reachable(x.block)) continue;
      BufferValue nv;
      bool stale = !evaluated[v];
      for (std::size_t k = 0; !stale && k < reads[v].size(); ++k)
        stale = changed_at[reads[v][k]] > evaluated_at[v];
      if (!stale) {
        nv = last[v];
      } else {
        reads[v].clear();
        read_log_ = &reads[v];
        evaluate(v, x, edge, nv);
        read_log_ = nullptr;
        last[v] = nv;
        evaluated[v] = 1;
        evaluated_at[v] = clock;
      }
      const BufferValue& old = val_[v];
      if (nv.kind != Kind::kTop && old.kind == nv.kind && nv.kind != Kind::kMixed &&
          nv.range != old.range && ++changes[v] > kWidenAfter) {
        if (nv.range.lo < old.range.lo) nv.range.lo = R::kNegInf;
        if (nv.range.hi > old.range.hi) nv.range.hi = R::kPosInf;
        nv.range.exact = false;
      }
      nv = join_values(old, nv);
      if (!(nv == val_[v])) {
        val_[v] = nv;
        changed_at[v] = ++clock;
        changed = true;
      }
    }
    if (!changed) break;
  }
}

// One value's transfer function in the constructor's fixpoint: what v is given the current facts.
void BufferOffsets::evaluate(ValueId v, const ValueInfo& x, std::vector<Cond>& edge,
                             BufferValue& nv) const {
  const ValueNumbering& vn = a_->values;
  switch (x.kind) {
  case ValueKind::kUndef:
  case ValueKind::kParam:
    nv = int_unknown();
    break;
  case ValueKind::kDef:
  case ValueKind::kGuarded:
    if (x.mention != vn.mention_index(x.inst, 0, 0, true))
      nv = int_unknown(); // a second destination (vector load, setp pair): no integer
    else
      nv = eval(x.inst, At{});
    if (x.kind == ValueKind::kGuarded)
      nv = join_values(nv, x.prior == kNoId ? int_unknown() : read(vn.leader(x.prior)));
    break;
  case ValueKind::kPhi:
    for (const PhiIncoming& in : vn.raw_phi_incoming(v)) {
      if (in.value == kNoId) continue;
      edge.clear();
      edge_conds(in.pred, x.block, edge);
      memo_.start(vn.size());
      nv = join_values(nv, value_at(in.value, At{in.pred, &edge, 0, &memo_}));
    }
    break;
  }
}

void BufferOffsets::place_conditions() {
  const Cfg& cfg = a_->cfg;
  std::vector<Cond> found;
  for (BlockId d = 0; d < cfg.size(); ++d) {
    const auto& preds = cfg.block(d).preds;
    if (preds.size() != 1 || !a_->dom.in_tree(d)) continue;
    found.clear();
    auto g = edge_guard(*a_, preds[0], d);
    if (!g) continue;
    conds_of(g->first, g->second, 0, found);
    for (const Cond& c : found)
      placed_.push_back({c.x, d, c});
    if (g->first != kNoId) decided_.push_back({a_->values.leader(g->first), d, g->second});
  }
  std::stable_sort(placed_.begin(), placed_.end(),
                   [](const Placed& x, const Placed& y) { return x.leader < y.leader; });
  std::stable_sort(decided_.begin(), decided_.end(),
                   [](const Decided& x, const Decided& y) { return x.leader < y.leader; });
}

void BufferOffsets::edge_conds(BlockId from, BlockId to, std::vector<Cond>& out) const {
  if (auto g = edge_guard(*a_, from, to)) conds_of(g->first, g->second, 0, out);
}

std::optional<bool> BufferOffsets::decided(ValueId pred, BlockId at) const {
  if (pred == kNoId || at == kNoId) return std::nullopt;
  const ValueId l = a_->values.leader(pred);
  auto first = std::lower_bound(decided_.begin(), decided_.end(), l,
                                [](const Decided& d, ValueId x) { return d.leader < x; });
  for (auto it = first; it != decided_.end() && it->leader == l; ++it)
    if (a_->dom.dominates(it->block, at)) return it->holds;
  return std::nullopt;
}

void BufferOffsets::conds_of(ValueId g, bool holds, int depth, std::vector<Cond>& out) const {
  const FunctionIR& ir = a_->ir;
  const ValueNumbering& vn = a_->values;
  if (g == kNoId || depth > 4) return;
  ValueId l = vn.leader(g);
  if (vn.info(l).kind != ValueKind::kDef) return;
  InstId s = vn.info(l).inst;
  const Instruction& si = ir.inst(s);
  if (si.operands.empty() || si.operands[0].kind != OperandKind::kRegister) return;
  if (si.op == Opcode::kNot && si.operands.size() == 2) {
    conds_of(vn.value_of(s, 1), !holds, depth + 1, out);
    return;
  }
  if ((si.op == Opcode::kAnd && holds) || (si.op == Opcode::kOr && !holds)) {
    if (si.operands.size() != 3 || si.last_type() != isa::Type::kPred) return;
    for (std::uint32_t k = 1; k <= 2; ++k)
      if (si.operands[k].kind == OperandKind::kRegister)
        conds_of(vn.value_of(s, k), si.operands[k].negated() ? !holds : holds, depth + 1, out);
    return;
  }
  if (si.op != Opcode::kSetp) return;
  // setp.cmp.type d, a, b; or setp.cmp.bool.type d, a, b, c (d = (a cmp b) bool c): with .and
  // holding, or .or failing, both the comparison and c are known.
  bool compound = si.modifiers.size() == 3 && si.operands.size() == 4;
  if (!compound && (si.operands.size() != 3 || si.modifiers.size() != 2)) return;
  if (compound) {
    std::string_view bop = si.modifiers[1];
    if (!((bop == "and" && holds) || (bop == "or" && !holds))) return;
    if (si.operands[3].kind == OperandKind::kRegister)
      conds_of(vn.value_of(s, 3), si.operands[3].negated() ? !holds : holds, depth + 1, out);
  }
  bool is_unsigned = false;
  Cmp cmp = cmp_of(si.modifiers[0], is_unsigned);
  isa::Type type = isa::type_from_spelling(si.modifiers.back());
  if (cmp == kNoCmp || !is_int(type)) return;
  if (isa::kind(type) != isa::TypeKind::kSigned) is_unsigned = true;
  if (!holds) cmp = negate(cmp);
  auto side = [&](std::uint32_t k, ValueId& v, std::int64_t& c) {
    const Operand& o = si.operands[k];
    if (o.kind == OperandKind::kImmInt) {
      c = o.int_value();
      return true;
    }
    if (o.kind != OperandKind::kRegister) return false;
    v = vn.value_of(s, k);
    return v != kNoId;
  };
  Cond a, b;
  a.bits = b.bits = isa::size_bits(type);
  a.is_unsigned = b.is_unsigned = is_unsigned;
  ValueId x = kNoId, y = kNoId;
  std::int64_t cx = 0, cy = 0;
  if (!side(1, x, cx) || !side(2, y, cy)) return;
  if (x != kNoId) {
    a.x = vn.leader(x);
    a.y = y == kNoId ? kNoId : vn.leader(y);
    a.c = cy;
    a.cmp = cmp;
    out.push_back(a);
  }
  if (y != kNoId) {
    b.x = vn.leader(y);
    b.y = x == kNoId ? kNoId : vn.leader(x);
    b.c = cx;
    b.cmp = mirror(cmp);
    out.push_back(b);
  }
}

StridedRange BufferOffsets::apply_conds(ValueId l, StridedRange r, const At& at) const {
  if (at.block == kNoId) return r;
  const BufferValue& self = read(l);
  auto apply = [&](const Cond& c) {
    if (r.empty()) return;
    R y;
    if (c.y == kNoId) {
      y = R::constant(c.c);
    } else {
      const BufferValue& yv = read(c.y);
      if (yv.kind != self.kind ||
          (self.kind == Kind::kPtr && (yv.param != self.param || yv.var != self.var)))
        return;
      if (yv.kind != Kind::kInt && yv.kind != Kind::kPtr) return;
      y = yv.range;
    }
    bool ptr = self.kind == Kind::kPtr; // offsets of one buffer compare as its addresses do
    R xr = ptr ? r : c.is_unsigned ? as_unsigned(r, c.bits) : as_signed(r, c.bits);
    if (!ptr) y = c.is_unsigned ? as_unsigned(y, c.bits) : as_signed(y, c.bits);
    std::int64_t lo = R::kNegInf, hi = R::kPosInf;
    switch (c.cmp) {
    case kLt:
      if (y.hi != R::kPosInf) hi = y.hi - 1;
      break;
    case kLe:
      hi = y.hi;
      break;
    case kGt:
      if (y.lo != R::kNegInf) lo = y.lo + 1;
      break;
    case kGe:
      lo = y.lo;
      break;
    case kEq:
      lo = y.lo, hi = y.hi;
      break;
    case kNe: // x != c removes an end of x's range (`if (t > 0)` of an unsigned t: t != 0)
      if (!y.is_constant()) return;
      if (xr.lo == y.lo) lo = y.lo + 1;
      if (xr.hi == y.lo) hi = y.lo - 1;
      if (lo == R::kNegInf && hi == R::kPosInf) return;
      break;
    default:
      return;
    }
    R nr = clamp(xr, lo, hi);
    if (nr.empty()) { // no value satisfies the condition: the point is unreachable
      r = nr;
      return;
    }
    // The refined range stands for the register's bits only where both readings agree.
    bool same_reading = ptr || xr == r ||
                        (nr.lo != R::kNegInf && nr.lo >= 0 && nr.hi != R::kPosInf && c.bits < 64 &&
                         nr.hi < (std::int64_t{1} << (c.bits - 1)));
    if (same_reading) r = nr;
  };
  auto first = std::lower_bound(placed_.begin(), placed_.end(), l,
                                [](const Placed& p, ValueId x) { return p.leader < x; });
  for (auto it = first; it != placed_.end() && it->leader == l; ++it)
    if (a_->dom.dominates(it->block, at.block)) apply(it->cond);
  if (at.extra)
    for (const Cond& c : *at.extra)
      if (c.x == l) apply(c);
  return r;
}

const BufferOffsets::Induction& BufferOffsets::induction(ValueId phi) const {
  std::optional<Induction>& slot = induction_[phi];
  if (slot) return *slot;
  slot = Induction{};
  const ValueNumbering& vn = a_->values;
  BlockId h = vn.info(phi).block;
  bool have_step = false;
  for (const PhiIncoming& in : vn.phi_incoming(phi)) {
    if (!a_->loops.is_back_edge(in.pred, h)) {
      slot->initial.push_back(in.value);
      continue;
    }
    InstId d = vn.defining_instruction(in.value);
    if (d == kNoId || vn.info(in.value).kind != ValueKind::kDef) return *slot;
    const Instruction& di = a_->ir.inst(d);
    if ((di.op != Opcode::kAdd && di.op != Opcode::kSub) || di.operands.size() != 3 ||
        di.has_modifier("cc"))
      return *slot;
    std::int64_t step = 0;
    if (vn.value_of(d, 1) == phi && di.operands[2].kind == OperandKind::kImmInt)
      step = di.operands[2].int_value();
    else if (di.op == Opcode::kAdd && vn.value_of(d, 2) == phi &&
             di.operands[1].kind == OperandKind::kImmInt)
      step = di.operands[1].int_value();
    else
      return *slot;
    if (di.op == Opcode::kSub) step = -step;
    if (step == 0 || (have_step && step != slot->step)) return *slot;
    slot->step = step;
    have_step = true;
  }
  slot->valid = have_step && !slot->initial.empty();
  return *slot;
}

StridedRange BufferOffsets::trip_bound(ValueId phi, StridedRange r, const At& at) const {
  if (at.block == kNoId) return r;
  const Induction& self = induction(phi);
  if (!self.valid) return r;
  const ValueNumbering& vn = a_->values;
  std::optional<std::int64_t> kmax;
  // g == phi too: h = a + c*k <= G bounds k by (G - min a) / c, hence h by max a + c*k, which
  // is tighter than G when the start varies less than the step (lane + 256*k < 512: 287).
  for (ValueId g : header_phis_[vn.info(phi).block]) {
    const Induction& gi = induction(g);
    if (!gi.valid || (read(g).kind != Kind::kInt && val_[g].kind != Kind::kPtr)) continue;
    R gr = apply_conds(g, val_[g].range, at);
    R init;
    init.lo = 1, init.hi = 0; // empty
    for (ValueId v : gi.initial)
      init = join(init, read(vn.leader(v)).range);
    std::int64_t k = -1;
    if (gi.step > 0 && gr.hi != R::kPosInf && init.lo != R::kNegInf && !init.empty())
      k = (gr.hi - init.lo) / gi.step;
    else if (gi.step < 0 && gr.lo != R::kNegInf && init.hi != R::kPosInf && !init.empty())
      k = (init.hi - gr.lo) / -gi.step;
    if (k >= 0 && (!kmax || k < *kmax)) kmax = k;
  }
  if (!kmax) return r;
  R init;
  init.lo = 1, init.hi = 0;
  for (ValueId v : self.initial)
    init = join(init, read(vn.leader(v)).range);
  if (init.empty()) return r;
  std::int64_t span = 0;
  if (__builtin_mul_overflow(*kmax, self.step, &span)) return r;
  if (self.step > 0) return init.hi == R::kPosInf ? r : clamp(r, init.lo, init.hi + span);
  return init.lo == R::kNegInf ? r : clamp(r, init.lo + span, init.hi);
}

BufferValue BufferOffsets::value_at(ValueId v, const At& at) const {
  const ValueNumbering& vn = a_->values;
  ValueId l = vn.leader(v);
  BufferValue r = read(l);
  if (at.block == kNoId) return r;
  if (at.memo)
    if (const BufferValue* m = at.memo->find(l)) return *m;
  const ValueInfo& x = vn.info(l);
  if (at.depth < kMaxDepth && x.kind == ValueKind::kDef && r.kind != Kind::kMixed &&
      x.mention == vn.mention_index(x.inst, 0, 0, true)) {
    At deeper = at;
    ++deeper.depth;
    BufferValue e = eval(x.inst, deeper);
    if (e.kind == r.kind && e.param == r.param && e.var == r.var) r.range = e.range;
  }
  if (x.kind == ValueKind::kPhi && (r.kind == Kind::kInt || r.kind == Kind::kPtr))
    r.range = trip_bound(l, r.range, at);
  if (r.kind == Kind::kInt || r.kind == Kind::kPtr) r.range = apply_conds(l, r.range, at);
  if (r.range.empty()) r = BufferValue{}; // infeasible here: top, which every join ignores
  if (at.memo) at.memo->put(l, r);
  return r;
}

BufferValue BufferOffsets::special(std::string_view name) const {
  if (name == "%laneid") return int_value(R::interval(0, 31));
  for (int d = 0; d < 3; ++d) {
    int tid = launch_index(name, "%tid."), cta = launch_index(name, "%ctaid.");
    int k = tid == d ? d : cta == d ? 3 + d : -1;
    if (k >= 0) {
      if (pins_[k]) return int_value(*pins_[k]);
      return int_value(ids_[k]);
    }
    if (launch_index(name, "%ntid.") == d) return int_value(ntid_[d]);
    if (launch_index(name, "%nctaid.") == d) return int_value(nctaid_[d]);
  }
  return int_unknown();
}

BufferValue BufferOffsets::leaf(InstId i, std::uint32_t k, const At& at) const {
  const Instruction& inst = a_->ir.inst(i);
  if (k >= inst.operands.size()) return int_unknown();
  const Operand& o = inst.operands[k];
  switch (o.kind) {
  case OperandKind::kImmInt:
    return int_value(R::constant(o.int_value()));
  case OperandKind::kSpecialReg:
    return special(o.text());
  case OperandKind::kRegister: {
    ValueId v = a_->values.value_of(i, k);
    return v == kNoId ? int_unknown() : value_at(v, at);
  }
  case OperandKind::kAddress:
    return address(i, k, at);
  case OperandKind::kSymbol:
    return variable_address(o, i);
  default:
    return mixed(); // a function's address
  }
}

BufferValue BufferOffsets::variable_address(const Operand& symbol, InstId at) const {
  const VarDecl* var = variables_ ? variables_->find_variable(symbol.text()) : nullptr;
  if (!var || var->space != StateSpace::kShared || symbol.has_register_index())
    return mixed(); // another space's variable, or `arr[%r]`: no buffer this tracks
  BufferValue b;
  b.kind = Kind::kPtr;
  b.var = var;
  b.origin = at;
  b.range = R::constant(symbol.has_offset() ? symbol.address_offset() : 0);
  return b;
}

BufferValue BufferOffsets::address(InstId i, std::uint32_t k, const At& at) const {
  const Operand& o = a_->ir.inst(i).operands[k];
  if (o.address_base_is_immediate()) return int_value(R::constant(o.address_offset()));
  if (o.has_register_index()) return mixed(); // `arr[%r]`: not a base plus a constant
  ValueId v = a_->values.value_of(i, k, 0);
  if (v == kNoId) return variable_address(o, i); // `[smem+8]`
  BufferValue b = value_at(v, at);
  if (b.kind == Kind::kInt || b.kind == Kind::kPtr)
    b.range = add(b.range, R::constant(o.address_offset()));
  return b;
}

BufferValue BufferOffsets::load_param(InstId i) const {
  const Instruction& inst = a_->ir.inst(i);
  if (inst.operands.size() != 2 || inst.operands[1].kind != OperandKind::kAddress ||
      a_->values.value_of(i, 1, 0) != kNoId || inst.operands[1].address_offset() != 0)
    return int_unknown();
  const Function& fn = a_->ir.function();
  if (fn.kind != FunctionKind::kEntry) return int_unknown();
  std::string_view name = inst.operands[1].text();
  for (std::uint32_t p = 0; p < fn.params.size(); ++p) {
    if (fn.params[p].name != name) continue;
    if (const ScalarContract* s = contract_->scalar(name)) {
      isa::Type t = inst.last_type();
      if (!is_int(t)) return int_unknown();
      return int_value(fit(R::constant(s->value), isa::size_bits(t)));
    }
    if (isa::size_bits(inst.last_type()) != 64 && !contract_->buffer(name) &&
        !contract_->pointer_array(name))
      return int_unknown();
    BufferValue b;
    b.kind = Kind::kPtr;
    b.param = p;
    b.origin = i;
    b.range = R::constant(0);
    return b;
  }
  return int_unknown();
}

BufferValue BufferOffsets::load_slice_pointer(InstId i, const At& at) const {
  const Instruction& inst = a_->ir.inst(i);
  if (access_width(inst) != 8 || inst.operands.size() != 2 ||
      inst.operands[1].kind != OperandKind::kAddress)
    return int_unknown();
  BufferValue addr = address(i, 1, at);
  if (addr.kind != Kind::kPtr || addr.var || addr.slice_hi >= 0) return int_unknown();
  const PointerArrayContract* pa =
      contract_->pointer_array(a_->ir.function().params[addr.param].name);
  if (!pa || addr.range.lo == R::kNegInf || addr.range.hi == R::kPosInf || addr.range.lo < 0)
    return int_unknown();
  BufferValue b;
  b.kind = Kind::kPtr;
  b.param = addr.param;
  b.origin = i;
  b.slice_hi = addr.range.hi / 8;
  b.range = R::constant(0);
  return b;
}

std::int64_t BufferOffsets::remainder_idiom(InstId i) const {
  const ValueNumbering& vn = a_->values;
  const FunctionIR& ir = a_->ir;
  ValueId x = vn.value_of(i, 1), y = vn.value_of(i, 2);
  InstId m = y == kNoId ? kNoId : vn.defining_instruction(y);
  if (x == kNoId || m == kNoId || vn.info(vn.leader(y)).kind != ValueKind::kDef) return 0;
  const Instruction& mi = ir.inst(m);
  if (mi.operands.size() != 3 || mi.has_modifier("hi") || mi.has_modifier("wide")) return 0;
  // y = q * c (either order) or q << k
  std::int64_t c = 0;
  std::uint32_t qk = 0;
  if (mi.op == Opcode::kMul) {
    qk = mi.operands[2].kind == OperandKind::kImmInt ? 1 : 2;
    if (mi.operands[3 - qk].kind != OperandKind::kImmInt) return 0;
    c = mi.operands[3 - qk].int_value();
  } else if (mi.op == Opcode::kShl && mi.operands[2].kind == OperandKind::kImmInt) {
    qk = 1;
    std::int64_t k = mi.operands[2].int_value();
    if (k < 0 || k > 40) return 0;
    c = std::int64_t{1} << k;
  } else {
    return 0;
  }
  ValueId q = vn.value_of(m, qk);
  InstId d = q == kNoId ? kNoId : vn.defining_instruction(q);
  if (c <= 0 || d == kNoId || vn.info(vn.leader(q)).kind != ValueKind::kDef) return 0;
  // q = x / c (unsigned) or x >> k
  const Instruction& di = ir.inst(d);
  if (di.operands.size() != 3 || vn.value_of(d, 1) != x ||
      di.operands[2].kind != OperandKind::kImmInt ||
      isa::kind(di.last_type()) == isa::TypeKind::kSigned)
    return 0;
  std::int64_t dc = di.operands[2].int_value();
  if (di.op == Opcode::kDiv && dc == c) return c;
  if (di.op == Opcode::kShr && dc >= 0 && dc <= 40 && (std::int64_t{1} << dc) == c) return c;
  return 0;
}

BufferValue BufferOffsets::eval(InstId i, const At& at) const {
  const Instruction& inst = a_->ir.inst(i);
  const Opcode op = inst.op;
  const auto n = inst.operands.size();
  if (n < 2 || inst.operands[0].kind != OperandKind::kRegister) return int_unknown();
  if (op == Opcode::kLd) {
    if (explicit_space(inst) == AddrSpace::kParam) return load_param(i);
    AddrSpace s = explicit_space(inst);
    if (s == AddrSpace::kGlobal || s == AddrSpace::kNone) return load_slice_pointer(i, at);
    return int_unknown();
  }
  if (op == Opcode::kMov && n == 2) return leaf(i, 1, at);
  if (op == Opcode::kCvta && n == 2) {
    BufferValue x = leaf(i, 1, at);
    AddrSpace s = explicit_space(inst);
    if (x.kind == Kind::kPtr && s == (x.var ? AddrSpace::kShared : AddrSpace::kGlobal)) return x;
    return x.kind == Kind::kPtr ? mixed() : int_unknown();
  }
  if (op == Opcode::kCvt && n == 2) {
    isa::Type dst = first_type(inst), src = inst.last_type();
    if (!is_int(dst) || !is_int(src)) return int_unknown();
    BufferValue x = leaf(i, 1, at);
    // A shared-window address fits 32 bits (cvta.to.shared.u64 then cvt.u32.u64).
    if (x.kind == Kind::kPtr)
      return (isa::size_bits(dst) == 64 && isa::size_bits(src) == 64) || x.var ? x : mixed();
    if (x.kind != Kind::kInt) return x.kind == Kind::kTop ? x : int_unknown();
    R r = read_as(x.range, src);
    if (isa::size_bits(dst) < isa::size_bits(src)) r = fit(r, isa::size_bits(dst));
    return int_value(r);
  }
  isa::Type t = inst.last_type();
  if (!is_int(t)) return int_unknown();
  const unsigned bits = isa::size_bits(t);
  const bool wide = inst.has_modifier("wide");
  const unsigned out_bits = wide ? 2 * bits : bits;
  auto rd = [&](const BufferValue& v) { return read_as(v.range, t); };
  auto top_or = [&](std::initializer_list<BufferValue> vs) -> std::optional<BufferValue> {
    for (const BufferValue& v : vs)
      if (v.kind == Kind::kTop) return v;
    for (const BufferValue& v : vs)
      if (v.kind == Kind::kMixed) return mixed();
    return std::nullopt;
  };
  auto ptr_plus = [&](BufferValue p, const R& off, bool negate) {
    p.range = negate ? sub(p.range, off) : add(p.range, off);
    return p;
  };
  if ((op == Opcode::kAdd || op == Opcode::kSub) && n == 3) {
    if (inst.has_modifier("cc") || inst.has_modifier("sat")) return int_unknown();
    BufferValue x = leaf(i, 1, at), y = leaf(i, 2, at);
    if (auto s = top_or({x, y})) return *s;
    bool neg = op == Opcode::kSub;
    if (x.kind == Kind::kPtr && y.kind == Kind::kInt) return ptr_plus(x, rd(y), neg);
    if (!neg && y.kind == Kind::kPtr && x.kind == Kind::kInt) return ptr_plus(y, rd(x), false);
    if (x.kind == Kind::kPtr || y.kind == Kind::kPtr) return neg ? int_unknown() : mixed();
    if (neg && isa::kind(t) != isa::TypeKind::kSigned)
      if (std::int64_t c = remainder_idiom(i); c > 0) return int_value(rem_const(rd(x), c));
    return int_value(fit(neg ? sub(rd(x), rd(y)) : add(rd(x), rd(y)), bits));
  }
  if ((op == Opcode::kMul || op == Opcode::kMad) && !inst.has_modifier("hi") &&
      !inst.has_modifier("cc") && n == (op == Opcode::kMul ? 3u : 4u)) {
    BufferValue x = leaf(i, 1, at), y = leaf(i, 2, at);
    if (auto s = top_or({x, y})) return *s;
    if (x.kind == Kind::kPtr || y.kind == Kind::kPtr) return mixed();
    R prod = fit(mul(rd(x), rd(y)), out_bits);
    if (op == Opcode::kMul) return int_value(prod);
    BufferValue c = leaf(i, 3, at);
    if (c.kind == Kind::kTop) return c;
    if (c.kind == Kind::kPtr) return ptr_plus(c, prod, false);
    if (c.kind != Kind::kInt) return mixed();
    R cr = isa::kind(t) == isa::TypeKind::kSigned ? as_signed(c.range, out_bits)
                                                  : as_unsigned(c.range, out_bits);
    return int_value(fit(add(prod, cr), out_bits));
  }
  if ((op == Opcode::kShl || op == Opcode::kShr) && n == 3) {
    BufferValue x = leaf(i, 1, at), y = leaf(i, 2, at);
    if (auto s = top_or({x, y})) return *s;
    if (x.kind == Kind::kPtr) return mixed();
    if (!y.range.is_constant() || y.range.lo < 0 || y.range.lo >= 64) return int_unknown();
    auto k = static_cast<unsigned>(y.range.lo);
    if (op == Opcode::kShl) return int_value(fit(shl(as_unsigned(x.range, bits), k), bits));
    R xr = rd(x);
    if (xr.lo == R::kNegInf || xr.lo < 0) return int_unknown();
    return int_value(shr_const(xr, k));
  }
  if ((op == Opcode::kAnd || op == Opcode::kOr || op == Opcode::kXor) && n == 3) {
    BufferValue x = leaf(i, 1, at), y = leaf(i, 2, at);
    if (auto s = top_or({x, y})) return *s;
    if (x.kind == Kind::kPtr || y.kind == Kind::kPtr) return mixed();
    R xr = as_unsigned(x.range, bits), yr = as_unsigned(y.range, bits);
    if (op == Opcode::kAnd) {
      if (yr.is_constant()) return int_value(and_const(xr, yr.lo));
      if (xr.is_constant()) return int_value(and_const(yr, xr.lo));
      if (xr.lo >= 0 && yr.lo >= 0 && xr.lo != R::kNegInf && yr.lo != R::kNegInf) {
        R r = R::interval(0, std::min(xr.hi, yr.hi));
        r.exact = false;
        return int_value(r);
      }
      return int_unknown();
    }
    if (yr.is_constant() && !xr.is_constant()) std::swap(xr, yr);
    // x | c or x ^ c where x's low bits are known zero and c fits in them: x + c.
    if (yr.is_constant() && xr.mod > 0 && xr.rem == 0 && yr.lo >= 0 &&
        static_cast<std::uint64_t>(yr.lo) < (xr.mod & (~xr.mod + 1)))
      return int_value(add(xr, yr));
    if (xr.bounded() && yr.bounded() && xr.lo >= 0 && yr.lo >= 0) {
      std::int64_t m = std::max(xr.hi, yr.hi), p = 1;
      while (p <= m && p < R::kLimit)
        p <<= 1;
      R r = R::interval(0, p - 1);
      r.exact = false;
      return int_value(r);
    }
    return int_unknown();
  }
  if ((op == Opcode::kMin || op == Opcode::kMax) && n == 3) {
    BufferValue x = leaf(i, 1, at), y = leaf(i, 2, at);
    if (auto s = top_or({x, y})) return *s;
    if (x.kind != Kind::kInt || y.kind != Kind::kInt) return int_unknown();
    return int_value(op == Opcode::kMin ? min(rd(x), rd(y)) : max(rd(x), rd(y)));
  }
  if ((op == Opcode::kDiv || op == Opcode::kRem) && n == 3) {
    BufferValue x = leaf(i, 1, at), y = leaf(i, 2, at);
    if (auto s = top_or({x, y})) return *s;
    if (x.kind != Kind::kInt || !y.range.is_constant()) return int_unknown();
    R xr = rd(x);
    return int_value(op == Opcode::kDiv ? div_const(xr, rd(y).lo) : rem_const(xr, rd(y).lo));
  }
  if (op == Opcode::kSelp && n == 4) {
    // Where a dominating branch has decided the selector (selp before `@p bra`, the value used
    // on one side), only the chosen operand reaches the use.
    const Instruction& si = a_->ir.inst(i);
    if (si.operands[3].kind == OperandKind::kRegister)
      if (auto p = decided(a_->values.value_of(i, 3), at.block))
        return leaf(i, *p != si.operands[3].negated() ? 1 : 2, at);
    // Or the comparison itself, where its operands' ranges leave one outcome (a witness search
    // pins the thread index a `tid < 64 ? a : b` compares).
    if (si.operands[3].kind == OperandKind::kRegister)
      if (auto p = comparison_outcome(a_->values.value_of(i, 3), at))
        return leaf(i, *p != si.operands[3].negated() ? 1 : 2, at);
    return join_values(leaf(i, 1, at), leaf(i, 2, at));
  }
  if (op == Opcode::kBfe && n == 4 && isa::kind(t) != isa::TypeKind::kSigned) {
    BufferValue len = leaf(i, 3, at);
    if (len.range.is_constant() && len.range.lo >= 0 && len.range.lo < 62) {
      R r = R::interval(0, (std::int64_t{1} << len.range.lo) - 1);
      r.exact = false;
      return int_value(r);
    }
  }
  return int_unknown();
}

std::optional<bool> BufferOffsets::comparison_outcome(ValueId pred, const At& at) const {
  const ValueNumbering& vn = a_->values;
  if (pred == kNoId || at.block == kNoId) return std::nullopt;
  const ValueId l = vn.leader(pred);
  if (vn.info(l).kind != ValueKind::kDef) return std::nullopt;
  const InstId s = vn.info(l).inst;
  const Instruction& si = a_->ir.inst(s);
  if (si.op != Opcode::kSetp || si.operands.size() != 3 || si.modifiers.size() != 2)
    return std::nullopt;
  bool is_unsigned = false;
  const Cmp cmp = cmp_of(si.modifiers[0], is_unsigned);
  const isa::Type type = isa::type_from_spelling(si.modifiers[1]);
  if (cmp == kNoCmp || !is_int(type)) return std::nullopt;
  BufferValue x = leaf(s, 1, at), y = leaf(s, 2, at);
  if (x.kind != Kind::kInt || y.kind != Kind::kInt) return std::nullopt;
  const unsigned bits = isa::size_bits(type);
  const bool as_u = is_unsigned || isa::kind(type) != isa::TypeKind::kSigned;
  const R xr = as_u ? as_unsigned(x.range, bits) : as_signed(x.range, bits);
  const R yr = as_u ? as_unsigned(y.range, bits) : as_signed(y.range, bits);
  if (!xr.bounded() || !yr.bounded()) return std::nullopt;
  const bool lt = xr.hi<yr.lo, ge = xr.lo >= yr.hi, gt = xr.lo> yr.hi, le = xr.hi <= yr.lo;
  const bool eq = xr.is_constant() && yr.is_constant() && xr.lo == yr.lo;
  const bool ne = xr.hi < yr.lo || xr.lo > yr.hi;
  switch (cmp) {
  case kLt:
    return lt ? std::optional(true) : ge ? std::optional(false) : std::nullopt;
  case kLe:
    return le ? std::optional(true) : gt ? std::optional(false) : std::nullopt;
  case kGt:
    return gt ? std::optional(true) : le ? std::optional(false) : std::nullopt;
  case kGe:
    return ge ? std::optional(true) : lt ? std::optional(false) : std::nullopt;
  case kEq:
    return eq ? std::optional(true) : ne ? std::optional(false) : std::nullopt;
  case kNe:
    return ne ? std::optional(true) : eq ? std::optional(false) : std::nullopt;
  default:
    return std::nullopt;
  }
}

BufferValue BufferOffsets::operand_value(InstId i, std::uint32_t k) const {
  std::vector<Cond> guard;
  const InstInfo& info = a_->ir.info(i);
  if (info.guard != kNoId) conds_of(a_->values.guard_value(i), !info.guard_negated, 0, guard);
  memo_.start(a_->values.size());
  At at{a_->cfg.block_of(i), &guard, 0, &memo_};
  return leaf(i, k, at);
}

BufferValue BufferOffsets::operand_value_pinned(InstId i, std::uint32_t k, LaunchId id,
                                                std::int64_t lo, std::int64_t hi) const {
  pins_[static_cast<int>(id)] = R::interval(lo, hi);
  BufferValue v = operand_value(i, k);
  pins_[static_cast<int>(id)].reset();
  return v;
}

BufferValue BufferOffsets::operand_value_pinned(InstId i, std::uint32_t k,
                                                const LaunchPins& pins) const {
  pins_ = pins;
  BufferValue v = operand_value(i, k);
  for (auto& p : pins_)
    p.reset();
  return v;
}

std::optional<BufferOffsets::Witness> BufferOffsets::find_witness(
    InstId i, std::uint32_t k, const std::array<StridedRange, kLaunchIds>& space,
    const LaunchOrder& order, const std::function<bool(const BufferValue&)>& bad) const {
  for (int id = 0; id < kLaunchIds; ++id)
    pins_[id] = space[id];
  auto holds = [&] { return bad(operand_value(i, k)); };
  Witness w;
  bool found = holds();
  // Pinned one id at a time: the smallest value from which `bad` holds (the range [lo, v]
  // only grows with v, so does the offset range it admits, so `bad` holds from some v on).
  for (LaunchId lid : order) {
    if (!found) break;
    const auto id = static_cast<int>(lid);
    const StridedRange r = space[id];
    if (!reads_[id] || !r.bounded()) continue;
    auto bad_upto = [&](std::int64_t v) {
      pins_[id] = R::interval(r.lo, v);
      return holds();
    };
    // An id the value does not depend on (over the launch's whole range of it) stays out of
    // the witness.
    pins_[id] = ids_[id];
    const BufferValue free = operand_value(i, k);
    pins_[id] = R::constant(r.lo);
    const BufferValue at_lo = operand_value(i, k);
    pins_[id] = r;
    if (free == at_lo) continue;
    std::int64_t lo = r.lo, hi = r.hi; // bad_upto(hi) holds
    if (bad_upto(lo)) {
      hi = lo;
    } else {
      while (hi - lo > 1) {
        std::int64_t mid = lo + (hi - lo) / 2;
        (bad_upto(mid) ? hi : lo) = mid;
      }
    }
    pins_[id] = R::constant(hi);
    w.ids[id] = hi;
    found = holds();
  }
  if (found) w.value = operand_value(i, k);
  for (auto& p : pins_)
    p.reset();
  if (!found) return std::nullopt;
  return w;
}

StridedRange BufferOffsets::launch_range(LaunchId id) const {
  return ids_[static_cast<int>(id)];
}

StridedRange BufferOffsets::guaranteed_range(LaunchId id) const {
  const StridedRange& r = ids_[static_cast<int>(id)];
  return r.exact && r.bounded() ? r : R::constant(0);
}

std::optional<std::uint64_t> BufferOffsets::buffer_bytes(const BufferValue& v) const {
  if (v.kind != Kind::kPtr) return std::nullopt;
  if (v.var) return v.var->size_in_bytes();
  std::string_view name = a_->ir.function().params[v.param].name;
  if (const BufferContract* b = contract_->buffer(name)) return b->bytes;
  if (const PointerArrayContract* p = contract_->pointer_array(name)) {
    if (v.slice_hi < 0) return p->count * 8;
    std::uint64_t used = static_cast<std::uint64_t>(v.slice_hi) * p->stride;
    return used >= p->bytes ? 0 : p->bytes - used;
  }
  return std::nullopt;
}

} // namespace ptxkit::verifier::analysis
