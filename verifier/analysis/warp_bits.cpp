// warp_bits.cpp: the uniform-high-bits / known-bits analysis of warp_bits.h: an optimistic sparse
// fixpoint over SSA values with per-instruction transfer functions in w-bit modular arithmetic.
#include "ptxkit/verifier/analysis/warp_bits.h"

#include "ptxkit/verifier/analysis/divergence_cause.h"
#include "ptxkit/verifier/analysis/flat_lists.h"
#include "ptxkit/verifier/analysis/solver.h"

#include <algorithm>
#include <bit>
#include <optional>

namespace ptxkit::verifier::analysis {

namespace {

// A users-list entry that stands for an instruction: every kDef value it writes reads the value.
constexpr std::uint32_t kInstructionUser = 0x80000000u;

// The kDef values instruction i writes (also the fresh value of a guarded write), the values
// whose evaluation reads its operands.
template <class F>
void for_each_defined_value(const ValueNumbering& vn, InstId i, F&& f) {
  const FunctionIR& ir = vn.ir();
  const InstInfo& info = ir.info(i);
  for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
    if (!ir.mention(m).is_def) continue;
    ValueId d = vn.ssa_def(m);
    if (d == kNoId) continue;
    const ValueInfo& x = vn.info(d);
    if (x.kind == ValueKind::kDef && x.inst == i) f(d);
    if (x.kind == ValueKind::kGuarded && x.fresh != kNoId &&
        vn.info(x.fresh).kind == ValueKind::kDef && vn.info(x.fresh).inst == i)
      f(x.fresh);
  }
}

std::uint64_t low_mask(unsigned k) {
  return k >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << k) - 1;
}

unsigned bit_len(std::uint64_t x) {
  return static_cast<unsigned>(std::bit_width(x));
}

std::uint8_t u8(unsigned x) {
  return static_cast<std::uint8_t>(std::min(x, 64u));
}

LaneBits normalized(LaneBits b) {
  const unsigned w = b.width;
  b.max &= low_mask(w);
  b.low_zero = u8(std::min<unsigned>(b.low_zero, w));
  if (bit_len(b.max) <= b.low_zero) b.max = 0; // every bit is known zero
  if (b.max == 0) {
    b.low_zero = u8(w);
    b.uniform_from = 0;
  }
  b.uniform_from = u8(std::min({static_cast<unsigned>(b.uniform_from), w, bit_len(b.max)}));
  return b;
}

LaneBits bottom(unsigned w) {
  return LaneBits{u8(w), u8(w), 0, low_mask(w)};
}

LaneBits uniform_unknown(unsigned w) {
  return LaneBits{u8(w), 0, 0, low_mask(w)};
}

LaneBits constant(std::uint64_t c, unsigned w) {
  c &= low_mask(w);
  return normalized(
      LaneBits{u8(w), 0, u8(c == 0 ? w : static_cast<unsigned>(std::countr_zero(c))), c});
}

// The value read at another width: truncation keeps every fact about the low bits; a wider read
// of a narrower value knows nothing.
LaneBits resized(LaneBits b, unsigned w) {
  if (w == 0 || w == b.width) return b;
  if (w > b.width) return bottom(w);
  b.width = u8(w);
  if (b.max > low_mask(w)) b.max = low_mask(w);
  return normalized(b);
}

// Zero extension to w bits: the new high bits are zero in every lane.
LaneBits zero_extended(LaneBits b, unsigned w) {
  if (w <= b.width) return resized(b, w);
  bool zero = b.max == 0;
  b.width = u8(w);
  if (zero) b.low_zero = u8(w);
  return normalized(b);
}

// Facts true of both (the value is one or the other): the weaker of each.
// Facts true of both (the value is one or the other): the weaker of each, at the narrower width
// (a register's value read at its own width; a wider read of it knows nothing).
LaneBits joined(LaneBits a, LaneBits b) {
  if (a.width != b.width) {
    unsigned w = std::min(a.width, b.width);
    a = resized(a, w);
    b = resized(b, w);
  }
  return normalized(LaneBits{a.width, std::max(a.uniform_from, b.uniform_from),
                             std::min(a.low_zero, b.low_zero), std::max(a.max, b.max)});
}

