// interpreter.cpp: the one-thread PTX interpreter (interpreter.h says what it models and why it
// shares nothing with the analyses' value evaluators). Each instruction is read from its opcode
// enum, its type modifiers and its operands; its semantics are written out here from the PTX ISA
// (chapter 9.7), the integer ones exactly, everything else as "unknown".
#include "ptxkit/verifier/interp/interpreter.h"

#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/memory_access.h"

#include <algorithm>
#include <bit>
#include <deque>
#include <limits>

namespace ptxkit::verifier::interp {

namespace {

using analysis::BlockId;
using analysis::ControlKind;
using analysis::RegId;
using isa::Type;
using isa::TypeKind;

// ---------------------------------------------------------------------------------------------
// Integer helpers: a value of an n-bit type is kept in 64 bits, extended as its type says.
// ---------------------------------------------------------------------------------------------

std::uint64_t mask_of(unsigned n) {
  return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
}
bool is_signed(Type t) {
  return isa::kind(t) == TypeKind::kSigned;
}
bool is_integer(Type t) {
  const TypeKind k = isa::kind(t);
  return k == TypeKind::kBits || k == TypeKind::kUnsigned || k == TypeKind::kSigned;
}
unsigned width_of(Type t) {
  return isa::size_bits(t);
}
std::uint64_t sext(std::uint64_t v, unsigned n) {
  if (n >= 64) return v;
  const std::uint64_t sign = std::uint64_t{1} << (n - 1);
  v &= mask_of(n);
  return (v ^ sign) - sign;
}
// The value `v` as a register of type `t` holds it: n bits, sign-extended for .s types.
std::uint64_t extend(std::uint64_t v, Type t) {
  if (t == Type::kPred) return v & 1;
  const unsigned n = width_of(t);
  return is_signed(t) ? sext(v, n) : v & mask_of(n);
}
std::int64_t as_signed(std::uint64_t v, unsigned n) {
  return static_cast<std::int64_t>(sext(v, n));
}

// setp/set comparison of two n-bit integers; nullopt for a float-only or unknown comparison.
std::optional<bool> compare(const Instruction& inst, std::uint64_t a, std::uint64_t b, Type t) {
  const unsigned n = width_of(t);
  const std::int64_t sa = as_signed(a, n), sb = as_signed(b, n);
  const std::uint64_t ua = a & mask_of(n), ub = b & mask_of(n);
  const bool s = is_signed(t);
  for (std::string_view m : inst.modifiers) {
    if (m == "eq") return ua == ub;
    if (m == "ne") return ua != ub;
    if (m == "lt") return s ? sa < sb : ua < ub;
    if (m == "le") return s ? sa <= sb : ua <= ub;
    if (m == "gt") return s ? sa > sb : ua > ub;
    if (m == "ge") return s ? sa >= sb : ua >= ub;
    if (m == "lo") return ua < ub;
    if (m == "ls") return ua <= ub;
    if (m == "hi") return ua > ub;
    if (m == "hs") return ua >= ub;
  }
  return std::nullopt;
}

// The `.and`/`.or`/`.xor` combining of setp/set with predicate c; nullopt when absent.
std::optional<bool> combine(const Instruction& inst, bool x, bool c) {
  if (inst.has_modifier("and")) return x && c;
  if (inst.has_modifier("or")) return x || c;
  if (inst.has_modifier("xor")) return x != c;
  return std::nullopt;
}

struct Product {
  std::uint64_t lo, hi; // the 2n-bit product of two n-bit values, n <= 64, split at bit n
};
Product multiply(std::uint64_t a, std::uint64_t b, unsigned n, bool s) {
  using i128 = __int128;
  using u128 = unsigned __int128;
  const u128 p =
      s ? static_cast<u128>(static_cast<i128>(as_signed(a, n)) * static_cast<i128>(as_signed(b, n)))
        : static_cast<u128>(a & mask_of(n)) * static_cast<u128>(b & mask_of(n));
  return {static_cast<std::uint64_t>(p) & mask_of(n),
          static_cast<std::uint64_t>(p >> n) & mask_of(n)};
}

std::int64_t signed_min(unsigned n) {
  return n >= 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (n - 1));
}
std::int64_t signed_max(unsigned n) {
  return n >= 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (n - 1)) - 1;
}

std::uint64_t bit_reverse(std::uint64_t v, unsigned n) {
  std::uint64_t r = 0;
  for (unsigned i = 0; i < n; ++i)
    if ((v >> i) & 1) r |= std::uint64_t{1} << (n - 1 - i);
  return r;
}

// bfe (9.7.1.20): `len` bits of `a` from `pos`, zero- or sign-filled above them.
std::uint64_t bit_field_extract(std::uint64_t a, std::uint64_t pos, std::uint64_t len, Type t) {
  const unsigned n = width_of(t);
  pos &= 0xff;
  len &= 0xff;
  const unsigned msb = n - 1;
  bool sbit = false;
  if (is_signed(t) && len != 0) sbit = (a >> std::min<std::uint64_t>(pos + len - 1, msb)) & 1;
  std::uint64_t d = 0;
  for (unsigned i = 0; i < n; ++i) {
    const bool bit = (i < len && pos + i <= msb) ? ((a >> (pos + i)) & 1) : sbit;
    if (bit) d |= std::uint64_t{1} << i;
  }
  return d;
}

// bfi (9.7.1.21): `len` low bits of `a` inserted into `b` at `pos`.
std::uint64_t bit_field_insert(std::uint64_t a, std::uint64_t b, std::uint64_t pos,
                               std::uint64_t len, unsigned n) {
  pos &= 0xff;
  len &= 0xff;
  std::uint64_t f = b & mask_of(n);
  for (std::uint64_t i = 0; i < len && pos + i < n; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << (pos + i);
    f = ((a >> i) & 1) ? f | bit : f & ~bit;
  }
  return f;
}

// prmt's default mode (9.7.8.7): each result byte picks one of the eight bytes of {b, a},
// optionally replicating that byte's sign bit.
std::uint64_t permute_bytes(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const std::uint64_t bytes = ((b & 0xffffffff) << 32) | (a & 0xffffffff);
  std::uint64_t d = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned sel = (c >> (4 * i)) & 0xf;
    std::uint64_t byte = (bytes >> (8 * (sel & 7))) & 0xff;
    if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
    d |= byte << (8 * i);
  }
  return d;
}

