// address_provenance.cpp: the forward interpretation of address_provenance.h: a transfer
// function per instruction kind, joins at phis and guarded writes, iterated over the SSA values
// until nothing changes (with widening of ranges that keep moving).
#include "ptxkit/verifier/analysis/address_provenance.h"

#include "ptxkit/verifier/analysis/flat_lists.h"

#include <algorithm>
#include <limits>

namespace ptxkit::verifier::analysis {

namespace {

using Kind = AbsValue::Kind;
constexpr std::int64_t kBig = std::int64_t{1} << 40; // ranges beyond this are dropped
constexpr int kWidenAfter = 4;

AbsValue top() {
  return {};
}
AbsValue int_unknown() {
  AbsValue v;
  v.kind = Kind::kInt;
  return v;
}
AbsValue int_range(std::int64_t lo, std::int64_t hi) {
  AbsValue v;
  v.kind = Kind::kInt;
  if (lo >= -kBig && hi <= kBig && lo <= hi) {
    v.has_range = true;
    v.lo = lo;
    v.hi = hi;
  }
  return v;
}
AbsValue mixed() {
  AbsValue v;
  v.kind = Kind::kMixed;
  return v;
}
AbsValue with_range(AbsValue v, bool has, std::int64_t lo, std::int64_t hi) {
  v.has_range = has && lo >= -kBig && hi <= kBig && lo <= hi;
  v.lo = v.has_range ? lo : 0;
  v.hi = v.has_range ? hi : 0;
  return v;
}

AbsValue join(const AbsValue& a, const AbsValue& b) {
  if (a.kind == Kind::kTop) return b;
  if (b.kind == Kind::kTop) return a;
  if (a.kind == Kind::kMixed || b.kind == Kind::kMixed || a.kind != b.kind) return mixed();
  if (a.kind == Kind::kAddr && (a.space != b.space || a.generic != b.generic || a.var != b.var))
    return mixed();
  AbsValue r = a;
  r.exact = a.exact && b.exact;
  if (a.origin != b.origin) r.origin = std::min(a.origin, b.origin);
  return with_range(r, a.has_range && b.has_range, std::min(a.lo, b.lo), std::max(a.hi, b.hi));
}

bool is_space_modifier(std::string_view m) {
  return m == "global" || m == "shared" || m.starts_with("shared::") || m == "const" ||
         m == "param" || m.starts_with("param::") || m == "local";
}

AddrSpace space_from_modifier(std::string_view m) {
  if (m == "global") return AddrSpace::kGlobal;
  if (m.starts_with("shared")) return AddrSpace::kShared;
  if (m == "local") return AddrSpace::kLocal;
  if (m == "const") return AddrSpace::kConst;
  if (m.starts_with("param")) return AddrSpace::kParam;
  return AddrSpace::kNone;
}

// Int arithmetic on ranges; `exact` as address_provenance.h defines it.
AbsValue arith(Opcode op, const AbsValue& x, const AbsValue& y) {
  if (x.kind != Kind::kInt || y.kind != Kind::kInt) return int_unknown();
  if (!x.has_range || !y.has_range) return int_unknown();
  bool both = x.exact && y.exact;
  auto out = [&](std::int64_t lo, std::int64_t hi, bool exact) {
    AbsValue r = int_range(lo, hi);
    r.exact = exact;
    return r;
  };
  bool xs = x.lo == x.hi, ys = y.lo == y.hi;
  if (op == Opcode::kAdd) return out(x.lo + y.lo, x.hi + y.hi, both);
  if (op == Opcode::kSub) return out(x.lo - y.hi, x.hi - y.lo, both && ys);
  if (op == Opcode::kMul) {
    std::int64_t c[] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi};
    bool mono = (xs && x.lo >= 0) || (ys && y.lo >= 0);
    return out(*std::min_element(c, c + 4), *std::max_element(c, c + 4), both && mono);
  }
  if (op == Opcode::kShl && ys && y.lo >= 0 && y.lo < 24)
    return out(x.lo << y.lo, x.hi << y.lo, both);
  if (op == Opcode::kShr && ys && y.lo >= 0 && y.lo < 63 && x.lo >= 0)
    return out(x.lo >> y.lo, x.hi >> y.lo, both);
  if (op == Opcode::kAnd && (ys || xs)) {
    const AbsValue& v = ys ? x : y;
    std::int64_t m = ys ? y.lo : x.lo;
    if (m < 0) return int_unknown();
    bool low_mask = (m & (m + 1)) == 0 && v.lo == 0 && v.hi >= m;
    return out(0, v.lo >= 0 ? std::min(m, v.hi) : m, v.exact && low_mask);
  }
  if (op == Opcode::kMin) return out(std::min(x.lo, y.lo), std::min(x.hi, y.hi), both);
  if (op == Opcode::kMax) return out(std::max(x.lo, y.lo), std::max(x.hi, y.hi), both);
  return int_unknown();
}

} // namespace