LaneBits lane_varying(LaneBits b) {
  b.uniform_from = b.width;
  return normalized(b);
}

unsigned type_width(ScalarType t) {
  switch (t) {
  case ScalarType::kB8:
  case ScalarType::kU8:
  case ScalarType::kS8:
    return 8;
  case ScalarType::kB16:
  case ScalarType::kU16:
  case ScalarType::kS16:
    return 16;
  case ScalarType::kB32:
  case ScalarType::kU32:
  case ScalarType::kS32:
    return 32;
  case ScalarType::kB64:
  case ScalarType::kU64:
  case ScalarType::kS64:
    return 64;
  case ScalarType::kPred:
    return 1;
  default:
    return 0;
  }
}

bool is_signed(ScalarType t) {
  return t == ScalarType::kS8 || t == ScalarType::kS16 || t == ScalarType::kS32 ||
         t == ScalarType::kS64;
}

// Exactly one integer type modifier and nothing else but the listed ones.
ScalarType plain_int_type(const Instruction& in, std::initializer_list<std::string_view> allowed) {
  ScalarType type = ScalarType::kUnknown;
  for (std::string_view m : in.modifiers) {
    ScalarType t = isa::type_from_spelling(m);
    if (t != ScalarType::kUnknown) {
      if (type != ScalarType::kUnknown || type_width(t) < 8) return ScalarType::kUnknown;
      type = t;
    } else if (std::find(allowed.begin(), allowed.end(), m) == allowed.end()) {
      return ScalarType::kUnknown;
    }
  }
  return type;
}

// a + b in w-bit arithmetic.
LaneBits add_bits(const LaneBits& a, const LaneBits& b, unsigned w) {
  unsigned m = std::max(a.uniform_from, b.uniform_from);
  bool carry_same =
      m == 0 || a.low_zero >= m || b.low_zero >= m ||
      (m < 64 && std::min(a.max, low_mask(m)) + std::min(b.max, low_mask(m)) <= low_mask(m));
  LaneBits r{u8(w), u8(m < w && carry_same ? m : w), std::min(a.low_zero, b.low_zero), low_mask(w)};
  std::uint64_t sum = 0;
  if (!__builtin_add_overflow(a.max, b.max, &sum) && sum <= low_mask(w)) r.max = sum;
  return normalized(r);
}

// x << s in w-bit arithmetic.
LaneBits shl_bits(const LaneBits& a, unsigned s, unsigned w) {
  if (s >= w) return constant(0, w);
  LaneBits r{u8(w), u8(std::min(a.uniform_from + s, w)), u8(std::min(a.low_zero + s, w)),
             a.max <= low_mask(w - s) ? a.max << s : low_mask(w)};
  return normalized(r);
}

unsigned sat_sub(unsigned x, unsigned s) {
  return x > s ? x - s : 0;
}

// Logical x >> s.
LaneBits shr_bits(const LaneBits& a, unsigned s, unsigned w) {
  if (s >= w) return constant(0, w);
  return normalized(
      LaneBits{u8(w), u8(sat_sub(a.uniform_from, s)), u8(sat_sub(a.low_zero, s)), a.max >> s});
}

// x * c for a constant c (w bits).
LaneBits mul_const_bits(const LaneBits& a, std::uint64_t c, unsigned w) {
  c &= low_mask(w);
  if (c == 0) return constant(0, w);
  if (std::has_single_bit(c)) return shl_bits(a, static_cast<unsigned>(std::countr_zero(c)), w);
  LaneBits r{u8(w), u8(a.uniform_from == 0 ? 0 : w),
             u8(std::min<unsigned>(a.low_zero + std::countr_zero(c), w)), low_mask(w)};
  std::uint64_t p = 0;
  if (!__builtin_mul_overflow(a.max, c, &p) && p <= low_mask(w)) r.max = p;
  return normalized(r);
}

