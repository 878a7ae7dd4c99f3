// affine_index.cpp: affine forms of SSA values over thread fields, loop counters, symbols and
// opaque values (see affine_index.h for the transfer functions and assumptions).
#include "ptxkit/verifier/analysis/affine_index.h"

#include "ptxkit/verifier/analysis/memory_access.h"
#include "ptxkit/verifier/analysis/thread_index.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <optional>

namespace ptxkit::verifier::analysis {

namespace {

constexpr std::int64_t kLimit = std::int64_t{1} << 40;
constexpr int kMaxDepth = 48;

bool fits(std::int64_t v) {
  return v > -kLimit && v < kLimit;
}

// An integer operation: no floating-point type, no carry or saturation (whose results are not
// the plain sum).
bool integer_op(const Instruction& in) {
  for (std::string_view m : in.modifiers)
    if (m == "cc" || m == "sat" || m == "hi" || m.starts_with("f") || m.starts_with("bf") ||
        m.starts_with("rn") || m.starts_with("rz") || m.starts_with("rm") || m.starts_with("rp") ||
        m.starts_with("e4") || m.starts_with("e5") || m == "tf32")
      return false;
  return true;
}

std::string at_line(const Instruction& in) {
  return std::string(in.opcode) + " at line " + std::to_string(in.loc.line);
}

std::optional<std::int64_t> constant_of(const AffineForm& f) {
  if (!f.terms.empty()) return std::nullopt;
  return f.constant;
}

bool scale(AffineForm& f, std::int64_t k) {
  if (!fits(k) || !fits(f.constant * k)) return false;
  f.constant *= k;
  for (AffineTerm& t : f.terms) {
    if (t.coef != 0 && (!fits(t.coef * k) || (k != 0 && t.coef * k / k != t.coef))) return false;
    t.coef *= k;
  }
  std::erase_if(f.terms, [](const AffineTerm& t) { return t.coef == 0; });
  return true;
}

// Divides a form whose coefficients and constant are all multiples of p.
bool scale_down(AffineForm& f, std::int64_t p) {
  if (p <= 0 || f.constant % p != 0) return false;
  f.constant /= p;
  for (AffineTerm& t : f.terms) {
    if (t.coef % p != 0) return false;
    t.coef /= p;
  }
  return true;
}

} // namespace

std::int64_t AffineForm::coef(std::uint32_t atom) const {
  for (const AffineTerm& t : terms)
    if (t.atom == atom) return t.coef;
  return 0;
}

bool affine_add(AffineForm& a, const AffineForm& b, std::int64_t k) {
  a.constant += b.constant * k;
  if (!fits(a.constant)) return false;
  for (const AffineTerm& t : b.terms) {
    auto it = std::lower_bound(a.terms.begin(), a.terms.end(), t.atom,
                               [](const AffineTerm& x, std::uint32_t id) { return x.atom < id; });
    if (it != a.terms.end() && it->atom == t.atom) {
      it->coef += t.coef * k;
      if (!fits(it->coef)) return false;
      if (it->coef == 0) a.terms.erase(it);
    } else {
      a.terms.insert(it, {t.atom, t.coef * k});
    }
  }
  return true;
}

AffineIndex::AffineIndex(const Module& m, const FunctionAnalysis& a) : module_(&m), a_(&a) {
  const Function& fn = a.ir.function();
  bool reads[3] = {false, false, false};
  std::vector<std::uint8_t> splits = {0, 5};
  for (InstId i = 0; i < a.ir.size(); ++i) {
    const Instruction& in = a.ir.inst(i);
    for (const Operand& o : in.operands) {
      if (o.kind != OperandKind::kSpecialReg) continue;
      std::string_view s = o.text();
      if (s.ends_with(".y") && (s.starts_with("%tid") || s.starts_with("%ntid"))) reads[1] = true;
      if (s.ends_with(".z") && (s.starts_with("%tid") || s.starts_with("%ntid"))) reads[2] = true;
      if ((s.ends_with(".x") && (s.starts_with("%tid") || s.starts_with("%ntid"))) ||
          s == "%laneid" || s == "%warpid")
        reads[0] = true;
    }
    // Bit positions where tid.x may be cut: shifts, divisions and remainders by a power of two,
    // and every boundary between set and clear bits of an `and` mask, of tid.x or of a value
    // computed from it (`(ctaid * 32 + tid) / 16` cuts tid.x at bit 4; `(tid >> 1) & 6` cuts it
    // at bits 2 and 4). A cut nothing needs only adds a field.
    if (in.operands.size() != 3 || in.operands[2].kind != OperandKind::kImmInt) continue;
    if (in.op != Opcode::kShr && in.op != Opcode::kAnd && in.op != Opcode::kRem &&
        in.op != Opcode::kDiv && in.op != Opcode::kXor)
      continue;
    if (in.operands[1].kind != OperandKind::kRegister) continue;
    std::uint64_t c = static_cast<std::uint64_t>(in.operands[2].int_value());
    std::vector<int> cuts;
    if (in.op == Opcode::kShr)
      cuts.push_back(static_cast<int>(std::min<std::uint64_t>(c, 64)));
    else if (in.op == Opcode::kAnd)
      for (int b = 1; b < 64; ++b)
        if (((c >> b) & 1) != ((c >> (b - 1)) & 1)) cuts.push_back(b);
    if (in.op == Opcode::kXor) // each flipped bit is a field of its own
      for (int b = 0; b < 63; ++b)
        if ((c >> b) & 1) cuts.push_back(b), cuts.push_back(b + 1);
    if (in.op != Opcode::kAnd && in.op != Opcode::kShr && c != 0 && (c & (c - 1)) == 0)
      cuts.push_back(std::countr_zero(c));
    // The operand's bit b is tid.x's bit b + s where the operand is tid.x shifted right by s
    // (left by -s) through a chain of constant shifts; each offset on the chain is a candidate.
    std::vector<int> offsets = {0};
    ValueId v = a.values.value_of(i, 1);
    for (int step = 0, off = 0; step < 6 && v != kNoId; ++step) {
      const InstId d = a.values.defining_instruction(v);
      if (d == kNoId) break;
      const Instruction& di = a.ir.inst(d);
      if (di.operands.size() < 2 || di.operands[1].kind != OperandKind::kRegister) break;
      if ((di.op == Opcode::kShr || di.op == Opcode::kShl) && di.operands.size() == 3 &&
          di.operands[2].kind == OperandKind::kImmInt) {
        const std::int64_t sh = di.operands[2].int_value();
        if (sh < 0 || sh > 40) break;
        off += di.op == Opcode::kShr ? static_cast<int>(sh) : -static_cast<int>(sh);
        offsets.push_back(off);
      } else if (di.op != Opcode::kAnd && di.op != Opcode::kMov && di.op != Opcode::kCvt) {
        break;
      }
      v = a.values.value_of(d, 1);
    }
    for (int k0 : cuts)
      for (int off : offsets)
        if (const int k = k0 + off; k > 0 && k < 10) splits.push_back(static_cast<std::uint8_t>(k));
  }
  std::sort(splits.begin(), splits.end());
  splits.erase(std::unique(splits.begin(), splits.end()), splits.end());
  x_splits_ = splits;
  const std::int64_t pmax[3] = {1023, 1023, 63};
  auto req = fn.reqntid();
  auto max = fn.maxntid();
  exact_shape_ = req.has_value();
  for (int d = 0; d < 3; ++d) {
    if (req)
      max_tid_[d] = std::int64_t{(*req)[d]} - 1, bounded_[d] = true;
    else if (max)
      max_tid_[d] = std::int64_t{(*max)[d]} - 1, bounded_[d] = true;
    else
      max_tid_[d] = reads[d] ? pmax[d] : 0;
    max_tid_[d] = std::clamp<std::int64_t>(max_tid_[d], 0, pmax[d]);
  }
  warps_follow_x_ = (max_tid_[1] == 0 && max_tid_[2] == 0) || (req && (*req)[0] % 32 == 0);
  for (std::size_t f = 0; f < splits.size(); ++f) {
    AffineAtom at;
    at.kind = AffineAtom::Kind::kTidField;
    at.dim = 0;
    at.shift = splits[f];
    std::int64_t hi = max_tid_[0] >> splits[f];
    if (f + 1 < splits.size())
      hi = std::min(hi, (std::int64_t{1} << (splits[f + 1] - splits[f])) - 1);
    at.hi = hi;
    atoms_.push_back(at);
  }
  for (int d = 1; d < 3; ++d) {
    first_field_[d] = static_cast<std::uint32_t>(atoms_.size());
    AffineAtom at;
    at.kind = AffineAtom::Kind::kTidField;
    at.dim = static_cast<std::uint8_t>(d);
    at.hi = max_tid_[d];
    atoms_.push_back(at);
  }
  memo_.resize(a.values.size());
  state_.assign(a.values.size(), 0);
}

std::uint32_t AffineIndex::tid_field(int dim, int field) const {
  return dim == 0 ? static_cast<std::uint32_t>(field) : first_field_[dim];
}

std::uint32_t AffineIndex::add_atom(AffineAtom atom) {
  atoms_.push_back(std::move(atom));
  return static_cast<std::uint32_t>(atoms_.size() - 1);
}

bool AffineIndex::is_ntid(std::uint32_t id, int dim) const {
  static constexpr std::string_view names[] = {"%ntid.x", "%ntid.y", "%ntid.z"};
  const AffineAtom& at = atoms_[id];
  return at.kind == AffineAtom::Kind::kOpaque && at.name == names[dim];
}

bool AffineIndex::is_ntid_multiple(std::uint32_t id, int dim) const {
  for (const AffineProduct& p : products_)
    if (p.atom == id)
      for (const AffineForm* f : {&p.x, &p.y})
        if (f->constant == 0 && f->terms.size() == 1 && is_ntid(f->terms[0].atom, dim)) return true;
  return false;
}

std::string AffineIndex::atom_name(std::uint32_t id) const {
  const AffineAtom& at = atoms_[id];
  switch (at.kind) {
  case AffineAtom::Kind::kTidField: {
    static constexpr const char* dims[] = {"x", "y", "z"};
    std::string s = std::string("%tid.") + dims[at.dim];
    if (at.dim == 0 && x_splits_.size() > 1) {
      s += " bits " + std::to_string(at.shift) + "..";
      if (id + 1 < x_splits_.size()) s += std::to_string(x_splits_[id + 1] - 1);
    }
    return s;
  }
  case AffineAtom::Kind::kCounter:
    return std::string(at.stride_dim >= 0 ? "the block-stride count" : "the iteration count") +
           (at.step_atom != kNoId ? " times " + atom_name(at.step_atom) : std::string()) +
           " of the loop at line " +
           std::to_string(
               a_->ir.inst(a_->cfg.block(a_->loops.loop(at.loop).header).begin).loc.line);
  case AffineAtom::Kind::kSymbol:
    return std::string(at.name);
  case AffineAtom::Kind::kOpaque:
  case AffineAtom::Kind::kQuotient:
    return at.why;
  }
  return {};
}

AffineForm AffineIndex::opaque(ValueId v, InstId inst, std::string why, std::string_view name) {
  if (!name.empty()) {
    for (auto& [n, id] : named_)
      if (n == name) return AffineForm{0, {{id, 1}}};
  } else {
    for (auto& [val, id] : opaque_of_)
      if (val == v) return AffineForm{0, {{id, 1}}};
  }
  AffineAtom at;
  at.kind = AffineAtom::Kind::kOpaque;
  at.value = v;
  at.inst = inst;
  at.name = name;
  at.why = std::move(why);
  at.uniform = name.empty() ? (v != kNoId && a_->block_uniformity.is_uniform(v))
                            : Uniformity::special_register_uniform(name, UniformityScope::kBlock);
  if (inst != kNoId) {
    const Instruction& in = a_->ir.inst(inst);
    at.param_root = in.op == Opcode::kLd && in.has_modifier("param") &&
                    a_->ir.function().kind == FunctionKind::kEntry;
  }
  std::uint32_t id = add_atom(std::move(at));
  if (!name.empty())
    named_.push_back({name, id});
  else
    opaque_of_.push_back({v, id});
  return AffineForm{0, {{id, 1}}};
}

AffineForm AffineIndex::special(std::string_view name, InstId inst, ValueId v) {
  AffineForm f;
  if (name == "%tid.x" || (name == "%laneid" && warps_follow_x_)) {
    for (std::uint32_t k = 0; k < x_splits_.size(); ++k)
      if (name == "%tid.x" || x_splits_[k] < 5)
        f.terms.push_back({tid_field(0, static_cast<int>(k)), std::int64_t{1} << x_splits_[k]});
    return f;
  }
  if (name == "%tid.y") return AffineForm{0, {{tid_field(1, 0), 1}}};
  // .reqntid is the launch's block shape: %ntid is that constant.
  if (exact_shape_ && name.starts_with("%ntid.") && name.size() == 7 && name[6] >= 'x' &&
      name[6] <= 'z')
    return AffineForm{max_tid_[name[6] - 'x'] + 1, {}};
  if (name == "%tid.z") return AffineForm{0, {{tid_field(2, 0), 1}}};
  (void)inst;
  (void)v;
  return opaque(kNoId, kNoId, "the special register " + std::string(name), name);
}

AffineForm AffineIndex::operand_at(InstId inst, std::uint32_t k, int depth) {
  const Instruction& in = a_->ir.inst(inst);
  if (k >= in.operands.size()) return opaque(kNoId, inst, "a missing operand of " + at_line(in));
  const Operand& o = in.operands[k];
  switch (o.kind) {
  case OperandKind::kImmInt:
    return AffineForm{o.int_value(), {}};
  case OperandKind::kSpecialReg:
    return special(o.text(), inst, kNoId);
  case OperandKind::kRegister: {
    ValueId v = a_->values.value_of(inst, k);
    if (v == kNoId) return opaque(kNoId, inst, "an unresolved register in " + at_line(in));
    return eval(v, depth + 1);
  }
  case OperandKind::kSymbol: {
    if (o.has_register_index()) // arr + zext32(%r1 + K) x size: not affine in %r1 (the wrap)
      return opaque(kNoId, inst, "a register-indexed array element in " + at_line(in));
    return AffineForm{o.has_offset() ? o.address_offset() : 0, {{symbol_atom(o.text()), 1}}};
  }
  default:
    return opaque(kNoId, inst, "an operand of " + at_line(in) + " that is no integer");
  }
}

std::uint32_t AffineIndex::symbol_atom(std::string_view name) {
  for (auto& [n, i] : named_)
    if (n == name) return i;
  AffineAtom at;
  at.kind = AffineAtom::Kind::kSymbol;
  at.name = name;
  at.uniform = true;
  const std::uint32_t id = add_atom(std::move(at));
  named_.push_back({name, id});
  return id;
}

const AffineForm& AffineIndex::value(ValueId v) {
  ValueId l = a_->values.leader(v);
  if (state_[l] != 2) memo_[l] = eval(l, 0);
  return memo_[l];
}

AffineForm AffineIndex::operand(InstId inst, std::uint32_t k) {
  return operand_at(inst, k, 0);
}

AffineForm AffineIndex::address(InstId inst, std::uint32_t k) {
  const Operand& o = a_->ir.inst(inst).operands[k];
  if (o.has_register_index()) // arr + zext32(%r1 + K) x size: not affine in %r1 (the wrap)
    return opaque(kNoId, inst, "a register-indexed array element in " + at_line(a_->ir.inst(inst)));
  AffineForm f;
  if (o.address_base_is_immediate()) {
    std::int64_t base = 0;
    std::string_view t = o.text();
    std::from_chars(t.data(), t.data() + t.size(), base);
    f.constant = base;
  } else if (a_->values.value_of(inst, k) != kNoId) {
    f = value(a_->values.value_of(inst, k));
  } else {
    // A symbol base: the variable's address.
    f.terms.push_back({symbol_atom(o.text()), 1});
  }
  f.constant += o.address_offset();
  return f;
}

AffineForm AffineIndex::eval(ValueId v, int depth) {
  const ValueNumbering& vn = a_->values;
  v = vn.leader(v);
  if (state_[v] == 2) return memo_[v];
  if (state_[v] == 1 || depth > kMaxDepth)
    return opaque(v, kNoId,
                  depth > kMaxDepth ? "a value computed too many steps away"
                                    : "a loop-carried value that is no counter");
  state_[v] = 1;
  const ValueInfo& info = vn.info(v);
  AffineForm out;
  if (info.kind == ValueKind::kDef) {
    out = eval_inst(info.inst, v, depth);
  } else if (info.kind == ValueKind::kPhi) {
    LoopId l = a_->loops.loop_with_header(info.block);
    bool done = false;
    if (l != kNoId) {
      auto lc = vn.loop_carried(v, a_->loops);
      if (lc.initial.size() == 1 && lc.updated.size() == 1) {
        // The step: updated = phi + c (or c + phi, phi - c), read syntactically so that no
        // form of a loop value is memoised before the phi's own form is known.
        InstId d = vn.defining_instruction(lc.updated[0]);
        std::optional<std::int64_t> step;
        if (d != kNoId && vn.info(vn.leader(lc.updated[0])).kind == ValueKind::kDef) {
          const Instruction& in = a_->ir.inst(d);
          if ((in.op == Opcode::kAdd || in.op == Opcode::kSub) && in.operands.size() == 3 &&
              integer_op(in)) {
            for (std::uint32_t k = 1; k <= 2; ++k) {
              const Operand& c = in.operands[3 - k];
              if (vn.value_of(d, k) == v && c.kind == OperandKind::kImmInt &&
                  (in.op == Opcode::kAdd || k == 1))
                step = in.op == Opcode::kAdd ? c.int_value() : -c.int_value();
            }
          }
        }
        // A block-stride step: `add i, i, s` with s = c * %ntid.d computed outside the loop.
        std::int8_t stride_dim = -1;
        std::uint32_t step_atom = kNoId;
        if (!step && d != kNoId && vn.info(vn.leader(lc.updated[0])).kind == ValueKind::kDef &&
            a_->ir.inst(d).op == Opcode::kAdd && a_->ir.inst(d).operands.size() == 3 &&
            integer_op(a_->ir.inst(d))) {
          for (std::uint32_t k = 1; k <= 2 && !step; ++k) {
            const ValueId other = vn.value_of(d, 3 - k);
            if (vn.value_of(d, k) != v || other == kNoId) continue;
            const InstId od = vn.defining_instruction(other);
            if (od == kNoId || a_->loops.contains(l, a_->cfg.block_of(od))) continue;
            const AffineForm sf = eval(other, depth + 1);
            if (sf.terms.empty()) step = sf.constant; // a constant in a register (.reqntid's %ntid)
            if (sf.terms.size() != 1 || sf.constant != 0) continue;
            const std::uint32_t s_atom = sf.terms[0].atom;
            for (int dim = 0; dim < 3 && stride_dim < 0; ++dim)
              if (is_ntid(s_atom, dim) || is_ntid_multiple(s_atom, dim))
                step = sf.terms[0].coef, stride_dim = static_cast<std::int8_t>(dim);
            if (!step && uniform_form(sf)) step = sf.terms[0].coef, step_atom = s_atom;
          }
        }
        if (step) {
          AffineForm init = eval(lc.initial[0], depth + 1);
          AffineAtom at;
          at.kind = AffineAtom::Kind::kCounter;
          at.loop = l;
          at.stride_dim = stride_dim;
          at.step_atom = step_atom;
          std::uint32_t id = add_atom(std::move(at));
          out = init;
          if (affine_add(out, AffineForm{0, {{id, *step}}})) done = true;
        }
      }
    }
    if (!done) {
      std::optional<AffineForm> same;
      bool equal = l == kNoId;
      if (equal) {
        for (const PhiIncoming& in : vn.phi_incoming(v)) {
          AffineForm f = eval(in.value, depth + 1);
          if (!same)
            same = f;
          else if (!(f == *same))
            equal = false;
        }
      }
      out = equal && same ? *same
                          : opaque(v, kNoId,
                                   l != kNoId ? "a loop-carried value that is no counter"
                                              : "a merge of different values");
    }
  } else {
    out = opaque(v, kNoId,
                 info.kind == ValueKind::kGuarded ? "a value written under a guard"
                                                  : "a value from outside the function");
  }
  memo_[v] = out;
  state_[v] = 2;
  return out;
}

AffineForm AffineIndex::eval_inst(InstId d, ValueId v, int depth) {
  const Instruction& in = a_->ir.inst(d);
  const std::size_t n = in.operands.size();
  auto fail = [&](std::string why) { return opaque(v, d, std::move(why)); };
  auto op = [&](std::uint32_t k) { return operand_at(d, k, depth); };
  if (a_->values.defined_value(d, 0) == kNoId || in.operands[0].kind != OperandKind::kRegister)
    return fail("a result of " + at_line(in));
  switch (in.op) {
  case Opcode::kMov:
  case Opcode::kCvta:
    if (n == 2) return op(1);
    break;
  case Opcode::kCvt:
    if (n == 2 && integer_op(in)) return op(1);
    break;
  case Opcode::kAdd:
  case Opcode::kSub:
    if (n == 3 && integer_op(in)) {
      AffineForm f = op(1);
      if (affine_add(f, op(2), in.op == Opcode::kAdd ? 1 : -1)) return f;
    }
    break;
  case Opcode::kNeg:
    if (n == 2 && integer_op(in)) {
      AffineForm f = op(1);
      if (scale(f, -1)) return f;
    }
    break;
  case Opcode::kMul:
  case Opcode::kMad:
  case Opcode::kShl: {
    if (!integer_op(in) || n < 3 || (in.op == Opcode::kMad && n != 4)) break;
    AffineForm x = op(1), y = op(2);
    if (in.op == Opcode::kShl) {
      auto c = constant_of(y);
      if (!c || *c < 0 || *c > 40) break;
      y = AffineForm{std::int64_t{1} << *c, {}};
    }
    auto cx = constant_of(x), cy = constant_of(y);
    AffineForm f;
    if (!cx && !cy)
      f = product(x, y, d, v);
    else if (f = cy ? x : y; !scale(f, cy ? *cy : *cx))
      break;
    if (in.op == Opcode::kMad && !affine_add(f, op(3))) break;
    return f;
  }
  case Opcode::kOr:
  case Opcode::kXor:
    if (n == 3 && integer_op(in))
      if (auto f = disjoint_sum(op(1), op(2))) return *f;
    if (in.op == Opcode::kOr) break;
    [[fallthrough]];
  case Opcode::kShr:
  case Opcode::kDiv:
  case Opcode::kRem:
  case Opcode::kAnd: {
    if (n != 3 || !integer_op(in)) break;
    AffineForm x = op(1);
    auto c = constant_of(op(2));
    if (!c) break;
    std::uint64_t uc = static_cast<std::uint64_t>(*c);
    // x = high part (coefficients and constant multiples of 2^k) + low part in [0, 2^k): exact
    // when every term that is no multiple of 2^k is a non-negative multiple of a thread field
    // and the low part's largest value stays below 2^k.
    auto split = [&](int k, AffineForm& hi_part, AffineForm& lo_part) {
      if (k < 0 || k > 40) return false;
      const std::int64_t p = std::int64_t{1} << k;
      hi_part = AffineForm{}, lo_part = AffineForm{};
      const std::int64_t cst = x.constant;
      const std::int64_t cst_hi = cst >= 0 ? cst / p * p : -((-cst + p - 1) / p) * p;
      hi_part.constant = cst_hi;
      lo_part.constant = cst - cst_hi;
      std::int64_t lo_max = lo_part.constant;
      for (const AffineTerm& t : x.terms) {
        if (t.coef % p == 0) {
          affine_add(hi_part, AffineForm{0, {{t.atom, t.coef}}});
          continue;
        }
        const AffineAtom& at = atoms_[t.atom];
        if (t.coef < 0 || at.kind != AffineAtom::Kind::kTidField) return false;
        lo_max += t.coef * at.hi;
        affine_add(lo_part, AffineForm{0, {{t.atom, t.coef}}});
      }
      return lo_max < p;
    };
    AffineForm hi_part, lo_part;
    const bool pow2 = uc != 0 && (uc & (uc - 1)) == 0;
    if (in.op == Opcode::kShr && (*c >= 0 || !(in.has_modifier("s32") || in.has_modifier("s64")))) {
      // A signed shift is exact for the non-negative operands the forms describe.
      if (split(static_cast<int>(std::min<std::uint64_t>(uc, 64)), hi_part, lo_part) &&
          scale_down(hi_part, std::int64_t{1} << uc))
        return hi_part;
    } else if (in.op == Opcode::kDiv && pow2) {
      if (split(std::countr_zero(uc), hi_part, lo_part) && scale_down(hi_part, *c)) return hi_part;
    } else if (in.op == Opcode::kRem && pow2) {
      if (split(std::countr_zero(uc), hi_part, lo_part)) return lo_part;
    } else if ((in.op == Opcode::kDiv || in.op == Opcode::kRem) && !pow2 && *c > 1 &&
               !in.has_modifier("s16") && !in.has_modifier("s32") && !in.has_modifier("s64")) {
      if (auto f = divide(x, *c, in.op == Opcode::kRem, d, v)) return *f;
    } else if (in.op == Opcode::kXor) {
      // `xor x, m` flips m's bits: x + sum over m's set bits b of 2^b * (1 - 2 * bit_b(x)), with
      // 2^b * bit_b(x) = (x mod 2^(b+1)) - (x mod 2^b), affine where x's low bits are thread
      // fields cut at b and b + 1 (a butterfly partner `tid ^ 16` is tid + 16 - 32 * bit_4).
      const int width = in.has_modifier("b64") ? 64 : (in.has_modifier("b16") ? 16 : 32);
      const std::uint64_t m = width == 64 ? uc : uc & ((std::uint64_t{1} << width) - 1);
      AffineForm out = x, bit;
      bool ok = m != 0;
      for (int b = 0; b < width && ok; ++b) {
        if (!((m >> b) & 1)) continue;
        ok = split(b + 1, hi_part, bit) && split(b, hi_part, lo_part) &&
             affine_add(bit, lo_part, -1) &&
             affine_add(out, AffineForm{std::int64_t{1} << b, {}}) && affine_add(out, bit, -2);
      }
      if (ok) return out;
    } else if (in.op == Opcode::kAnd) {
      // `and x, m` is the sum over m's runs of set bits [lo, hi) of (x mod 2^hi) - (x mod 2^lo);
      // a run reaching the operand's top bit keeps every higher bit (x - x mod 2^lo).
      const int width =
          in.has_modifier("b64") || in.has_modifier("u64") || in.has_modifier("s64")
              ? 64
              : (in.has_modifier("b16") || in.has_modifier("u16") || in.has_modifier("s16") ? 16
                                                                                            : 32);
      const std::uint64_t m = width == 64 ? uc : uc & ((std::uint64_t{1} << width) - 1);
      AffineForm out;
      bool ok = true;
      for (int b = 0; b < width && ok;) {
        if (!((m >> b) & 1)) {
          ++b;
          continue;
        }
        int e = b;
        while (e < width && ((m >> e) & 1))
          ++e;
        AffineForm top = x;
        if (e < width) ok = split(e, hi_part, top);
        if (ok && b > 0) {
          ok = split(b, hi_part, lo_part);
          ok = ok && affine_add(top, lo_part, -1);
        }
        ok = ok && affine_add(out, top);
        b = e;
      }
      if (ok) return out;
    }
    break;
  }
  case Opcode::kMin:
  case Opcode::kMax: {
    if (n != 3 || !integer_op(in)) break;
    AffineForm x = op(1), y = op(2);
    if (!constant_of(y)) std::swap(x, y);
    auto c = constant_of(y);
    if (!c || x.terms.empty()) break;
    AffineForm f = fail("a result of " + at_line(in));
    atoms_[f.terms[0].atom].clamp = static_cast<std::int32_t>(clamps_.size());
    clamps_.push_back({std::move(x), *c, in.op == Opcode::kMin});
    return f;
  }
  case Opcode::kSelp: {
    if (n != 4 || !integer_op(in) || in.operands[3].kind != OperandKind::kRegister) break;
    AffineForm x = op(1), y = op(2);
    if (x == y) return x;
    const ValueId p = a_->values.value_of(d, 3);
    if (p == kNoId) break;
    AffineForm f = fail("a result of " + at_line(in));
    atoms_[f.terms[0].atom].select = static_cast<std::int32_t>(selects_.size());
    selects_.push_back(
        {a_->values.leader(p), in.operands[3].negated(), std::move(x), std::move(y)});
    return f;
  }
  case Opcode::kLd:
  case Opcode::kLdu:
    if (local_stack_address(*a_, d, 1)) return stack_reload(d, v, depth);
    if (in.has_modifier("param") && a_->ir.function().kind == FunctionKind::kEntry)
      return fail("the kernel parameter read at line " + std::to_string(in.loc.line));
    return fail("a value loaded from memory at line " + std::to_string(in.loc.line));
  default:
    break;
  }
  return fail("a result of " + at_line(in));
}

// Whether every value of f is the same in every thread of the block: its atoms are symbols and
// block-uniform opaque values (no thread field, loop count or quotient, which vary per thread).
bool AffineIndex::uniform_form(const AffineForm& f) const {
  return std::all_of(f.terms.begin(), f.terms.end(), [&](const AffineTerm& t) {
    const AffineAtom& at = atoms_[t.atom];
    return at.uniform &&
           (at.kind == AffineAtom::Kind::kSymbol || at.kind == AffineAtom::Kind::kOpaque);
  });
}

AffineForm AffineIndex::product(const AffineForm& x, const AffineForm& y, InstId d, ValueId v) {
  const Instruction& in = a_->ir.inst(d);
  const bool wide = in.has_modifier("wide");
  // x * y and y * x are one value: the key is the ordered pair of forms.
  const auto less = [](const AffineForm& a, const AffineForm& b) {
    if (a.constant != b.constant) return a.constant < b.constant;
    return std::lexicographical_compare(
        a.terms.begin(), a.terms.end(), b.terms.begin(), b.terms.end(),
        [](const AffineTerm& s, const AffineTerm& t) {
          return s.atom != t.atom ? s.atom < t.atom : s.coef < t.coef;
        });
  };
  const bool swap = less(y, x);
  const AffineForm& lo = swap ? y : x;
  const AffineForm& hi = swap ? x : y;
  for (const AffineProduct& p : products_)
    if (p.wide == wide && p.x == lo && p.y == hi) return AffineForm{0, {{p.atom, 1}}};
  AffineAtom at;
  at.kind = AffineAtom::Kind::kOpaque;
  // The instruction's result: what the product is computed from is among its operands (for
  // not_based_on's walk), though the atom stands for the product alone (a mad's addend stays an
  // affine term).
  at.value = v;
  at.inst = d;
  at.uniform = uniform_form(x) && uniform_form(y);
  at.why = std::string(at.uniform ? "a block-uniform product" : "a product of two values") + " (" +
           at_line(in) + ")";
  const std::uint32_t id = add_atom(std::move(at));
  products_.push_back({lo, hi, wide, id});
  return AffineForm{0, {{id, 1}}};
}

// The bits that some value of f may have set (two's complement, 64 bits). A term c*v with v in
// [0, hi] (a thread field, a bounded uniform value) and c > 0 sets only bits tz(c) up to c*hi's
// top bit; an unbounded one, or c < 0, any bit from tz(c) up. Terms whose bits cannot overlap
// add without carries (their union); otherwise a carry may set any bit from the lowest one up
// to the top of the largest sum.
std::uint64_t AffineIndex::possible_bits(const AffineForm& f) const {
  auto from = [](std::int64_t c) {
    return ~std::uint64_t{0} << std::countr_zero(static_cast<std::uint64_t>(c));
  };
  auto below = [](std::uint64_t v) {
    return v == 0 ? 0 : ~std::uint64_t{0} >> std::countl_zero(v);
  };
  std::uint64_t all = 0;
  bool overlap = false, unbounded = f.constant < 0;
  std::uint64_t top = f.constant > 0 ? static_cast<std::uint64_t>(f.constant) : 0;
  auto add = [&](std::uint64_t m) {
    overlap = overlap || (all & m) != 0;
    all |= m;
  };
  add(f.constant < 0 ? from(f.constant) : static_cast<std::uint64_t>(f.constant));
  for (const AffineTerm& t : f.terms) {
    const AffineAtom& at = atoms_[t.atom];
    std::int64_t hi = -1;
    if (at.kind == AffineAtom::Kind::kTidField) hi = at.hi;
    if (at.kind == AffineAtom::Kind::kOpaque && at.uniform) hi = at.bound;
    if (hi < 0 || t.coef < 0) {
      unbounded = true;
      add(from(t.coef));
      continue;
    }
    const auto max = static_cast<std::uint64_t>(t.coef * hi);
    top += max;
    add(from(t.coef) & below(max));
  }
  if (!overlap || all == 0) return all;
  const std::uint64_t lowest = from(static_cast<std::int64_t>(all & -all));
  return unbounded ? lowest : lowest & below(top);
}

// `or`/`xor` of operands whose set bits cannot overlap is their sum: `(ctaid << 10) | (tid << 2)`
// under .maxntid 256, Triton's `pid * BLOCK | offset`, `or x, c` with x's bits under c clear.
std::optional<AffineForm> AffineIndex::disjoint_sum(const AffineForm& x,
                                                    const AffineForm& y) const {
  if ((possible_bits(x) & possible_bits(y)) != 0) return std::nullopt;
  AffineForm sum = x;
  if (!affine_add(sum, y)) return std::nullopt;
  return sum;
}

std::optional<AffineForm> AffineIndex::divide(const AffineForm& x, std::int64_t c, bool rem,
                                              InstId d, ValueId v) {
  std::size_t k = 0;
  while (k < quotients_.size() && !(quotients_[k].c == c && quotients_[k].dividend == x))
    ++k;
  if (k == quotients_.size()) {
    AffineQuotient q;
    q.c = c;
    q.dividend = x;
    AffineForm uniform{x.constant, {}};
    std::int64_t tmax = 0;
    for (const AffineTerm& t : x.terms) {
      const AffineAtom& at = atoms_[t.atom];
      if (at.kind == AffineAtom::Kind::kTidField) {
        if (t.coef < 0 || at.hi < 0) return std::nullopt;
        q.thread_part.terms.push_back(t);
        tmax += t.coef * at.hi;
      } else if (at.uniform && at.kind != AffineAtom::Kind::kCounter) {
        uniform.terms.push_back(t);
      } else {
        return std::nullopt;
      }
    }
    if (q.thread_part.terms.empty() || !fits(tmax)) return std::nullopt;
    const std::string line = std::to_string(a_->ir.inst(d).loc.line);
    std::uint32_t upart = kNoId;
    if (uniform.terms.empty()) {
      if (uniform.constant < 0) return std::nullopt; // x may be negative: the division wraps
      q.residue_constant = uniform.constant % c;
    } else {
      // u = floor(U / c) and s = U mod c: uniform values of their own.
      AffineAtom u;
      u.kind = AffineAtom::Kind::kOpaque;
      u.uniform = true;
      u.why = "the block-uniform part of the quotient (div at line " + line + ")";
      upart = add_atom(std::move(u));
      AffineAtom s;
      s.kind = AffineAtom::Kind::kOpaque;
      s.uniform = true;
      s.bound = c - 1;
      s.why = "the remainder of a block-uniform value (div at line " + line + ")";
      q.residue = add_atom(std::move(s));
    }
    AffineAtom qa;
    qa.kind = AffineAtom::Kind::kQuotient;
    qa.quotient = static_cast<std::int32_t>(quotients_.size());
    qa.inst = d;
    qa.value = v;
    qa.why = "the quotient by " + std::to_string(c) + " at line " + line;
    const std::uint32_t qid = add_atom(std::move(qa));
    quotients_.push_back(std::move(q));
    quotient_atom_.push_back(qid);
    uniform_part_atom_.push_back(upart);
  }
  const AffineQuotient& q = quotients_[k];
  const std::uint32_t qid = quotient_atom_[k];
  AffineForm out;
  if (!rem) {
    // u + q (u the constant floor(U / c) when U is one).
    out.terms.push_back({qid, 1});
    if (uniform_part_atom_[k] != kNoId)
      affine_add(out, AffineForm{0, {{uniform_part_atom_[k], 1}}});
    else
      out.constant = q.dividend.constant / c;
    return out;
  }
  out = q.thread_part;
  if (q.residue != kNoId)
    affine_add(out, AffineForm{0, {{q.residue, 1}}});
  else
    out.constant = q.residue_constant;
  if (!affine_add(out, AffineForm{0, {{qid, -c}}})) return std::nullopt;
  return out;
}

AffineForm AffineIndex::stack_reload(InstId load, ValueId v, int depth) {
  const Instruction& li = a_->ir.inst(load);
  auto fail = [&](std::string why) { return opaque(v, load, std::move(why)); };
  if (li.operands.size() != 2 || li.operands[0].kind != OperandKind::kRegister)
    return fail("a vector reload from the stack at line " + std::to_string(li.loc.line));
  AffineForm slot = address(load, 1);
  const std::uint32_t width = access_width(li);
  InstId only = kNoId;
  std::uint32_t stores = 0;
  for (InstId i = 0; i < a_->ir.size(); ++i) {
    const Instruction& si = a_->ir.inst(i);
    if (si.op != Opcode::kSt || si.operands.size() != 2 || !local_stack_address(*a_, i, 0))
      continue;
    AffineForm s = address(i, 0);
    AffineForm diff = s;
    affine_add(diff, slot, -1);
    if (diff.terms.empty()) {
      const std::int64_t sw = access_width(si);
      if (diff.constant >= static_cast<std::int64_t>(width) || diff.constant + sw <= 0)
        continue; // another slot
    }
    ++stores;
    if (diff.terms.empty() && diff.constant == 0 && access_width(si) == width)
      only = i;
    else
      only = kNoId, stores += 1;
  }
  if (stores != 1 || only == kNoId)
    return fail("a stack slot written at " + std::to_string(stores) + " places (line " +
                std::to_string(li.loc.line) + ")");
  const BlockId sb = a_->cfg.block_of(only), lb = a_->cfg.block_of(load);
  if (!(sb == lb ? only < load : a_->dom.dominates(sb, lb)))
    return fail("a stack slot read before its store (line " + std::to_string(li.loc.line) + ")");
  return operand_at(only, 1, depth);
}

} // namespace ptxkit::verifier::analysis