std::string_view addr_space_name(AddrSpace s) {
  switch (s) {
  case AddrSpace::kGlobal:
    return "global";
  case AddrSpace::kShared:
    return "shared";
  case AddrSpace::kLocal:
    return "local";
  case AddrSpace::kConst:
    return "const";
  case AddrSpace::kParam:
    return "param";
  case AddrSpace::kNone:
    break;
  }
  return "generic";
}

AddrSpace addr_space_of(StateSpace s) {
  switch (s) {
  case StateSpace::kGlobal:
    return AddrSpace::kGlobal;
  case StateSpace::kShared:
    return AddrSpace::kShared;
  case StateSpace::kLocal:
    return AddrSpace::kLocal;
  case StateSpace::kConst:
    return AddrSpace::kConst;
  case StateSpace::kParam:
    return AddrSpace::kParam;
  default:
    return AddrSpace::kNone;
  }
}

AddrSpace explicit_space(const Instruction& inst, std::uint32_t nth) {
  for (std::string_view m : inst.modifiers)
    if (is_space_modifier(m) && nth-- == 0) return space_from_modifier(m);
  return AddrSpace::kNone;
}

std::uint32_t access_width(const Instruction& inst) {
  std::uint32_t vec = 1, elem = 0;
  for (std::string_view m : inst.modifiers) {
    if (m == "v2")
      vec = 2;
    else if (m == "v4")
      vec = 4;
    else if (m == "v8")
      vec = 8;
    else if (ScalarType t = isa::type_from_spelling(m); t != ScalarType::kUnknown)
      elem = isa::size_bytes(t);
  }
  return vec * elem;
}

static void collect_vars(const Block& b,
                         std::unordered_map<std::string_view, const VarDecl*>& out) {
  for (const Statement& s : b.statements) {
    if (const auto* v = std::get_if<VarDecl>(&s.node))
      out.emplace(v->name, v);
    else if (const auto* nb = std::get_if<Block>(&s.node))
      collect_vars(*nb, out);
  }
}