LaneBits mul_bits(const LaneBits& a, const LaneBits& b, unsigned w) {
  LaneBits r{u8(w), u8(a.uniform() && b.uniform() ? 0 : w),
             u8(std::min<unsigned>(a.low_zero + b.low_zero, w)), low_mask(w)};
  std::uint64_t p = 0;
  if (!__builtin_mul_overflow(a.max, b.max, &p) && p <= low_mask(w)) r.max = p;
  return normalized(r);
}

} // namespace

struct WarpBitsSolver {
  WarpBits& wb;
  const FunctionAnalysis& a;
  const Uniformity& lanes() const { return wb.in_.lanes ? *wb.in_.lanes : a.uniformity; }
  const ValueNumbering& vn;
  const FunctionIR& ir;
  std::vector<std::uint8_t> changes;
  bool top = false; // an operand read while evaluating has no fact yet

  bool varies_across_iterations(ValueId v, BlockId use_block) const {
    BlockId db = vn.info(v).block;
    if (db == kNoId || db == use_block || use_block == kNoId) return false;
    for (LoopId l = a.loops.loop_of(db); l != kNoId; l = a.loops.loop(l).parent)
      if (wb.loop_divergent_[l] && !a.loops.contains(l, use_block)) return true;
    return false;
  }

  // The fact of value v read in block use_block (temporal divergence applied); sets `top` when v
  // has none yet.
  LaneBits read_value(ValueId v, BlockId use_block, unsigned w) {
    if (v == kNoId) return bottom(w ? w : 64);
    ValueId l = vn.leader(v);
    if (!wb.seen_[l]) {
      top = true;
      return bottom(w ? w : 64);
    }
    LaneBits f = wb.facts_[l];
    if (varies_across_iterations(l, use_block)) f = lane_varying(f);
    return resized(f, w);
  }

  LaneBits read(InstId i, std::uint32_t k, unsigned w) {
    const Instruction& in = ir.inst(i);
    unsigned ww = w ? w : 64;
    if (k >= in.operands.size()) return bottom(ww);
    const Operand& o = in.operands[k];
    switch (o.kind) {
    case OperandKind::kImmInt:
      return constant(o.bits, ww);
    case OperandKind::kSymbol: // an address; `arr[%r1]` varies with its index
      return o.has_register_index() ? bottom(ww) : uniform_unknown(ww);
    case OperandKind::kSpecialReg: {
      std::string_view name = o.text();
      if (name == "%laneid") return resized(normalized(LaneBits{64, 64, 0, 31}), w);
      const auto g = static_cast<std::uint8_t>(wb.in_.group_log2);
      if (name == "%tid.x")
        return resized(
            wb.in_.tid_x_warp_aligned ? LaneBits{64, g, 0, ~std::uint64_t{0}} : bottom(64), w);
      if (name == "%ntid.x" && wb.in_.ntid_x_multiple_of_32)
        return resized(LaneBits{64, 0, g, 1024}, w); // at most 1024 threads per block
      return Uniformity::special_register_uniform(name, lanes().scope()) ? uniform_unknown(ww)
                                                                         : bottom(ww);
    }
    case OperandKind::kRegister:
      return read_value(a.values.value_of(i, k), a.cfg.block_of(i), w);
    default:
      return bottom(ww);
    }
  }

  bool all_sources_uniform(InstId i) {
    const Instruction& in = ir.inst(i);
    if (in.operands.empty()) return false;
    for (std::uint32_t k = writes_first_operand(in) ? 1 : 0; k < in.operands.size(); ++k)
      if (!read(i, k, 0).uniform()) return false;
    return true;
  }