// prmt's named modes (9.7.8.7): the low two bits of c choose one of four fixed patterns.
enum class PrmtMode : std::uint8_t { kF4e, kB4e, kRc8, kEcl, kEcr, kRc16 };

std::optional<PrmtMode> prmt_mode(const Instruction& inst) {
  static constexpr std::pair<const char*, PrmtMode> kModes[] = {
      {"f4e", PrmtMode::kF4e}, {"b4e", PrmtMode::kB4e}, {"rc8", PrmtMode::kRc8},
      {"ecl", PrmtMode::kEcl}, {"ecr", PrmtMode::kEcr}, {"rc16", PrmtMode::kRc16}};
  for (const auto& [name, mode] : kModes)
    if (inst.has_modifier(name)) return mode;
  return std::nullopt;
}

std::uint64_t permute_bytes_mode(std::uint64_t a, std::uint64_t b, std::uint64_t c, PrmtMode mode) {
  const std::uint64_t bytes = ((b & 0xffffffff) << 32) | (a & 0xffffffff);
  const unsigned s = c & 3;
  std::uint64_t d = 0;
  for (unsigned i = 0; i < 4; ++i) {
    unsigned sel = 0;
    switch (mode) {
    case PrmtMode::kF4e:
      sel = (s + i) & 7;
      break; // forward 4 extract
    case PrmtMode::kB4e:
      sel = (s + 8 - i) & 7;
      break; // backward 4 extract
    case PrmtMode::kRc8:
      sel = s;
      break; // replicate byte s
    case PrmtMode::kEcl:
      sel = std::max(i, s);
      break; // edge clamp left
    case PrmtMode::kEcr:
      sel = std::min(i, s);
      break; // edge clamp right
    case PrmtMode::kRc16:
      sel = (i & 1) + 2 * (s & 1);
      break; // replicate half s & 1
    }
    d |= ((bytes >> (8 * sel)) & 0xff) << (8 * i);
  }
  return d;
}

// lop3 (9.7.8.6): bit i of the result is bit (a_i b_i c_i) of the look-up table.
std::uint64_t lookup3(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t lut) {
  std::uint64_t d = 0;
  for (unsigned k = 0; k < 8; ++k) {
    if (!((lut >> k) & 1)) continue;
    d |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
  }
  return d;
}

// bfind (9.7.1.16): the position of the most significant non-sign bit, ~0 when none.
std::uint64_t find_msb(std::uint64_t a, Type t, bool shiftamt) {
  const unsigned n = width_of(t);
  std::uint64_t v = a & mask_of(n);
  if (is_signed(t) && ((v >> (n - 1)) & 1)) v = ~v & mask_of(n);
  if (v == 0) return 0xffffffff;
  const unsigned pos = 63 - static_cast<unsigned>(std::countl_zero(v));
  return shiftamt ? n - 1 - pos : pos;
}

StateSpace state_space_of(analysis::AddrSpace s) {
  switch (s) {
  case analysis::AddrSpace::kGlobal:
    return StateSpace::kGlobal;
  case analysis::AddrSpace::kShared:
    return StateSpace::kShared;
  case analysis::AddrSpace::kLocal:
    return StateSpace::kLocal;
  case analysis::AddrSpace::kConst:
    return StateSpace::kConst;
  case analysis::AddrSpace::kParam:
    return StateSpace::kParam;
  case analysis::AddrSpace::kNone:
    break;
  }
  return StateSpace::kNone;
}

void collect_shared(const Block& b, std::vector<const VarDecl*>& out) {
  for (const Statement& s : b.statements) {
    if (const auto* v = std::get_if<VarDecl>(&s.node); v && v->space == StateSpace::kShared)
      out.push_back(v);
    else if (const auto* nb = std::get_if<Block>(&s.node))
      collect_shared(*nb, out);
  }
}