AddressProvenance::AddressProvenance(const Module& m, const FunctionAnalysis& a)
    : a_(&a), val_(a.values.size()), changes_(a.values.size(), 0) {
  const Function& fn = a.ir.function();
  collect_vars(fn.body, vars_); // innermost first: body declarations shadow module ones
  for (const VarDecl& p : fn.params)
    vars_.emplace(p.name, &p);
  for (const TopLevel& t : m.items)
    if (const auto* v = std::get_if<VarDecl>(&t)) vars_.emplace(v->name, v);
  const ValueNumbering& vn = a.values;
  // The values whose evaluation reads value l's fact (facts are read through leaders): an
  // instruction's results read its operands, a guarded write also its prior value, a phi its
  // incoming values.
  FlatLists<ValueId> readers = FlatLists<ValueId>::build(vn.size(), [&](auto&& emit) {
    auto reads = [&](ValueId reader, ValueId x) {
      if (x != kNoId) emit(vn.leader(x), reader);
    };
    for (ValueId v = 0; v < vn.size(); ++v) {
      const ValueInfo& x = vn.info(v);
      if (x.kind == ValueKind::kDef || x.kind == ValueKind::kGuarded)
        vn.for_each_operand_value(x.inst, [&](ValueId u) { reads(v, u); });
      if (x.kind == ValueKind::kGuarded) reads(v, x.prior);
      if (x.kind == ValueKind::kPhi)
        for (const PhiIncoming& in : vn.raw_phi_incoming(v))
          reads(v, in.value);
    }
  });
  // Round-robin to a fixpoint: values only move up the lattice (ranges widen, then drop). A
  // value is evaluated again only when a fact it reads changed since its last evaluation, or
  // when that evaluation gave less than its fact (the widening counter then still counts it):
  // otherwise evaluating it would give the same and change nothing. Same result as evaluating
  // every value each round, in a fraction of the time on large functions.
  std::vector<char> dirty(vn.size(), 1), settled(vn.size(), 0);
  for (int round = 0; round < 64; ++round) {
    bool changed = false;
    for (ValueId v = 0; v < vn.size(); ++v) {
      if (!dirty[v] && settled[v]) continue;
      dirty[v] = 0;
      const ValueInfo& x = vn.info(v);
      AbsValue nv;
      switch (x.kind) {
      case ValueKind::kUndef:
      case ValueKind::kParam:
        nv = int_unknown();
        break;
      case ValueKind::kDef:
        nv = eval(x.inst, false);
        break;
      case ValueKind::kGuarded:
        nv = join(eval(x.inst, false), x.prior == kNoId ? top() : val_[vn.leader(x.prior)]);
        break;
      case ValueKind::kPhi:
        for (const PhiIncoming& in : vn.raw_phi_incoming(v))
          nv = join(nv, in.value == kNoId ? int_unknown() : val_[vn.leader(in.value)]);
        break;
      }
      AbsValue evaluated = nv;
      if (nv.has_range && val_[v].has_range && nv != val_[v] && ++changes_[v] > kWidenAfter)
        nv = with_range(nv, false, 0, 0);
      nv = join(val_[v], nv);
      if (!(nv == val_[v])) {
        val_[v] = nv;
        changed = true;
        for (ValueId r : readers[v])
          dirty[r] = 1;
      }
      settled[v] = evaluated == val_[v];
    }
    if (!changed) break;
  }
  for (InstId i = 0; i < a.ir.size(); ++i) {
    const Instruction& inst = a.ir.inst(i);
    if (inst.op == Opcode::kCvta && a.cfg.reachable(a.cfg.block_of(i))) eval(i, true);
  }
  place_edge_bounds();
}

AbsValue AddressProvenance::value(ValueId v) const {
  return v == kNoId ? int_unknown() : val_[a_->values.leader(v)];
}

const VarDecl* AddressProvenance::find_variable(std::string_view name) const {
  auto it = vars_.find(name);
  return it == vars_.end() ? nullptr : it->second;
}

AbsValue AddressProvenance::special(std::string_view name) const {
  if (name == "%laneid") return int_range(0, 31);
  if (name.starts_with("%tid.")) {
    const Function& fn = a_->ir.function();
    char d = name.back();
    int dim = d == 'x' ? 0 : d == 'y' ? 1 : d == 'z' ? 2 : -1;
    // .reqntid gives the block's shape; .maxntid only bounds its thread count (nvcc writes
    // __launch_bounds__(128) as `.maxntid 128, 1, 1` whatever the launch's shape), so each
    // extent is at most that product.
    if (auto req = fn.reqntid(); req && dim >= 0 && (*req)[dim] > 0)
      return int_range(0, (*req)[dim] - 1);
    if (auto max = fn.maxntid(); max && dim >= 0) {
      std::int64_t n = std::int64_t{(*max)[0]} * (*max)[1] * (*max)[2];
      if (n > 0) return int_range(0, n - 1);
    }
  }
  return int_unknown();
}

AbsValue AddressProvenance::leaf(InstId i, std::uint32_t k) const {
  const Instruction& inst = a_->ir.inst(i);
  if (k >= inst.operands.size()) return int_unknown();
  const Operand& o = inst.operands[k];
  switch (o.kind) {
  case OperandKind::kImmInt:
    return int_range(o.int_value(), o.int_value());
  case OperandKind::kSpecialReg:
    return special(o.text());
  case OperandKind::kRegister:
  case OperandKind::kSymbol: {
    ValueId v = a_->values.value_of(i, k);
    if (v != kNoId) return use_block_ != kNoId ? value_at(v) : val_[a_->values.leader(v)];
    const VarDecl* var = find_variable(o.text());
    if (!var) return int_unknown();
    AddrSpace s = addr_space_of(var->space);
    if (s == AddrSpace::kNone) return int_unknown();
    AbsValue r;
    r.kind = Kind::kAddr;
    r.space = s;
    r.var = var;
    r.origin = i;
    // `arr[%r1]`: somewhere in the variable, at an offset this does not bound.
    if (o.has_register_index()) return with_range(r, false, 0, 0);
    std::int64_t off = o.has_offset() ? o.address_offset() : 0;
    return with_range(r, true, off, off);
  }
  default:
    return int_unknown();
  }
}