  std::optional<LaneBits> evaluate(ValueId v) {
    const ValueInfo& x = vn.info(v);
    top = false;
    LaneBits r;
    switch (x.kind) {
    case ValueKind::kUndef:
    case ValueKind::kParam:
      r = bottom(64);
      break;
    case ValueKind::kGuarded: {
      // The new value where the guard held, the prior one where it did not; an operand without
      // a fact yet is left out (optimistic), both without: no fact yet.
      BlockId b = a.cfg.block_of(x.inst);
      std::optional<LaneBits> f, p;
      LaneBits t = read_value(x.fresh, b, 0);
      if (!top) f = t;
      top = false;
      t = read_value(x.prior, b, f ? f->width : 0);
      if (!top) p = t;
      top = false;
      if (!f && !p) return std::nullopt;
      r = f && p ? joined(*f, *p) : (f ? *f : *p);
      LaneBits g = read_value(x.pred, b, 1);
      if (top || !g.uniform()) r = lane_varying(r);
      top = false;
      break;
    }
    case ValueKind::kPhi: {
      bool any = false;
      for (const PhiIncoming& in : vn.phi_incoming(v)) {
        top = false;
        LaneBits f = read_value(in.value, x.block, 0);
        if (top) continue;
        r = any ? joined(r, f) : f;
        any = true;
      }
      top = false;
      if (!any) return std::nullopt;
      if ((*wb.in_.merge_varying)[x.block] && vn.leader(v) == v) r = lane_varying(r);
      break;
    }
    case ValueKind::kDef:
      if (x.fresh != kNoId) { // a copy
        r = read_value(x.fresh, x.block, 0);
        if (top) return std::nullopt;
        return r;
      }
      r = transfer(v);
      if (top) return std::nullopt;
      break;
    }
    if (lanes().is_uniform(v)) r.uniform_from = 0;
    return normalized(r);
  }