bool has_unknown_dim(const VarDecl& v) {
  return std::find(v.dims.begin(), v.dims.end(), kUnknownDim) != v.dims.end();
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------------------------

Interpreter::Interpreter(const Module& module, const analysis::FunctionAnalysis& a) : a_(&a) {
  std::vector<const VarDecl*> vars;
  for (const TopLevel& item : module.items)
    if (const auto* v = std::get_if<VarDecl>(&item); v && v->space == StateSpace::kShared)
      vars.push_back(v);
  collect_shared(a.ir.function().body, vars);
  std::uint64_t next = 0;
  auto place = [&](const VarDecl* v) {
    const std::uint64_t align = std::max<std::uint32_t>(v->alignment(), 1);
    next = (next + align - 1) / align * align;
    shared_by_name_[v->name] = shared_.size(); // a later (inner) declaration shadows
    shared_.push_back({v, next, has_unknown_dim(*v) ? 0 : v->size_in_bytes()});
    next += shared_.back().size;
  };
  for (const VarDecl* v : vars)
    if (!has_unknown_dim(*v)) place(v);
  for (const VarDecl* v : vars) // dynamic shared memory follows the static variables
    if (has_unknown_dim(*v)) place(v);
}

std::optional<std::uint64_t> Interpreter::shared_offset(const VarDecl* var) const {
  for (const SharedVar& s : shared_)
    if (s.var == var) return s.offset;
  return std::nullopt;
}

std::pair<const VarDecl*, std::int64_t> Interpreter::shared_variable_at(std::uint64_t off) const {
  for (const SharedVar& s : shared_) {
    const bool dynamic = s.size == 0 && has_unknown_dim(*s.var);
    if (off >= s.offset && (dynamic || off < s.offset + s.size))
      return {s.var, static_cast<std::int64_t>(off - s.offset)};
  }
  return {nullptr, 0};
}

std::string Interpreter::describe_unknown(InstId from) const {
  if (from == kNoId) return "a register that is never written";
  const Instruction& inst = a_->ir.inst(from);
  const std::string line = "line " + std::to_string(inst.loc.line);
  if (inst.op == isa::Opcode::kLd && inst.has_modifier("param") && !inst.operands.empty())
    return "parameter " + std::string(inst.operands.back().text()) + " (not given), read at " +
           line;
  if (inst.op == isa::Opcode::kLd || inst.op == isa::Opcode::kLdu)
    return "the value loaded at " + line + " (" + inst.full_opcode() + ")";
  if (a_->ir.info(from).control == ControlKind::kBranch)
    return "a register the undecided branch at " + line + " may leave different";
  return "the result of " + line + " (" + analysis::instruction_text(inst) + ": not modelled)";
}

// ---------------------------------------------------------------------------------------------
// One thread
// ---------------------------------------------------------------------------------------------

class Interpreter::Thread {
public:
  Thread(const Interpreter& in, const ThreadLaunch& l, const RunOptions& o)
      : in_(in), a_(*in.a_), ir_(a_.ir), launch_(l), opt_(o), regs_(ir_.num_regs()),
        written_(ir_.num_regs(), Written::kNever) {
    if ((opt_.steer || opt_.stop_when_missed) && opt_.target != kNoId) distances_to_target();
    watched_.assign(ir_.size(), false);
    for (InstId w : opt_.watch)
      if (w < ir_.size()) watched_[w] = true;
  }

  RunResult run() {
    RunResult r;
    InstId pc = 0;
    std::uint32_t seen = 0;
    for (std::uint64_t steps = 0;; ++steps) {
      if (pc >= ir_.size()) return finish(r, Stop::kExited);
      if (steps == opt_.max_steps) return finish(r, Stop::kStepLimit);
      if (opt_.stop_when_missed && !dist_.empty() && dist_[a_.cfg.block_of(pc)] == kFar)
        return finish(r, Stop::kMissed);
      r.path.push_back(pc);
      const analysis::InstInfo& info = ir_.info(pc);
      const Value g = info.guard == kNoId ? Value::of(1) : regs_[info.guard];
      const bool control = info.control != ControlKind::kNone;
      bool holds = g.known && ((g.bits & 1) != info.guard_negated);
      if (!g.known) {
        const bool decisive = control || pc == opt_.target || watched_[pc];
        if (decisive && !opt_.steer) return inconclusive(r, pc, g.from);
        if (!decisive) { // the write may happen or not
          forget_defs(pc, kNoId, Written::kMaybe);
          ++pc;
          continue;
        }
      }
      if (pc == opt_.target && (holds || !g.known)) {
        if (!g.known) r.steered.push_back(pc);
        if (++seen == opt_.occurrence) {
          r.access = effective_address(pc);
          if (r.access && !r.access->known) return inconclusive(r, pc, r.access->unknown_from);
          return finish(r, Stop::kReached);
        }
      }
      if (watched_[pc] && holds) r.events.push_back(pc);
      if (control) {
        std::optional<InstId> next = g.known ? transfer(pc, holds, r) : steer(pc, r);
        if (!next) return r; // stopped (exit, or an undecided/unknown transfer)
        pc = *next;
        continue;
      }
      if (holds) execute(pc);
      ++pc;
    }
  }

private:
  // -- stopping -----------------------------------------------------------------------------

  RunResult& finish(RunResult& r, Stop s) {
    r.stop = s;
    r.registers = regs_;
    r.written = written_;
    return r;
  }
  RunResult& inconclusive(RunResult& r, InstId at, InstId from) {
    r.stop = Stop::kInconclusive;
    r.registers = regs_;
    r.written = written_;
    r.unknown_at = at;
    r.unknown_from = from;
    return r;
  }

  // -- control flow -------------------------------------------------------------------------

  // The next instruction after control instruction `pc` whose guard is decided; nullopt when
  // the thread stops there (`r` says why).
  std::optional<InstId> transfer(InstId pc, bool holds, RunResult& r) {
    const analysis::InstInfo& info = ir_.info(pc);
    if (!holds) return pc + 1;
    switch (info.control) {
    case ControlKind::kBranch:
      return ir_.targets_end(pc) != ir_.targets_begin(pc) ? *ir_.targets_begin(pc) : pc + 1;
    case ControlKind::kIndirect: {
      const Instruction& inst = ir_.inst(pc);
      const Value idx = read(pc, inst.operands[0], Type::kU32);
      const auto n = static_cast<std::uint64_t>(ir_.targets_end(pc) - ir_.targets_begin(pc));
      if (!idx.known) {
        inconclusive(r, pc, idx.from);
        return std::nullopt;
      }
      if (idx.bits >= n) { // out of the table: undefined behaviour, no replay
        inconclusive(r, pc, pc);
        return std::nullopt;
      }
      return ir_.targets_begin(pc)[idx.bits];
    }
    case ControlKind::kReturn:
    case ControlKind::kExit:
    case ControlKind::kTrap:
      finish(r, Stop::kExited);
      return std::nullopt;
    case ControlKind::kNone:
      break;
    }
    return pc + 1;
  }

  // An undecided control instruction, steered toward the target (RunOptions::steer).
  std::optional<InstId> steer(InstId pc, RunResult& r) {
    const analysis::InstInfo& info = ir_.info(pc);
    const InstId taken =
        info.control == ControlKind::kBranch && ir_.targets_end(pc) != ir_.targets_begin(pc)
            ? *ir_.targets_begin(pc)
            : kNoId; // ret/exit/trap taken: the thread stops
    if (info.control == ControlKind::kIndirect) {
      inconclusive(r, pc, regs_[info.guard].from);
      return std::nullopt;
    }
    const std::uint64_t d_taken = distance(taken), d_fall = distance(pc + 1);
    if (d_taken == kFar && d_fall == kFar) {
      inconclusive(r, pc, regs_[info.guard].from);
      return std::nullopt;
    }
    r.steered.push_back(pc);
    if (d_taken != kFar && d_fall != kFar) forget_region(pc); // either way reaches the target
    return d_taken <= d_fall ? taken : pc + 1;
  }

  static constexpr std::uint64_t kFar = ~std::uint64_t{0};

  // Blocks from each block to the target's (reverse breadth-first search over the CFG).
  void distances_to_target() {
    const analysis::Cfg& cfg = a_.cfg;
    dist_.assign(cfg.size(), kFar);
    std::deque<BlockId> work;
    const BlockId t = cfg.block_of(opt_.target);
    dist_[t] = 0;
    work.push_back(t);
    while (!work.empty()) {
      const BlockId b = work.front();
      work.pop_front();
      for (BlockId p : cfg.block(b).preds)
        if (dist_[p] == kFar) {
          dist_[p] = dist_[b] + 1;
          work.push_back(p);
        }
    }
  }
  // From instruction `i` (the start of a block, or kNoId / the end: the thread stops).
  std::uint64_t distance(InstId i) const {
    if (i == kNoId || i >= ir_.size() || dist_.empty()) return kFar;
    const BlockId b = a_.cfg.block_of(i);
    if (i > a_.cfg.block(b).begin) return kFar; // not a block start (cannot happen for targets)
    // Within the target's block: reaching its start reaches the target.
    return dist_[b];
  }

  // Every register written between branch `pc` and its immediate post-dominator, on either
  // side, becomes unknown: the side not taken might have written it differently.
  void forget_region(InstId pc) {
    const analysis::Cfg& cfg = a_.cfg;
    const BlockId from = cfg.block_of(pc);
    const std::uint32_t join = a_.pdom.in_tree(from) ? a_.pdom.idom(from) : kNoId;
    std::vector<bool> seen(cfg.size(), false);
    std::vector<BlockId> work(cfg.block(from).succs.begin(), cfg.block(from).succs.end());
    while (!work.empty()) {
      const BlockId b = work.back();
      work.pop_back();
      if (b == join || seen[b]) continue;
      seen[b] = true;
      for (InstId i = cfg.block(b).begin; i < cfg.block(b).end; ++i)
        forget_defs(i, pc, Written::kNever);
      for (BlockId s : cfg.block(b).succs)
        work.push_back(s);
    }
  }

  // `wrote`: what the forgetting says of the path executed: kYes for an instruction executed
  // but not modelled, kMaybe for one whose guard is undecided, kNever for the registers the
  // side not taken of a steered branch writes (this path did not).
  void forget_defs(InstId i, InstId why = kNoId, Written wrote = Written::kYes) {
    for (const analysis::Mention* m = ir_.mentions_begin(i); m != ir_.mentions_end(i); ++m)
      if (m->is_def && m->reg != kNoId) {
        regs_[m->reg] = Value::unknown(why == kNoId ? i : why);
        written_[m->reg] = std::max(written_[m->reg], wrote);
      }
  }

  // -- operands -----------------------------------------------------------------------------

  RegId reg_of(InstId i, const Operand& o) const {
    if (o.kind != OperandKind::kRegister && o.kind != OperandKind::kSymbol) return kNoId;
    return ir_.resolve(o.text(), ir_.info(i).scope);
  }

  Value special(InstId i, std::string_view name) const {
    const auto lin = [&] {
      return launch_.tid[0] +
             launch_.ntid[0] * (launch_.tid[1] + std::uint64_t{launch_.ntid[1]} * launch_.tid[2]);
    };
    static constexpr std::string_view kDims[] = {".x", ".y", ".z"};
    const std::pair<std::string_view, const std::array<std::uint32_t, 3>*> ids[] = {
        {"%tid", &launch_.tid},
        {"%ntid", &launch_.ntid},
        {"%ctaid", &launch_.ctaid},
        {"%nctaid", &launch_.nctaid}};
    for (const auto& [base, values] : ids)
      for (int k = 0; k < 3; ++k)
        if (name.size() == base.size() + 2 && name.starts_with(base) && name.ends_with(kDims[k])) {
          const bool shape = values == &launch_.ntid || values == &launch_.nctaid;
          const bool known = values == &launch_.ntid     ? launch_.block_known
                             : values == &launch_.nctaid ? launch_.grid_known
                                                         : true;
          if (shape && !known) return Value::unknown(i);
          return Value::of((*values)[k]);
        }
    const bool lin_known = launch_.block_known || (launch_.tid[1] == 0 && launch_.tid[2] == 0);
    if (!lin_known && (name == "%warpid" || name == "%laneid" || name.starts_with("%lanemask")))
      return Value::unknown(i);
    const std::uint64_t lane = lin() & 31;
    if (name == "%laneid") return Value::of(lane);
    if (name == "%warpid") return Value::of(lin() / 32);
    if (name == "%lanemask_eq") return Value::of(std::uint64_t{1} << lane);
    if (name == "%lanemask_lt") return Value::of((std::uint64_t{1} << lane) - 1);
    if (name == "%lanemask_le") return Value::of((std::uint64_t{2} << lane) - 1);
    if (name == "%lanemask_gt") return Value::of(~((std::uint64_t{2} << lane) - 1) & 0xffffffff);
    if (name == "%lanemask_ge") return Value::of(~((std::uint64_t{1} << lane) - 1) & 0xffffffff);
    return Value::unknown(i); // clocks, %smid, %nwarpid, cluster ids, ...: not modelled
  }

  // The shared-window offset of the `.shared` variable `name`, nullopt when it names none (or a
  // register shadows it).
  std::optional<std::uint64_t> shared_symbol(InstId i, std::string_view name) const {
    if (ir_.resolve(name, ir_.info(i).scope) != kNoId) return std::nullopt;
    auto it = in_.shared_by_name_.find(name);
    if (it == in_.shared_by_name_.end()) return std::nullopt;
    return in_.shared_[it->second].offset;
  }

  // Operand `o` read as type `t` (extended as t says).
  Value read(InstId i, const Operand& o, Type t) const {
    Value v = raw(i, o);
    if (v.known) v.bits = extend(v.bits, t);
    return v;
  }
  Value raw(InstId i, const Operand& o) const {
    switch (o.kind) {
    case OperandKind::kRegister:
    case OperandKind::kSymbol: {
      if (RegId r = reg_of(i, o); r != kNoId) {
        Value v = regs_[r];
        if (o.negated() && v.known) v.bits = !(v.bits & 1);
        return v;
      }
      if (o.kind == OperandKind::kSymbol)
        if (auto off = shared_symbol(i, o.text()))
          return Value::of(*off + static_cast<std::uint64_t>(o.address_offset()));
      return Value::unknown(i); // a global/const variable or function address: not modelled
    }
    case OperandKind::kSpecialReg:
      return special(i, o.text());
    case OperandKind::kImmInt:
    case OperandKind::kImmFloat:
      return Value::of(o.bits);
    default:
      return Value::unknown(i);
    }
  }

  void write(InstId i, const Operand& o, Value v, Type t) {
    if (o.kind == OperandKind::kSink) return;
    const RegId r = reg_of(i, o);
    if (r == kNoId) return;
    if (v.known) v.bits = extend(v.bits, t);
    regs_[r] = v;
    written_[r] = Written::kYes;
  }

  // -- instructions -------------------------------------------------------------------------

  void execute(InstId i) {
    const Instruction& inst = ir_.inst(i);
    if (!evaluate(i, inst)) forget_defs(i);
  }

  // Executes `inst`; false when it is not modelled (its destinations become unknown).
  bool evaluate(InstId i, const Instruction& inst) {
    using isa::Opcode;
    const std::vector<Type> ts = inst.types();
    const auto& ops = inst.operands;
    switch (inst.op) {
    case Opcode::kMov:
      return ts.size() == 1 && move(i, inst, ts[0]);
    case Opcode::kCvt:
      return ts.size() == 2 && ops.size() == 2 && convert(i, inst, ts[0], ts[1]);
    case Opcode::kCvta:
      return ts.size() == 1 && ops.size() == 2 && convert_address(i, inst, ts[0]);
    case Opcode::kLd:
      return ts.size() == 1 && load_param(i, inst, ts[0]);
    case Opcode::kSetp:
      return !ts.empty() && set_predicate(i, inst, ts.back());
    case Opcode::kSet:
      return ts.size() == 2 && set_value(i, inst, ts[0], ts[1]);
    case Opcode::kSelp:
      return ts.size() == 1 && ops.size() == 4 && select(i, inst, ts[0]);
    case Opcode::kSlct:
      return ts.size() == 2 && ops.size() == 4 && is_integer(ts[1]) && select_sign(i, inst, ts);
    default:
      break;
    }
    if (ts.empty()) return false;
    const Type t = ts.back();
    if (t == Type::kPred) return predicate_logic(i, inst);
    if (!is_integer(t) || ops.empty() || ops[0].kind == OperandKind::kPair ||
        ops[0].kind == OperandKind::kVector)
      return false;
    std::vector<Value> src;
    for (std::uint32_t k = 1; k < ops.size(); ++k)
      src.push_back(read(i, ops[k], source_type(inst, k, t)));
    const Type dt = result_type(inst, t);
    if (dt == Type::kUnknown) return false;
    for (const Value& v : src)
      if (!v.known) {
        write(i, ops[0], Value::unknown(v.from), dt);
        if (writes_carry(inst)) carry_ = Value::unknown(v.from);
        return true;
      }
    std::vector<std::uint64_t> x;
    for (const Value& v : src)
      x.push_back(v.bits);
    std::optional<std::uint64_t> r = integer_op(inst, x, t);
    if (!r) return false;
    write(i, ops[0], Value::of(*r), dt);
    return true;
  }

  // The type source operand k is read as (shift amounts, bit positions: .u32).
  static Type source_type(const Instruction& inst, std::uint32_t k, Type t) {
    using isa::Opcode;
    const Opcode op = inst.op;
    if ((op == Opcode::kShl || op == Opcode::kShr) && k == 2) return Type::kU32;
    if (op == Opcode::kShf && k == 3) return Type::kU32;
    if (op == Opcode::kBfe && k >= 2) return Type::kU32;
    if (op == Opcode::kBfi && k >= 3) return Type::kU32;
    if (op == Opcode::kLop3 && k == 4) return Type::kB32;
    if (op == Opcode::kMad && k == 3) return result_type(inst, t); // .wide: a 2n-bit addend
    return t;
  }

  // The type of the result: .wide doubles it, popc/clz/bfind give .u32; kUnknown if none.
  static Type result_type(const Instruction& inst, Type t) {
    using isa::Opcode;
    if (inst.op == Opcode::kPopc || inst.op == Opcode::kClz || inst.op == Opcode::kBfind)
      return Type::kU32;
    if ((inst.op == Opcode::kMul || inst.op == Opcode::kMad) && inst.has_modifier("wide")) {
      switch (t) {
      case Type::kU16:
        return Type::kU32;
      case Type::kS16:
        return Type::kS32;
      case Type::kU32:
        return Type::kU64;
      case Type::kS32:
        return Type::kS64;
      default:
        return Type::kUnknown;
      }
    }
    return t;
  }

  static bool writes_carry(const Instruction& inst) { return inst.has_modifier("cc"); }

  // The integer instructions of one result, their sources read as `t`; nullopt when the form is
  // not modelled.
  std::optional<std::uint64_t> integer_op(const Instruction& inst,
                                          const std::vector<std::uint64_t>& x, Type t) {
    using isa::Opcode;
    const unsigned n = width_of(t);
    const bool s = is_signed(t);
    const std::uint64_t m = mask_of(n);
    auto arity = [&](std::size_t k) { return x.size() == k; };
    switch (inst.op) {
    case Opcode::kAdd:
    case Opcode::kSub:
    case Opcode::kAddc:
    case Opcode::kSubc:
      return arity(2) ? add_sub(inst, x[0], x[1], t) : std::nullopt;
    case Opcode::kMul:
      if (!arity(2)) return std::nullopt;
      return multiply_op(inst, x[0], x[1], 0, t);
    case Opcode::kMad:
      if (!arity(3) || inst.has_modifier("sat")) return std::nullopt;
      return multiply_op(inst, x[0], x[1], x[2], t);
    case Opcode::kMul24:
    case Opcode::kMad24: {
      if (n != 32 || !arity(inst.op == Opcode::kMul24 ? 2 : 3) || inst.has_modifier("sat"))
        return std::nullopt;
      const Product p = multiply(sext24(x[0], s), sext24(x[1], s), 64, s);
      const std::uint64_t r = inst.has_modifier("hi") ? (p.lo >> 16) : p.lo;
      return (r + (inst.op == Opcode::kMad24 ? x[2] : 0)) & m;
    }
    case Opcode::kDiv:
    case Opcode::kRem:
      return arity(2) ? divide(inst.op == Opcode::kDiv, x[0], x[1], t) : std::nullopt;
    case Opcode::kAbs:
      if (!arity(1) || !s) return std::nullopt;
      return static_cast<std::uint64_t>(as_signed(x[0], n) < 0 ? 0 - x[0] : x[0]) & m;
    case Opcode::kNeg:
      return arity(1) && s ? std::optional<std::uint64_t>((0 - x[0]) & m) : std::nullopt;
    case Opcode::kMin:
    case Opcode::kMax:
      return x.size() >= 2 ? min_max(inst, x, t) : std::nullopt;
    case Opcode::kAnd:
      return arity(2) ? std::optional<std::uint64_t>(x[0] & x[1] & m) : std::nullopt;
    case Opcode::kOr:
      return arity(2) ? std::optional<std::uint64_t>((x[0] | x[1]) & m) : std::nullopt;
    case Opcode::kXor:
      return arity(2) ? std::optional<std::uint64_t>((x[0] ^ x[1]) & m) : std::nullopt;
    case Opcode::kNot:
      return arity(1) ? std::optional<std::uint64_t>(~x[0] & m) : std::nullopt;
    case Opcode::kCnot:
      return arity(1) ? std::optional<std::uint64_t>((x[0] & m) == 0) : std::nullopt;
    case Opcode::kShl:
      if (!arity(2)) return std::nullopt;
      return x[1] >= n ? 0 : (x[0] << x[1]) & m;
    case Opcode::kShr:
      if (!arity(2)) return std::nullopt;
      if (s)
        return static_cast<std::uint64_t>(as_signed(x[0], n) >> std::min<std::uint64_t>(x[1], 63)) &
               m;
      return x[1] >= n ? 0 : (x[0] & m) >> x[1];
    case Opcode::kShf:
      return arity(3) && n == 32 ? funnel_shift(inst, x[0], x[1], x[2]) : std::nullopt;
    case Opcode::kLop3:
      if (!arity(4)) return std::nullopt;
      return lookup3(x[0], x[1], x[2], x[3]) & m;
    case Opcode::kPopc:
      return arity(1) ? std::optional<std::uint64_t>(std::popcount(x[0] & m)) : std::nullopt;
    case Opcode::kClz:
      if (!arity(1)) return std::nullopt;
      return static_cast<std::uint64_t>(std::countl_zero(x[0] & m) - (64 - n));
    case Opcode::kBrev:
      return arity(1) ? std::optional<std::uint64_t>(bit_reverse(x[0], n)) : std::nullopt;
    case Opcode::kBfind:
      return arity(1)
                 ? std::optional<std::uint64_t>(find_msb(x[0], t, inst.has_modifier("shiftamt")))
                 : std::nullopt;
    case Opcode::kBfe:
      return arity(3) ? std::optional<std::uint64_t>(bit_field_extract(x[0], x[1], x[2], t))
                      : std::nullopt;
    case Opcode::kBfi:
      return arity(4) ? std::optional<std::uint64_t>(bit_field_insert(x[0], x[1], x[2], x[3], n))
                      : std::nullopt;
    case Opcode::kPrmt: {
      if (!arity(3) || n != 32) return std::nullopt;
      if (inst.modifiers.size() == 1) return permute_bytes(x[0], x[1], x[2]);
      const std::optional<PrmtMode> mode =
          inst.modifiers.size() == 2 ? prmt_mode(inst) : std::nullopt;
      return mode ? std::optional<std::uint64_t>(permute_bytes_mode(x[0], x[1], x[2], *mode))
                  : std::nullopt;
    }
    default:
      return std::nullopt;
    }
  }

  static std::uint64_t sext24(std::uint64_t v, bool s) { return s ? sext(v, 24) : v & 0xffffff; }

  std::optional<std::uint64_t> add_sub(const Instruction& inst, std::uint64_t a, std::uint64_t b,
                                       Type t) {
    using isa::Opcode;
    const unsigned n = width_of(t);
    const std::uint64_t m = mask_of(n);
    const bool sub = inst.op == Opcode::kSub || inst.op == Opcode::kSubc;
    const bool with_carry = inst.op == Opcode::kAddc || inst.op == Opcode::kSubc;
    if (with_carry && !carry_.known) return std::nullopt;
    const std::uint64_t cin = with_carry ? carry_.bits : 0;
    if (inst.has_modifier("sat")) {
      if (!is_signed(t) || n != 32 || with_carry) return std::nullopt;
      const std::int64_t r =
          sub ? as_signed(a, n) - as_signed(b, n) : as_signed(a, n) + as_signed(b, n);
      return static_cast<std::uint64_t>(std::clamp(r, signed_min(n), signed_max(n))) & m;
    }
    using u128 = unsigned __int128;
    const u128 ua = a & m, ub = b & m;
    // Subtraction's carry flag is the borrow: subc computes a - (b + CF).
    const u128 r = sub ? ua - ub - cin : ua + ub + cin;
    if (writes_carry(inst)) {
      if (n != 32 && n != 64) return std::nullopt;
      carry_ = Value::of(sub ? (ua < ub + cin) : ((r >> n) & 1));
    }
    return static_cast<std::uint64_t>(r) & m;
  }

  static std::optional<std::uint64_t> multiply_op(const Instruction& inst, std::uint64_t a,
                                                  std::uint64_t b, std::uint64_t c, Type t) {
    const unsigned n = width_of(t);
    const bool s = is_signed(t);
    const Product p = multiply(a, b, n, s);
    if (inst.has_modifier("wide")) {
      if (n > 32) return std::nullopt;
      return ((p.hi << n) | p.lo) + c; // the 2n-bit product plus the 2n-bit addend
    }
    if (inst.has_modifier("hi")) return (p.hi + c) & mask_of(n);
    return (p.lo + c) & mask_of(n); // .lo (also the form without a modifier is refused by ptxas)
  }

  // div/rem (9.7.1.8-9): truncating toward zero; the remainder has the dividend's sign.
  // Division by zero and the signed overflow MIN / -1 give unspecified values: unknown.
  static std::optional<std::uint64_t> divide(bool div, std::uint64_t a, std::uint64_t b, Type t) {
    const unsigned n = width_of(t);
    const std::uint64_t m = mask_of(n);
    if ((b & m) == 0) return std::nullopt;
    if (!is_signed(t)) return div ? (a & m) / (b & m) : (a & m) % (b & m);
    const std::int64_t sa = as_signed(a, n), sb = as_signed(b, n);
    if (sa == signed_min(n) && sb == -1) return std::nullopt;
    return static_cast<std::uint64_t>(div ? sa / sb : sa % sb) & m;
  }

  static std::optional<std::uint64_t> min_max(const Instruction& inst,
                                              const std::vector<std::uint64_t>& x, Type t) {
    const unsigned n = width_of(t);
    const bool s = is_signed(t), is_max = inst.op == isa::Opcode::kMax;
    auto less = [&](std::uint64_t p, std::uint64_t q) {
      return s ? as_signed(p, n) < as_signed(q, n) : (p & mask_of(n)) < (q & mask_of(n));
    };
    std::uint64_t r = x[0];
    for (std::size_t k = 1; k < x.size(); ++k)
      if (is_max ? less(r, x[k]) : less(x[k], r)) r = x[k];
    if (inst.has_modifier("relu") && s && as_signed(r, n) < 0) r = 0;
    return r & mask_of(n);
  }

  static std::optional<std::uint64_t> funnel_shift(const Instruction& inst, std::uint64_t a,
                                                   std::uint64_t b, std::uint64_t c) {
    const bool clamp = inst.has_modifier("clamp");
    if (!clamp && !inst.has_modifier("wrap")) return std::nullopt;
    const std::uint64_t k = clamp ? std::min<std::uint64_t>(c, 32) : c & 31;
    const std::uint64_t both = ((b & 0xffffffff) << 32) | (a & 0xffffffff);
    if (inst.has_modifier("l")) return k == 0 ? b & 0xffffffff : ((both << k) >> 32) & 0xffffffff;
    if (inst.has_modifier("r")) return (both >> k) & 0xffffffff;
    return std::nullopt;
  }

  // and/or/xor/not/cnot on predicates (and.pred etc.).
  bool predicate_logic(InstId i, const Instruction& inst) {
    using isa::Opcode;
    const auto& ops = inst.operands;
    std::vector<Value> src;
    for (std::uint32_t k = 1; k < ops.size(); ++k)
      src.push_back(read(i, ops[k], Type::kPred));
    for (const Value& v : src)
      if (!v.known) {
        write(i, ops[0], Value::unknown(v.from), Type::kPred);
        return true;
      }
    const auto b = [&](std::size_t k) { return (src[k].bits & 1) != 0; };
    std::optional<bool> r;
    if (src.size() == 2 && inst.op == Opcode::kAnd) r = b(0) && b(1);
    if (src.size() == 2 && inst.op == Opcode::kOr) r = b(0) || b(1);
    if (src.size() == 2 && inst.op == Opcode::kXor) r = b(0) != b(1);
    if (src.size() == 1 && (inst.op == Opcode::kNot || inst.op == Opcode::kCnot)) r = !b(0);
    if (src.size() == 1 && inst.op == Opcode::kMov) r = b(0);
    if (!r) return false;
    write(i, ops[0], Value::of(*r), Type::kPred);
    return true;
  }

  // mov: a register, immediate, special register or variable address; vectors pack/unpack.
  bool move(InstId i, const Instruction& inst, Type t) {
    const auto& ops = inst.operands;
    if (ops.size() != 2) return false;
    if (t == Type::kPred) return predicate_logic(i, inst);
    const unsigned n = width_of(t);
    if (ops[0].kind == OperandKind::kVector) { // unpack: element k gets bits [k*w, (k+1)*w)
      const Value v = read(i, ops[1], t);
      const auto parts = ops[0].elements();
      const unsigned w = n / std::max<unsigned>(parts.size(), 1);
      for (std::uint32_t k = 0; k < parts.size(); ++k) {
        Value e = v;
        if (v.known) e.bits = (v.bits >> (k * w)) & mask_of(w);
        write(i, parts[k], e, Type::kB64);
      }
      return true;
    }
    if (ops[1].kind == OperandKind::kVector) { // pack
      const auto parts = ops[1].elements();
      const unsigned w = n / std::max<unsigned>(parts.size(), 1);
      std::uint64_t bits = 0;
      for (std::uint32_t k = 0; k < parts.size(); ++k) {
        const Value e = raw(i, parts[k]);
        if (!e.known) {
          write(i, ops[0], e, t);
          return true;
        }
        bits |= (e.bits & mask_of(w)) << (k * w);
      }
      write(i, ops[0], Value::of(bits), t);
      return true;
    }
    write(i, ops[0], read(i, ops[1], t), t);
    return true;
  }

  // cvt between integer types (9.7.9.21): the source read as its type, saturated to the
  // destination's range with .sat, then truncated to it.
  bool convert(InstId i, const Instruction& inst, Type dt, Type st) {
    if (!is_integer(dt) || !is_integer(st)) return false;
    Value v = read(i, inst.operands[1], st);
    if (v.known && inst.has_modifier("sat")) {
      const unsigned dn = width_of(dt);
      const bool src_signed = is_signed(st);
      const auto sv = static_cast<std::int64_t>(v.bits);
      if (is_signed(dt)) {
        if (src_signed)
          v.bits = static_cast<std::uint64_t>(std::clamp(sv, signed_min(dn), signed_max(dn)));
        else
          v.bits = std::min<std::uint64_t>(v.bits, static_cast<std::uint64_t>(signed_max(dn)));
      } else if (src_signed && sv < 0) {
        v.bits = 0;
      } else {
        v.bits = std::min(v.bits, mask_of(dn));
      }
    }
    write(i, inst.operands[0], v, dt);
    return true;
  }

  // cvta to/from shared (the window, see the header); global is the identity.
  bool convert_address(InstId i, const Instruction& inst, Type t) {
    const bool to = inst.has_modifier("to");
    const bool shared = inst.has_modifier("shared");
    if (!shared && !inst.has_modifier("global")) return false;
    if (shared && width_of(t) != 64) return false; // 32-bit generic addressing: not modelled
    Value v = read(i, inst.operands[1], t);
    if (v.known && shared) v.bits = to ? v.bits - kSharedWindow : v.bits + kSharedWindow;
    write(i, inst.operands[0], v, t);
    return true;
  }

  // ld.param of a parameter given by name; every other load is not modelled.
  bool load_param(InstId i, const Instruction& inst, Type t) {
    const auto& ops = inst.operands;
    if (!inst.has_modifier("param") || ops.size() != 2 || ops[1].kind != OperandKind::kAddress ||
        ops[0].kind == OperandKind::kVector)
      return false;
    auto it = launch_.params.find(ops[1].text());
    if (it == launch_.params.end() || ops[1].address_offset() != 0) {
      write(i, ops[0], Value::unknown(i), t);
      return true;
    }
    write(i, ops[0], Value::of(static_cast<std::uint64_t>(it->second)), t);
    return true;
  }

  // setp (9.7.7.4): p = (a cmp b) [op c], q = !(a cmp b) [op c].
  bool set_predicate(InstId i, const Instruction& inst, Type t) {
    const auto& ops = inst.operands;
    if (!is_integer(t) || ops.size() < 3) return false;
    const Value a = read(i, ops[1], t), b = read(i, ops[2], t);
    const Value c = ops.size() > 3 ? read(i, ops[3], Type::kPred) : Value::of(0);
    const Operand* p = &ops[0];
    const Operand* q = nullptr;
    if (ops[0].kind == OperandKind::kPair && ops[0].elements().size() == 2) {
      p = &ops[0].elements()[0];
      q = &ops[0].elements()[1];
    }
    for (const Value& v : {a, b, c})
      if (!v.known) {
        write(i, *p, Value::unknown(v.from), Type::kPred);
        if (q) write(i, *q, Value::unknown(v.from), Type::kPred);
        return true;
      }
    const std::optional<bool> x = compare(inst, a.bits, b.bits, t);
    if (!x) return false;
    const bool cb = c.bits & 1;
    const std::optional<bool> rp = ops.size() > 3 ? combine(inst, *x, cb) : x;
    const std::optional<bool> rq = ops.size() > 3 ? combine(inst, !*x, cb) : !*x;
    if (!rp || !rq) return false;
    write(i, *p, Value::of(*rp), Type::kPred);
    if (q) write(i, *q, Value::of(*rq), Type::kPred);
    return true;
  }

  // set (9.7.7.3): all ones (integer destination) or 1.0f (f32) when the comparison holds.
  bool set_value(InstId i, const Instruction& inst, Type dt, Type st) {
    const auto& ops = inst.operands;
    if (!is_integer(st) || ops.size() < 3 || ops[0].kind != OperandKind::kRegister) return false;
    if (!is_integer(dt) && dt != Type::kF32) return false;
    const Value a = read(i, ops[1], st), b = read(i, ops[2], st);
    const Value c = ops.size() > 3 ? read(i, ops[3], Type::kPred) : Value::of(0);
    for (const Value& v : {a, b, c})
      if (!v.known) {
        write(i, ops[0], Value::unknown(v.from), dt);
        return true;
      }
    std::optional<bool> x = compare(inst, a.bits, b.bits, st);
    if (x && ops.size() > 3) x = combine(inst, *x, c.bits & 1);
    if (!x) return false;
    const std::uint64_t one = dt == Type::kF32 ? 0x3f800000 : mask_of(width_of(dt));
    write(i, ops[0], Value::of(*x ? one : 0), dt);
    return true;
  }

  bool select(InstId i, const Instruction& inst, Type t) {
    const auto& ops = inst.operands;
    const Value c = read(i, ops[3], Type::kPred);
    if (!c.known) {
      write(i, ops[0], Value::unknown(c.from), t);
      return true;
    }
    write(i, ops[0], read(i, ops[(c.bits & 1) ? 1 : 2], t), t);
    return true;
  }

  // slct.dtype.s32 d, a, b, c: d = c >= 0 ? a : b.
  bool select_sign(InstId i, const Instruction& inst, const std::vector<Type>& ts) {
    const auto& ops = inst.operands;
    const Value c = read(i, ops[3], ts[1]);
    if (!c.known) {
      write(i, ops[0], Value::unknown(c.from), ts[0]);
      return true;
    }
    const bool ge = as_signed(c.bits, width_of(ts[1])) >= 0;
    write(i, ops[0], read(i, ops[ge ? 1 : 2], ts[0]), ts[0]);
    return true;
  }

  // -- the target's address -----------------------------------------------------------------

  std::optional<EffectiveAddress> effective_address(InstId i) const {
    const Instruction& inst = ir_.inst(i);
    const auto mos = analysis::memory_operands(inst);
    if (mos.empty()) return std::nullopt;
    const Operand& o = inst.operands[mos[0].operand];
    EffectiveAddress ea;
    ea.space = state_space_of(mos[0].space);
    ea.width = analysis::access_width(inst);
    if (inst.op == isa::Opcode::kLdmatrix || inst.op == isa::Opcode::kStmatrix) ea.width = 16;
    const Value base = address_base(i, o, ea.space);
    if (!base.known) {
      ea.unknown_from = base.from;
      return ea;
    }
    ea.known = true;
    ea.address = base.bits + static_cast<std::uint64_t>(o.address_offset());
    if (ea.space == StateSpace::kShared) {
      ea.in_shared = true;
      ea.shared_offset = ea.address & 0xffffffff; // the shared window is 32 bits wide
    } else if (ea.space == StateSpace::kNone && ea.address - kSharedWindow <= 0xffffffff) {
      ea.in_shared = true;
      ea.shared_offset = ea.address - kSharedWindow;
    }
    if (ea.in_shared) std::tie(ea.var, ea.var_offset) = in_.shared_variable_at(ea.shared_offset);
    return ea;
  }

  // The base of an address operand: a register, a variable (its shared offset, or its generic
  // address in a generic access), an immediate, or `arr[%r + K]`.
  Value address_base(InstId i, const Operand& o, StateSpace space) const {
    if (o.address_base_is_immediate()) {
      try {
        return Value::of(std::stoull(std::string(o.text()), nullptr, 0));
      } catch (...) {
        return Value::unknown(i);
      }
    }
    if (RegId r = ir_.resolve(o.text(), ir_.info(i).scope); r != kNoId) return regs_[r];
    auto off = shared_symbol(i, o.text());
    if (!off) return Value::unknown(i); // a global/param/local variable: not modelled
    std::uint64_t base = *off + (space == StateSpace::kNone ? kSharedWindow : 0);
    if (const Operand* idx = o.index_register()) {
      const Value v = raw(i, *idx);
      if (!v.known) return v;
      std::uint64_t elem = 1;
      auto it = in_.shared_by_name_.find(o.text());
      if (const VarDecl* d = in_.shared_[it->second].var)
        elem = std::max<unsigned>(isa::size_bytes(d->type), 1);
      base += ((v.bits + static_cast<std::uint64_t>(o.index_constant())) & 0xffffffff) * elem;
    }
    return Value::of(base);
  }

  const Interpreter& in_;
  const analysis::FunctionAnalysis& a_;
  const analysis::FunctionIR& ir_;
  const ThreadLaunch& launch_;
  const RunOptions& opt_;
  std::vector<Value> regs_;
  Value carry_ = Value::unknown(kNoId);
  std::vector<Written> written_;
  std::vector<bool> watched_;       // by InstId: RunOptions::watch
  std::vector<std::uint64_t> dist_; // blocks to the target's block (steering, stop_when_missed)
};

RunResult Interpreter::run(const ThreadLaunch& launch, const RunOptions& options) const {
  return Thread(*this, launch, options).run();
}

} // namespace ptxkit::verifier::interp