AbsValue AddressProvenance::value_at(ValueId v) const {
  const ValueNumbering& vn = a_->values;
  ValueId l = vn.leader(v);
  AbsValue r = val_[l];
  const ValueInfo& x = vn.info(l);
  if (depth_ < 6 && x.kind == ValueKind::kDef && r.kind != Kind::kMixed) {
    ++depth_;
    AbsValue e = eval(x.inst, false);
    --depth_;
    if (e.kind == r.kind && e.space == r.space && e.var == r.var && e.generic == r.generic &&
        e.has_range)
      r = e;
  }
  if (r.kind != Kind::kInt) return r;
  auto first = std::lower_bound(bounds_.begin(), bounds_.end(), l,
                                [](const PlacedBound& p, ValueId x) { return p.leader < x; });
  Bound c; // the intersection of every bound on l that holds at the use
  bool any = false;
  for (auto it = first; it != bounds_.end() && it->leader == l; ++it) {
    if (!a_->dom.dominates(it->block, use_block_)) continue;
    const Bound& b = it->bound;
    any = true;
    if (b.has_lo) c.lo = c.has_lo ? std::max(c.lo, b.lo) : b.lo, c.has_lo = true;
    if (b.has_hi) c.hi = c.has_hi ? std::min(c.hi, b.hi) : b.hi, c.has_hi = true;
  }
  if (!any) return r;
  bool has = r.has_range || (c.has_lo && c.has_hi);
  std::int64_t lo = r.has_range ? r.lo : c.lo, hi = r.has_range ? r.hi : c.hi;
  if (c.has_lo) lo = std::max(lo, c.lo);
  if (c.has_hi) hi = std::min(hi, c.hi);
  return with_range(r, has && lo <= hi, lo, hi);
}

void AddressProvenance::place_edge_bounds() {
  const Cfg& cfg = a_->cfg;
  const ValueNumbering& vn = a_->values;
  std::vector<Bound> found;
  for (BlockId d = 0; d < cfg.size(); ++d) {
    const auto& preds = cfg.block(d).preds;
    if (preds.size() != 1 || !a_->dom.in_tree(d)) continue;
    const auto g = edge_guard(*a_, preds[0], d); // the guard predicate's value on the edge
    if (!g) continue;
    found.clear();
    pred_bounds(g->first, g->second, 0, found);
    for (const Bound& b : found)
      bounds_.push_back({vn.leader(b.value), d, b});
  }
  std::stable_sort(bounds_.begin(), bounds_.end(),
                   [](const PlacedBound& x, const PlacedBound& y) { return x.leader < y.leader; });
}