  // Facts of the value the defining instruction of v writes.
  LaneBits transfer(ValueId v) {
    const ValueInfo& x = vn.info(v);
    const InstId i = x.inst;
    const Instruction& in = ir.inst(i);
    const Mention& dm = ir.mention(x.mention);
    const Opcode op = in.op;
    const auto n = static_cast<std::uint32_t>(in.operands.size());
    std::vector<ScalarType> types = in.types();
    unsigned w = types.empty() ? 0 : type_width(types.back());
    bool scalar_dest = dm.operand == 0 && n > 0 &&
                       (in.operands[0].kind == OperandKind::kRegister ||
                        (op == Opcode::kSetp && in.operands[0].kind == OperandKind::kPair));
    // The width of the result: the destination type of cvt, twice the type for .wide.
    unsigned dest_w = w;
    if (op == Opcode::kCvt && !types.empty()) dest_w = type_width(types.front());
    if (in.has_modifier("wide") && w >= 8) dest_w = 2 * w;
    LaneBits generic = bottom(dest_w >= 1 && dest_w <= 64 ? dest_w : 64);
    // A shuffle's value is some lane's source value of the same warp (its own when the source
    // lane is out of range): whatever bits of the source are the same in every lane of the group,
    // and every per-lane bound, hold for it (`shfl.sync.idx warp_id, tid >> 5, 0` keeps the
    // warpgroup index in bits 2 and up).
    if (op == Opcode::kShfl && dm.operand == 0 && dm.element == 0 && n >= 2 && w >= 8 && w <= 64 &&
        (in.operands[0].kind == OperandKind::kRegister ||
         in.operands[0].kind == OperandKind::kPair))
      return normalized(read(i, 1, w));
    if (!scalar_dest || !isa::has(op, isa::kPure)) return generic;
    if (all_sources_uniform(i)) generic.uniform_from = 0;
    if (op == Opcode::kSetp) {
      LaneBits p = bottom(1);
      if (wb.compare_uniform_with(i, *this)) p.uniform_from = 0;
      if (generic.uniform()) p.uniform_from = 0;
      return normalized(p);
    }
    if (w < 8) return generic;
    const ScalarType t = types.back();
    auto meet = [&](LaneBits r) {
      if (generic.uniform()) r.uniform_from = 0;
      return normalized(r);
    };
    if (op == Opcode::kMov && n == 2 && plain_int_type(in, {}) != ScalarType::kUnknown)
      return meet(read(i, 1, w));
    if ((op == Opcode::kAnd || op == Opcode::kOr || op == Opcode::kXor) && n == 3 &&
        plain_int_type(in, {}) != ScalarType::kUnknown) {
      LaneBits x1 = read(i, 1, w), x2 = read(i, 2, w);
      if (op != Opcode::kAnd)
        return meet(LaneBits{u8(w), std::max(x1.uniform_from, x2.uniform_from),
                             op == Opcode::kOr ? std::min(x1.low_zero, x2.low_zero) : u8(0),
                             low_mask(std::max(bit_len(x1.max), bit_len(x2.max)))});
      // Bit j of the result is uniform when it is uniform in both, or known zero in either.
      unsigned k = std::max(x1.uniform_from, x2.uniform_from);
      unsigned hi = std::min({k, bit_len(x1.max), bit_len(x2.max)});
      unsigned lz = std::max(x1.low_zero, x2.low_zero);
      unsigned uf = hi > lz ? hi : 0;
      for (std::uint32_t c = 1; c <= 2; ++c) {
        const Operand& imm = in.operands[c];
        const LaneBits& other = c == 1 ? x2 : x1;
        if (imm.kind == OperandKind::kImmInt)
          uf = std::min(uf, bit_len(imm.bits & low_mask(w) & low_mask(other.uniform_from)));
      }
      return meet(LaneBits{u8(w), u8(uf), u8(lz), std::min(x1.max, x2.max)});
    }
    if (op == Opcode::kNot && n == 2 && plain_int_type(in, {}) != ScalarType::kUnknown) {
      LaneBits x1 = read(i, 1, w);
      return meet(LaneBits{u8(w), x1.uniform_from, 0, low_mask(w)});
    }
    if ((op == Opcode::kShl || op == Opcode::kShr) && n == 3 &&
        in.operands[2].kind == OperandKind::kImmInt &&
        plain_int_type(in, {}) != ScalarType::kUnknown) {
      LaneBits x1 = read(i, 1, w);
      std::uint64_t s64 = in.operands[2].bits & 0xffffffffu;
      unsigned s = static_cast<unsigned>(std::min<std::uint64_t>(s64, w));
      if (op == Opcode::kShl) return meet(shl_bits(x1, s, w));
      if (!is_signed(t) || x1.max <= low_mask(w - 1)) return meet(shr_bits(x1, s, w));
      // Arithmetic shift of a possibly negative value: the sign bit fills the top.
      if (x1.uniform_from >= w) return generic;
      return meet(LaneBits{u8(w), u8(sat_sub(x1.uniform_from, s)), u8(sat_sub(x1.low_zero, s)),
                           low_mask(w)});
    }
    if ((op == Opcode::kAdd || op == Opcode::kSub) && n == 3 &&
        plain_int_type(in, {"cc"}) != ScalarType::kUnknown) {
      LaneBits x1 = read(i, 1, w), x2 = read(i, 2, w);
      if (op == Opcode::kAdd) return meet(add_bits(x1, x2, w));
      unsigned m = std::max(x1.uniform_from, x2.uniform_from);
      bool borrow_same = m == 0 || x2.low_zero >= m;
      return meet(LaneBits{u8(w), u8(m < w && borrow_same ? m : w),
                           std::min(x1.low_zero, x2.low_zero), x2.max == 0 ? x1.max : low_mask(w)});
    }
    if ((op == Opcode::kMul || op == Opcode::kMad) && n == (op == Opcode::kMul ? 3u : 4u)) {
      bool wide = in.has_modifier("wide");
      ScalarType st = plain_int_type(in, {wide ? "wide" : "lo", "cc"});
      if (st == ScalarType::kUnknown || (!wide && !in.has_modifier("lo"))) return generic;
      if (op == Opcode::kMad && in.has_modifier("cc") && wide) return generic;
      unsigned sw = type_width(st);
      unsigned rw = wide ? 2 * sw : sw;
      if (rw > 64) return generic;
      LaneBits x1 = read(i, 1, sw), x2 = read(i, 2, sw);
      if (wide) {
        // Sign extension equals zero extension for values known non-negative.
        if (is_signed(st) && (x1.max > low_mask(sw - 1) || x2.max > low_mask(sw - 1)))
          return generic;
        x1 = zero_extended(x1, rw);
        x2 = zero_extended(x2, rw);
      }
      LaneBits p;
      if (in.operands[2].kind == OperandKind::kImmInt && !wide)
        p = mul_const_bits(x1, in.operands[2].bits, rw);
      else if (in.operands[1].kind == OperandKind::kImmInt && !wide)
        p = mul_const_bits(x2, in.operands[1].bits, rw);
      else if (in.operands[2].kind == OperandKind::kImmInt && !is_signed(st))
        p = mul_const_bits(x1, in.operands[2].bits & low_mask(sw), rw);
      else
        p = mul_bits(x1, x2, rw);
      if (op == Opcode::kMul) return meet(p);
      return meet(add_bits(p, read(i, 3, rw), rw));
    }
    // The divisor: an immediate, or a register set by `mov` of one (`mov.u32 %r, WARP_SZ`).
    std::optional<std::int64_t> divisor = (op == Opcode::kDiv || op == Opcode::kRem) && n == 3
                                              ? constant_operand(a, i, 2)
                                              : std::nullopt;
    if (divisor && plain_int_type(in, {}) != ScalarType::kUnknown && !is_signed(t)) {
      std::uint64_t c = static_cast<std::uint64_t>(*divisor) & low_mask(w);
      if (!std::has_single_bit(c)) return generic;
      LaneBits x1 = read(i, 1, w);
      unsigned s = static_cast<unsigned>(std::countr_zero(c));
      if (op == Opcode::kDiv) return meet(shr_bits(x1, s, w));
      unsigned uf = std::min<unsigned>(x1.uniform_from, s);
      return meet(LaneBits{u8(w), u8(uf), u8(std::min<unsigned>(x1.low_zero, s)),
                           std::min(x1.max, low_mask(s))});
    }
    if ((op == Opcode::kMin || op == Opcode::kMax) && n == 3 &&
        plain_int_type(in, {}) != ScalarType::kUnknown) {
      LaneBits x1 = read(i, 1, w), x2 = read(i, 2, w);
      unsigned k = std::max(x1.uniform_from, x2.uniform_from);
      std::uint64_t mx = op == Opcode::kMin ? std::min(x1.max, x2.max) : std::max(x1.max, x2.max);
      if (is_signed(t) && (x1.max > low_mask(w - 1) || x2.max > low_mask(w - 1))) mx = low_mask(w);
      return meet(LaneBits{u8(w), u8(k < w ? k : w), std::min(x1.low_zero, x2.low_zero), mx});
    }
    if (op == Opcode::kSelp && n == 4 && plain_int_type(in, {}) != ScalarType::kUnknown) {
      LaneBits x1 = read(i, 1, w), x2 = read(i, 2, w), p = read(i, 3, 1);
      LaneBits r = joined(x1, x2);
      return meet(p.uniform() ? r : lane_varying(r));
    }
    if (op == Opcode::kCvt && n == 2 && types.size() == 2 && in.modifiers.size() == 2) {
      unsigned wd = type_width(types[0]), ws = type_width(types[1]);
      if (wd < 8 || ws < 8) return generic;
      LaneBits x1 = read(i, 1, ws);
      if (wd <= ws) return meet(resized(x1, wd));
      if (!is_signed(types[1]) || x1.max <= low_mask(ws - 1)) return meet(zero_extended(x1, wd));
      // Sign extension: the copies of the sign bit are uniform when it is.
      if (x1.uniform_from >= ws) return generic;
      return meet(LaneBits{u8(wd), x1.uniform_from, x1.low_zero, low_mask(wd)});
    }
    return generic;
  }