// Bounds implied by predicate value g being `holds`: a setp against a constant, and through
// not.pred, and.pred (when true) and or.pred (when false).
void AddressProvenance::pred_bounds(ValueId g, bool holds, int depth,
                                    std::vector<Bound>& out) const {
  const FunctionIR& ir = a_->ir;
  const ValueNumbering& vn = a_->values;
  if (g == kNoId || depth > 4) return;
  InstId s = vn.defining_instruction(g);
  if (s == kNoId || vn.info(vn.leader(g)).kind != ValueKind::kDef) return;
  const Instruction& si = ir.inst(s);
  if (si.operands.empty() || si.operands[0].kind != OperandKind::kRegister) return;
  if (si.op == Opcode::kNot && si.operands.size() == 2) {
    pred_bounds(vn.value_of(s, 1), !holds, depth + 1, out);
    return;
  }
  if ((si.op == Opcode::kAnd && holds) || (si.op == Opcode::kOr && !holds)) {
    if (si.operands.size() != 3 || !si.has_modifier("pred")) return;
    for (std::uint32_t k = 1; k <= 2; ++k)
      if (!si.operands[k].negated()) pred_bounds(vn.value_of(s, k), holds, depth + 1, out);
    return;
  }
  if (si.op != Opcode::kSetp || si.operands.size() != 3 || si.modifiers.size() != 2) return;
  std::string_view cmp = si.modifiers[0], type = si.modifiers[1];
  bool is_unsigned = type.starts_with('u') || type.starts_with('b');
  if (!is_unsigned && !type.starts_with('s')) return;
  std::uint32_t var = 1;
  std::int64_t c = 0;
  if (si.operands[2].kind == OperandKind::kImmInt) {
    c = si.operands[2].int_value();
  } else if (si.operands[1].kind == OperandKind::kImmInt) {
    c = si.operands[1].int_value();
    var = 2; // C cmp x: mirror the comparison
    static constexpr std::pair<std::string_view, std::string_view> kMirror[] = {
        {"lt", "gt"}, {"gt", "lt"}, {"le", "ge"}, {"ge", "le"},
        {"lo", "hi"}, {"hi", "lo"}, {"ls", "hs"}, {"hs", "ls"}};
    for (auto [x, y] : kMirror)
      if (cmp == x) {
        cmp = y;
        break;
      }
  } else {
    return;
  }
  if (!holds) {
    static constexpr std::pair<std::string_view, std::string_view> kNot[] = {
        {"lt", "ge"}, {"ge", "lt"}, {"le", "gt"}, {"gt", "le"}, {"lo", "hs"},
        {"hs", "lo"}, {"ls", "hi"}, {"hi", "ls"}, {"eq", "ne"}, {"ne", "eq"}};
    for (auto [x, y] : kNot)
      if (cmp == x) {
        cmp = y;
        break;
      }
  }
  Bound bd;
  bd.value = vn.value_of(s, var);
  if (bd.value == kNoId) return;
  bd.has_lo = is_unsigned;
  if (cmp == "lt" || cmp == "lo")
    bd.has_hi = true, bd.hi = c - 1;
  else if (cmp == "le" || cmp == "ls")
    bd.has_hi = true, bd.hi = c;
  else if (cmp == "gt" || cmp == "hi")
    bd.has_lo = true, bd.lo = std::max<std::int64_t>(bd.lo, c + 1);
  else if (cmp == "ge" || cmp == "hs")
    bd.has_lo = true, bd.lo = std::max<std::int64_t>(bd.lo, c);
  else if (cmp == "eq")
    bd.has_lo = bd.has_hi = true, bd.lo = bd.hi = c;
  else
    return;
  out.push_back(bd);
}

AbsValue AddressProvenance::operand_value(InstId i, std::uint32_t k) const {
  use_block_ = a_->cfg.block_of(i);
  depth_ = 0;
  AbsValue r = operand_value_unrefined(i, k);
  use_block_ = kNoId;
  return r;
}

AbsValue AddressProvenance::operand_value_unrefined(InstId i, std::uint32_t k) const {
  const Instruction& inst = a_->ir.inst(i);
  if (k >= inst.operands.size()) return int_unknown();
  const Operand& o = inst.operands[k];
  if (o.kind != OperandKind::kAddress) return leaf(i, k);
  if (o.address_base_is_immediate()) return int_unknown();
  AbsValue base;
  ValueId v = a_->values.value_of(i, k, 0);
  if (v != kNoId) {
    base = use_block_ != kNoId ? value_at(v) : val_[a_->values.leader(v)];
  } else {
    const VarDecl* var = find_variable(o.text());
    AddrSpace s = var ? addr_space_of(var->space) : AddrSpace::kNone;
    if (s == AddrSpace::kNone) return int_unknown();
    base.kind = Kind::kAddr;
    base.space = s;
    base.var = var;
    base.origin = i;
    base = with_range(base, true, 0, 0);
  }
  if (base.kind != Kind::kAddr) return base;
  if (o.has_register_index()) return with_range(base, false, 0, 0); // `arr[%r1]`: unbounded
  std::int64_t off = o.address_offset();
  return with_range(base, base.has_range, base.lo + off, base.hi + off);
}