  // Solves to the fixpoint from the current facts, re-evaluating `seeds` (every value when
  // empty and nothing is known yet) and, as their facts weaken, their users.
  void solve(const std::vector<ValueId>& seeds) {
    const std::uint32_t n = vn.size();
    changes.assign(n, 0);
    const FlatLists<std::uint32_t>& users = a.warp_bit_users();
    SparseWorklist work(n);
    if (seeds.empty() && !wb.solved_) {
      for (ValueId v = n; v-- > 0;)
        work.push(v); // popped in id order
    } else {
      for (ValueId v : seeds)
        work.push(v);
    }
    wb.solved_ = true;
    while (!work.empty()) {
      ValueId v = work.pop();
      std::optional<LaneBits> r = evaluate(v);
      if (!r) continue;
      LaneBits next = *r;
      if (wb.seen_[v]) {
        next = joined(wb.facts_[v], next); // facts only get weaker
        if (next.max != wb.facts_[v].max && ++changes[v] > 4) next.max = low_mask(next.width);
        next = normalized(next);
        if (next == wb.facts_[v]) continue;
      }
      wb.facts_[v] = next;
      wb.seen_[v] = 1;
      for (std::uint32_t u : users[v]) {
        if (u & kInstructionUser)
          for_each_defined_value(vn, u & ~kInstructionUser, [&](ValueId d) { work.push(d); });
        else
          work.push(u);
      }
    }
  }
};

// Users of each value: values whose evaluation reads it, in one flat array grouped by value
// (two passes over the same edges: count, then fill). An instruction's operands are read by
// every kDef value it writes: one entry tagged kInstructionUser per (operand, instruction),
// expanded when pushed, not one per (operand, defined value) pair.
FlatLists<std::uint32_t> WarpBits::build_users(const FunctionAnalysis& a) {
  const ValueNumbering& vn = a.values;
  const FunctionIR& ir = a.ir;
  const std::uint32_t n = vn.size();
  auto for_each_edge = [&](auto&& add) {
    auto add_user = [&](ValueId from, std::uint32_t to) {
      if (from == kNoId) return;
      add(from, to);
      if (vn.leader(from) != from) add(vn.leader(from), to);
    };
    for (ValueId v = 0; v < n; ++v) {
      const ValueInfo& x = vn.info(v);
      switch (x.kind) {
      case ValueKind::kGuarded:
        add_user(x.fresh, v);
        add_user(x.prior, v);
        add_user(x.pred, v);
        break;
      case ValueKind::kPhi:
        for (const PhiIncoming& in : vn.phi_incoming(v))
          add_user(in.value, v);
        break;
      case ValueKind::kDef:
        if (x.fresh != kNoId) add_user(x.fresh, v);
        break;
      default:
        break;
      }
    }
    for (InstId i = 0; i < ir.size(); ++i) {
      bool defines = false;
      for_each_defined_value(vn, i, [&](ValueId) { defines = true; });
      if (!defines) continue;
      vn.for_each_operand_value(i, [&](ValueId u) { add_user(u, kInstructionUser | i); });
    }
  };
  return FlatLists<std::uint32_t>::build(n, for_each_edge);
}

WarpBits::WarpBits(const FunctionAnalysis& a, const WarpBitsInput& in) : a_(&a), in_(in) {
  facts_.assign(a.values.size(), LaneBits{});
  seen_.assign(a.values.size(), 0);
  loop_divergent_.assign(a.loops.size(), 0);
  for (LoopId l = 0; l < a.loops.size(); ++l)
    for (BlockId b : a.loops.loop(l).blocks)
      if ((*in_.divergent)[b]) loop_divergent_[l] = 1;
  WarpBitsSolver s{*this, a, a.values, a.ir, {}};
  s.solve({});
}

void WarpBits::update(const WarpBitsInput& in) {
  const FunctionAnalysis& a = *a_;
  const ValueNumbering& vn = a.values;
  in_ = in;
  std::vector<char> loops(a.loops.size(), 0);
  for (LoopId l = 0; l < a.loops.size(); ++l)
    for (BlockId b : a.loops.loop(l).blocks)
      if ((*in_.divergent)[b]) loops[l] = 1;
  // The inputs only add divergence, so facts only weaken: re-evaluate what reads them (phis of
  // blocks that may merge lanes, and the readers of values defined in a loop that became
  // divergent), then what reads those.
  std::vector<ValueId> seeds;
  for (ValueId v = 0; v < vn.size(); ++v) {
    const ValueInfo& x = vn.info(v);
    if (x.kind == ValueKind::kPhi && (*in_.merge_varying)[x.block]) seeds.push_back(v);
    if (x.block == kNoId) continue;
    for (LoopId l = a.loops.loop_of(x.block); l != kNoId; l = a.loops.loop(l).parent)
      if (loops[l] && !loop_divergent_[l]) {
        for (std::uint32_t u : a.warp_bit_users()[v]) {
          if (u & kInstructionUser) {
            const InstInfo& info = a.ir.info(u & ~kInstructionUser);
            for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m)
              if (a.ir.mention(m).is_def && vn.ssa_def(m) != kNoId) {
                seeds.push_back(vn.ssa_def(m));
                const ValueInfo& d = vn.info(vn.ssa_def(m));
                if (d.kind == ValueKind::kGuarded && d.fresh != kNoId) seeds.push_back(d.fresh);
              }
          } else {
            seeds.push_back(u);
          }
        }
        break;
      }
  }
  loop_divergent_ = std::move(loops);
  if (seeds.empty()) return;
  WarpBitsSolver s{*this, a, a.values, a.ir, {}};
  s.solve(seeds);
}