AbsValue AddressProvenance::eval(InstId i, bool record) const {
  const Instruction& inst = a_->ir.inst(i);
  const Opcode op = inst.op;
  const auto n = inst.operands.size();
  if (n < 2 || inst.operands[0].kind != OperandKind::kRegister) return int_unknown();
  auto addr_plus = [](AbsValue p, const AbsValue& off, bool negate) {
    bool has = p.has_range && off.has_range;
    p.exact = p.exact && off.exact && (!negate || off.lo == off.hi);
    std::int64_t lo = negate ? p.lo - off.hi : p.lo + off.lo;
    std::int64_t hi = negate ? p.hi - off.lo : p.hi + off.hi;
    return with_range(p, has, lo, hi);
  };
  if ((op == Opcode::kMov || op == Opcode::kCvt) && n == 2) return leaf(i, 1);
  if (op == Opcode::kCvta) {
    AbsValue x = leaf(i, 1);
    bool to = inst.has_modifier("to");
    AddrSpace s = explicit_space(inst);
    AbsValue r = x.kind == Kind::kAddr ? x : AbsValue{};
    r.kind = Kind::kAddr;
    r.space = s;
    r.generic = !to;
    r.origin = i;
    if (x.kind == Kind::kAddr) {
      bool checked = s != AddrSpace::kGlobal || x.space != AddrSpace::kGlobal;
      bool wrong = to ? (x.space != s || !x.generic) : (x.space != s || x.generic);
      bool global_only = (s == AddrSpace::kGlobal) && (x.space == AddrSpace::kGlobal);
      if (wrong && checked && !global_only) {
        if (record) bad_.push_back({i, x});
        r.var = nullptr;
        r.has_range = false;
      }
    } else {
      r = with_range(r, false, 0, 0);
      r.var = nullptr;
    }
    return r;
  }
  if (op == Opcode::kAdd || op == Opcode::kSub) {
    if (n != 3 || inst.has_modifier("cc")) return int_unknown();
    AbsValue x = leaf(i, 1), y = leaf(i, 2);
    if (x.kind == Kind::kTop || y.kind == Kind::kTop) return top();
    if (x.kind == Kind::kMixed || y.kind == Kind::kMixed) return mixed();
    if (x.kind == Kind::kAddr && y.kind == Kind::kInt) return addr_plus(x, y, op == Opcode::kSub);
    if (op == Opcode::kAdd && y.kind == Kind::kAddr && x.kind == Kind::kInt)
      return addr_plus(y, x, false);
    if (x.kind == Kind::kAddr && y.kind == Kind::kAddr)
      return op == Opcode::kSub ? int_unknown() : mixed();
    return arith(op, x, y);
  }
  if (op == Opcode::kMad && n == 4 && !inst.has_modifier("hi") && !inst.has_modifier("cc")) {
    AbsValue x = leaf(i, 1), y = leaf(i, 2), c = leaf(i, 3);
    if (x.kind == Kind::kTop || y.kind == Kind::kTop || c.kind == Kind::kTop) return top();
    AbsValue prod = arith(Opcode::kMul, x, y);
    if (x.kind == Kind::kAddr || y.kind == Kind::kAddr) return mixed();
    if (c.kind == Kind::kAddr) return addr_plus(c, prod, false);
    if (c.kind == Kind::kMixed) return mixed();
    return arith(Opcode::kAdd, prod, c);
  }
  if (op == Opcode::kMul && n == 3 && !inst.has_modifier("hi"))
    return arith(Opcode::kMul, leaf(i, 1), leaf(i, 2));
  if ((op == Opcode::kShl || op == Opcode::kShr || op == Opcode::kMin || op == Opcode::kMax) &&
      n == 3)
    return arith(op, leaf(i, 1), leaf(i, 2));
  if ((op == Opcode::kAnd || op == Opcode::kOr || op == Opcode::kXor) && n == 3) {
    AbsValue x = leaf(i, 1), y = leaf(i, 2);
    if (x.kind == Kind::kTop || y.kind == Kind::kTop) return top();
    if (x.kind == Kind::kAddr && y.kind == Kind::kInt) return with_range(x, false, 0, 0);
    if (y.kind == Kind::kAddr && x.kind == Kind::kInt) return with_range(y, false, 0, 0);
    if (x.kind != Kind::kInt || y.kind != Kind::kInt) return mixed();
    return op == Opcode::kAnd ? arith(Opcode::kAnd, x, y) : int_unknown();
  }
  if (op == Opcode::kSelp && n == 4) return join(leaf(i, 1), leaf(i, 2));
  return int_unknown();
}

} // namespace ptxkit::verifier::analysis