LaneBits WarpBits::value(ValueId v) const {
  if (v == kNoId) return bottom(64);
  ValueId l = a_->values.leader(v);
  return seen_[l] ? facts_[l] : bottom(64);
}

LaneBits WarpBits::operand(InstId inst, std::uint32_t k, unsigned width) const {
  WarpBitsSolver s{const_cast<WarpBits&>(*this), *a_, a_->values, a_->ir, {}};
  LaneBits r = s.read(inst, k, width);
  return s.top ? bottom(width ? width : 64) : r;
}

bool WarpBits::guard_uniform(InstId inst) const {
  WarpBitsSolver s{const_cast<WarpBits&>(*this), *a_, a_->values, a_->ir, {}};
  ValueId g = a_->values.ssa_guard(inst);
  if (g == kNoId) return false;
  LaneBits r = s.read_value(g, a_->cfg.block_of(inst), 1);
  return !s.top && r.uniform();
}

bool WarpBits::compare_uniform(InstId inst) const {
  WarpBitsSolver s{const_cast<WarpBits&>(*this), *a_, a_->values, a_->ir, {}};
  bool r = compare_uniform_with(inst, s);
  return r && !s.top;
}

bool WarpBits::compare_uniform_with(InstId i, WarpBitsSolver& s) const {
  const Instruction& in = a_->ir.inst(i);
  if (in.op != Opcode::kSetp || in.operands.size() != 3 || in.modifiers.size() != 2) return false;
  ScalarType t = isa::type_from_spelling(in.modifiers[1]);
  unsigned w = type_width(t);
  if (w < 8) return false; // floating point (or no type): not refined
  std::string_view cmp = in.modifiers[0];
  LaneBits x = s.read(i, 1, w), y = s.read(i, 2, w);
  if (x.uniform() && y.uniform()) return true;
  static constexpr std::string_view kStrict[] = {"lt", "ge", "lo", "hs"};
  static constexpr std::string_view kLoose[] = {"le", "gt", "ls", "hi"};
  bool strict = std::find(std::begin(kStrict), std::end(kStrict), cmp) != std::end(kStrict);
  bool loose = std::find(std::begin(kLoose), std::end(kLoose), cmp) != std::end(kLoose);
  if (!strict && !loose) return false; // eq/ne depend on the varying low bits
  // The bound (uniform) side y, the lane side x; swapping the sides of an ordering keeps it in
  // its family (x < y is y > x: strict <-> loose flips with the swap of lt/gt, ge/le).
  std::uint32_t bound = 2;
  if (!y.uniform()) {
    std::swap(x, y);
    bound = 1;
    std::swap(strict, loose);
  }
  if (!y.uniform()) return false;
  unsigned k = x.uniform_from;
  if (k >= w) return false;
  // x = X*2^k + r (r < 2^k, X uniform). Strict: x < y iff X < y/2^k when y's low k bits are 0.
  if (strict) return y.low_zero >= k;
  // Loose: x <= c iff x < c + 1, for an immediate c with c + 1 a multiple of 2^k (c the largest
  // value: always true).
  const Operand& c = in.operands[bound];
  if (c.kind != OperandKind::kImmInt) return false;
  std::uint64_t cv = c.bits & low_mask(w);
  std::uint64_t largest = is_signed(t) ? low_mask(w - 1) : low_mask(w);
  if (cv == largest) return true;
  std::uint64_t c1 = (cv + 1) & low_mask(w);
  return static_cast<unsigned>(std::countr_zero(c1)) >= k;
}

} // namespace ptxkit::verifier::analysis
