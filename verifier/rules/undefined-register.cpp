// undefined-register.cpp: rule `undefined-register`: a register is read on a path on which
// nothing wrote it.
//
// What it proves: for every read (operand or guard) in reachable code, that some path from the
// function entry to the read writes the register last with an instruction (or it is a `.reg`
// parameter) — or it reports the read. A guarded write `@p op %r, ...` writes only when p
// holds; on the other path the prior content survives. The check is path-sensitive in the
// guard predicates: `@p mov %r, a; @!p mov %r, b;` defines %r, a read guarded by `@p` after
// `@p mov %r, a` is defined, and a branch `@p bra L` tells the paths through L that p held.
//
// Assumptions and limits: predicate facts are dropped when the walk crosses a loop back edge
// (a fact about one iteration says nothing about the previous one), which may report a read
// that a cross-iteration argument would prove defined; a walk that exceeds its step budget is
// not reported (no finding without a witness path). Calls do not write caller registers.
// Severity: error when no write of the register reaches the read on any path (the value is
// always unspecified: a lost definition) and the undefined value is observed: it reaches a
// computation, comparison, branch, address or a store outside the thread's local stack,
// following it through pure data moves (mov, shfl, prmt, selp, spills to the local stack) bit by
// bit: nvcc packs a never-written word beside a written one (`mov.b64 %rd, {%r_undef, %r}`) and
// shifts or truncates it out again, so bits a shift, truncation or constant mask drops are
// never observed.
// nvcc shuffles and spills never-initialised words of partly-initialised structs (CUB's
// ShuffleUp/ShuffleDown of padding words in thrust algorithms): those reads are warnings. Warning
// when the register is written on some paths only: optimizing compilers legitimately emit such
// reads when the undefined path is infeasible by a correlated condition (CUB's partial tiles load
// `if (i < n)` and use under a recomputed `i < n`), which a path analysis without arithmetic cannot
// prove; and warning in debug builds
// (`.target sm_XX, debug`), where nvcc -G stores uninitialized locals (empty structs, padding)
// to the stack.
//
// Replay: an error's witness is a thread the interpreter runs to the read (steering the branches
// it cannot decide toward it) with nothing on its path writing the register; where no thread
// tried gets there so, the finding is a warning naming why.
//
// How: a cheap may-be-undefined fixed point over SSA values first, then a predicate-aware backward
// walk for the few reads it leaves, so that the common guarded-definition shapes stay quiet.
#include "ptxkit/verifier/analysis/memory_access.h"
#include "ptxkit/verifier/interp/replay.h"
#include "ptxkit/verifier/interp/replay_split.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

struct Fact {
  ValueId pred;
  bool holds; // the predicate value is true (false: it is false)
};

class UndefinedRegisterRule final : public Rule {
public:
  std::string_view summary() const override {
    return "a register is read on a path where nothing defined it";
  }
  void check(RuleContext& ctx) const override;
};

// Whether `v` may hold "undefined" on some path, ignoring predicates.
std::vector<char> may_be_undefined(const ValueNumbering& vn) {
  std::vector<char> undef(vn.size(), 0);
  std::vector<ValueId> work;
  for (ValueId v = 0; v < vn.size(); ++v)
    if (vn.info(v).kind == ValueKind::kUndef) {
      undef[v] = 1;
      work.push_back(v);
    }
  while (!work.empty()) {
    ValueId v = work.back();
    work.pop_back();
    for (const ValueUse& u : vn.uses(v)) {
      if (u.inst != kNoId || undef[u.phi]) continue;
      const ValueInfo& w = vn.info(u.phi);
      // A guarded write is undefined only through its prior; a phi through any incoming value.
      if (w.kind == ValueKind::kGuarded && w.prior != v) continue;
      undef[u.phi] = 1;
      work.push_back(u.phi);
    }
  }
  return undef;
}

class Walker {
public:
  Walker(const FunctionAnalysis& a, const std::vector<char>& undef) : a_(a), undef_(undef) {}

  // Whether "undefined" reaches a read of `v` under the given facts; `steps` bounds the work.
  bool reaches(ValueId v, std::vector<Fact> facts) {
    steps_ = 0;
    seen_.clear();
    exceeded_ = false;
    bool r = walk(v, facts);
    return r && !exceeded_;
  }

  // Facts established by the guarded branches on the chain of single-predecessor blocks
  // leading to b (the conditions every path to b has passed).
  std::vector<Fact> dominating_facts(BlockId b) const {
    std::vector<Fact> facts;
    for (int steps = 0; steps < 32 && facts.size() < kMaxFacts; ++steps) {
      const auto& preds = a_.cfg.block(b).preds;
      if (preds.size() != 1 || preds[0] == b) break;
      if (auto f = edge_fact(preds[0], b)) {
        if (known(facts, f->pred).has_value()) break;
        facts.push_back(*f);
      }
      b = preds[0];
    }
    return facts;
  }

private:
  static constexpr std::uint32_t kBudget = 4096;
  static constexpr std::size_t kMaxFacts = 6;

  std::optional<bool> known(const std::vector<Fact>& facts, ValueId pred) const {
    for (const Fact& f : facts)
      if (f.pred == pred) return f.holds;
    return std::nullopt;
  }

  // The fact a CFG edge pred -> block establishes, if its terminator is a guarded branch.
  std::optional<Fact> edge_fact(BlockId from, BlockId to) const {
    const Cfg& cfg = a_.cfg;
    InstId t = cfg.terminator(from);
    if (t == kNoId) return std::nullopt;
    const InstInfo& info = a_.ir.info(t);
    ValueId p = a_.values.ssa_guard(t);
    if (p == kNoId) return std::nullopt;
    bool jumps_to = false;
    for (const InstId* x = a_.ir.targets_begin(t); x != a_.ir.targets_end(t); ++x)
      jumps_to = jumps_to || (*x < a_.ir.size() && cfg.block_of(*x) == to);
    bool falls_to = cfg.block(from).end < a_.ir.size() && cfg.block_of(cfg.block(from).end) == to;
    bool is_branch = info.control == ControlKind::kBranch || info.control == ControlKind::kIndirect;
    if (info.control != ControlKind::kNone && !is_branch) {
      // guarded ret/exit/trap: the fall-through path is taken when the guard failed.
      return falls_to ? std::optional<Fact>(Fact{p, info.guard_negated}) : std::nullopt;
    }
    if (!is_branch || jumps_to == falls_to) return std::nullopt;
    // Taken when (p xor negated) holds.
    return Fact{p, jumps_to != info.guard_negated};
  }

  bool walk(ValueId v, const std::vector<Fact>& facts) {
    if (v == kNoId || !undef_[v]) return false;
    if (++steps_ > kBudget) {
      exceeded_ = true;
      return false;
    }
    std::uint64_t key = (static_cast<std::uint64_t>(v) << 32) ^ hash(facts);
    if (!seen_.insert(key).second) return false;
    const ValueInfo& x = a_.values.info(v);
    switch (x.kind) {
    case ValueKind::kUndef:
      return true;
    case ValueKind::kParam:
    case ValueKind::kDef:
      return false;
    case ValueKind::kGuarded: {
      std::optional<bool> k = known(facts, x.pred);
      if (k.has_value() && *k != x.negated) return false; // the guard held: fresh, defined
      return walk(x.prior, facts);
    }
    case ValueKind::kPhi:
      for (const PhiIncoming& in : a_.values.raw_phi_incoming(v)) {
        std::vector<Fact> next;
        if (!a_.loops.is_back_edge(in.pred, x.block)) {
          next = facts;
          if (auto f = edge_fact(in.pred, x.block)) {
            std::optional<bool> k = known(next, f->pred);
            if (k.has_value() && *k != f->holds) continue; // infeasible edge
            if (!k.has_value()) {
              if (next.size() >= kMaxFacts) next.erase(next.begin());
              next.push_back(*f);
            }
          }
        }
        if (walk(in.value, next)) return true;
      }
      return false;
    }
    return false;
  }

  static std::uint64_t hash(const std::vector<Fact>& facts) {
    std::uint64_t h = facts.size();
    for (const Fact& f : facts)
      h = h * 1000003u ^ (f.pred * 2u + f.holds);
    return h;
  }

  const FunctionAnalysis& a_;
  const std::vector<char>& undef_;
  std::uint32_t steps_ = 0;
  bool exceeded_ = false;
  std::unordered_set<std::uint64_t> seen_;
};

constexpr std::uint64_t low_bits(unsigned n) {
  return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
}

// Bits of a register that may hold an undefined value (bit i: bit i of the register).
using UndefBits = std::uint64_t;

// Where the undefined bits `m` of an operand go when instruction x reads them as operand
// `operand` (element `element` of a brace list): the undefined bits of each destination, or
// nullopt when the instruction observes them (computes, compares, branches or addresses with
// them). Only data moves and the bit selections compilers build around them (nvcc packs a
// never-written half into a 64-bit word and shifts it out again) pass bits on unobserved.
struct DestBits {
  std::uint16_t element = 0; // destination element (brace-list destinations), else 0
  UndefBits bits = 0;
};
std::optional<std::vector<DestBits>> undefined_bits_through(const FunctionAnalysis& a, InstId x,
                                                            std::uint32_t operand,
                                                            std::uint32_t element, UndefBits m) {
  const Instruction& inst = a.ir.inst(x);
  const std::vector<isa::Type> types = inst.types();
  const unsigned width = types.empty() ? 64 : isa::size_bits(types.front());
  const auto one = [](UndefBits b) { return std::optional<std::vector<DestBits>>{{{0, b}}}; };
  const auto immediate = [&](std::uint32_t k) -> std::optional<std::uint64_t> {
    if (k >= inst.operands.size() || inst.operands[k].kind != OperandKind::kImmInt)
      return std::nullopt;
    return static_cast<std::uint64_t>(inst.operands[k].int_value());
  };
  switch (inst.op) {
  case Opcode::kMov: {
    if (operand != 1) return std::nullopt;
    const Operand& dst = inst.operands[0];
    const Operand& src = inst.operands[1];
    if (src.kind == OperandKind::kVector) { // pack: element e fills bits [e*w, (e+1)*w)
      const unsigned w = width / std::max<unsigned>(1, src.elements().size());
      return one((m & low_bits(w)) << (element * w));
    }
    if (dst.kind == OperandKind::kVector) { // unpack: element e takes bits [e*w, (e+1)*w)
      const unsigned w = width / std::max<unsigned>(1, dst.elements().size());
      std::vector<DestBits> out;
      for (std::uint16_t e = 0; e < dst.elements().size(); ++e)
        out.push_back({e, w >= 64 ? m : (m >> (e * w)) & low_bits(w)});
      return out;
    }
    return one(m);
  }
  case Opcode::kShr:
  case Opcode::kShl: {
    const auto c = immediate(2);
    if (operand != 1 || !c || *c >= width) return std::nullopt;
    if (inst.op == Opcode::kShl) return one((m << *c) & low_bits(width));
    UndefBits out = (m & low_bits(width)) >> *c;
    const bool arithmetic = !types.empty() && isa::kind(types.front()) == isa::TypeKind::kSigned;
    if (arithmetic && (m >> (width - 1)) & 1) out |= low_bits(width) & ~low_bits(width - *c);
    return one(out);
  }
  case Opcode::kAnd:
  case Opcode::kOr: {
    // A constant mask keeps (and) or overwrites (or) bits: the others pass on unobserved.
    const auto c = immediate(operand == 1 ? 2 : 1);
    if (!c) return std::nullopt;
    return one(inst.op == Opcode::kAnd ? m & *c : m & ~*c);
  }
  case Opcode::kCvt: {
    // Integer narrowing drops the high bits; widening copies (and, signed, replicates the top).
    if (operand != 1 || types.size() != 2) return std::nullopt;
    const auto is_int = [](isa::Type t) {
      const isa::TypeKind k = isa::kind(t);
      return k == isa::TypeKind::kUnsigned || k == isa::TypeKind::kSigned ||
             k == isa::TypeKind::kBits;
    };
    if (!is_int(types[0]) || !is_int(types[1]) || inst.has_modifier("sat")) return std::nullopt;
    const unsigned to = isa::size_bits(types[0]), from = isa::size_bits(types[1]);
    UndefBits out = m & low_bits(std::min(to, from));
    if (to > from && isa::kind(types[1]) == isa::TypeKind::kSigned && (m >> (from - 1)) & 1)
      out |= low_bits(to) & ~low_bits(from);
    return one(out);
  }
  case Opcode::kSelp:
    if (operand == 3) return std::nullopt; // the selecting predicate is observed
    return one(m);
  case Opcode::kShfl:
    if (operand != 1) return std::nullopt; // lane, clamp and mask operands are observed
    return one(low_bits(width));
  case Opcode::kPrmt:
    if (operand == 3) return std::nullopt;
    return one(low_bits(width));
  case Opcode::kSt:
    // A spill of the word to the thread's own stack (its value operand, not its address).
    if (operand != 0 && local_stack_address(a, x, 0)) return std::vector<DestBits>{};
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

// Whether undefined bits of the value read at instruction i (undefined on some path) reach a
// computation, a branch, an address or a store outside the local stack, following them through
// data moves and constant bit selections.
bool undefined_value_observed(const FunctionAnalysis& a, InstId i, ValueId read) {
  const ValueNumbering& vn = a.values;
  struct Item {
    InstId inst;
    ValueId value;
    UndefBits bits;
  };
  std::vector<Item> work{{i, read, ~UndefBits{0}}};
  // The undefined bits already followed into each value (a value is revisited only with new bits).
  std::vector<UndefBits> followed(vn.size(), 0);
  std::uint32_t budget = 20000;
  while (!work.empty()) {
    if (--budget == 0) return true;
    const Item item = work.back();
    work.pop_back();
    if (vn.ssa_guard(item.inst) == item.value) return true;
    const InstInfo& info = a.ir.info(item.inst);
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
      const Mention& use = a.ir.mention(m);
      if (use.is_def || vn.ssa_use(m) != item.value) continue;
      const auto dests = undefined_bits_through(a, item.inst, use.operand, use.element, item.bits);
      if (!dests) return true;
      for (const DestBits& d : *dests) {
        if (d.bits == 0) continue;
        for (std::uint32_t n = info.mention_begin; n < info.mention_end; ++n) {
          const Mention& def = a.ir.mention(n);
          if (!def.is_def || def.element != d.element) continue;
          // Follow the destination value, through phis, to every instruction that reads it.
          std::vector<ValueId> vals{vn.ssa_def(n)};
          while (!vals.empty()) {
            const ValueId v = vals.back();
            vals.pop_back();
            if (v == kNoId || (followed[v] | d.bits) == followed[v]) continue;
            followed[v] |= d.bits;
            for (const ValueUse& u : vn.uses(v)) {
              if (u.inst == kNoId)
                vals.push_back(u.phi);
              else
                work.push_back({u.inst, v, d.bits});
            }
          }
        }
      }
    }
  }
  return false;
}

// CUTLASS's guarded loads (`mov.b32 %d, %fallback; @p ld.global.u32 %d, [a];`, from inline asm
// whose fallback operand is an uninitialised variable): the instruction at i copies the
// undefined word into %d, and the next instruction of its block that mentions %d is a
// predicated write of %d that does not read it. The word survives only where that guard fails:
// "may be undefined", not a lost definition. Returns the predicated write, or kNoId.
InstId guarded_write_after_fallback(const FunctionAnalysis& a, InstId i) {
  const Instruction& inst = a.ir.inst(i);
  if (inst.op != Opcode::kMov || a.ir.info(i).guard != kNoId) return kNoId;
  RegId dest = kNoId;
  for (const Mention* m = a.ir.mentions_begin(i); m != a.ir.mentions_end(i); ++m)
    if (m->is_def) dest = m->reg;
  if (dest == kNoId) return kNoId;
  const BlockId b = a.cfg.block_of(i);
  for (InstId j = i + 1; j < a.cfg.block(b).end; ++j) {
    bool reads = false, writes = false;
    for (const Mention* m = a.ir.mentions_begin(j); m != a.ir.mentions_end(j); ++m)
      if (m->reg == dest) (m->is_def ? writes : reads) = true;
    if (!reads && !writes) continue;
    return !reads && writes && a.ir.info(j).guard != kNoId ? j : kNoId;
  }
  return kNoId;
}

// The error's witness: a thread of the launch the kernel states, replayed by the interpreter
// (interp/replay.h) to the read along a path that writes the register nowhere. The first of a
// few threads that gets there (the read may sit behind a branch on the thread index) is the
// witness; where none does, or the replay contradicts the analysis, the finding is a warning
// that says why.
void replay_read(RuleContext& ctx, RuleContext::Reported& f, InstId i, RegId reg) {
  const interp::Interpreter in(ctx.module(), ctx.analysis());
  std::string why;
  for (std::uint32_t x : {0u, 1u, 31u, 32u, 127u}) {
    const interp::ThreadLaunch l =
        interp::stated_launch(ctx.function(), ctx.contract(), {x, 0, 0}, {0, 0, 0});
    if (l.block_known && x >= l.ntid[0]) continue;
    const interp::Replay r = interp::replay_undefined_read(in, l, i, reg);
    if (r.verdict != interp::Verdict::kConfirmed) {
      if (why.empty() || r.verdict == interp::Verdict::kContradicted)
        why = interp::thread_name(l) + ": " + r.why;
      if (r.run.stop == interp::Stop::kReached) break; // it got there: the path decides
      continue;
    }
    Witness w;
    if (l.block_known) w.block_dim = l.ntid;
    const std::string steered = interp::steered_text(in, r.run);
    w.threads.push_back({l.tid, l.ctaid,
                         "reads " + ctx.analysis().ir.reg_name(reg) + " at line " +
                             std::to_string(ctx.analysis().ir.inst(i).loc.line) +
                             ", which nothing on its path wrote" +
                             (steered.empty() ? "" : " (" + steered + ")")});
    for (InstId s : interp::witness_path(r.run))
      w.path.push_back(f.step(s));
    f.witness(std::move(w));
    return;
  }
  f.assuming("the read is reached with the register unwritten, which the interpreter could not "
             "replay (" +
                 why + ")",
             "state the launch and the parameters with --contract or --block-dim");
}

void report_read(RuleContext& ctx, InstId i, RegId reg, ValueId v) {
  const FunctionAnalysis& a = ctx.analysis();
  std::string name = a.ir.reg_name(reg);
  // Where the register is written at all (reaching the read on some other path).
  std::vector<InstId> sites;
  std::vector<ValueId> work{v};
  std::vector<char> seen(a.values.size(), 0);
  while (!work.empty() && sites.size() < 3) {
    ValueId w = work.back();
    work.pop_back();
    if (w == kNoId || seen[w]) continue;
    seen[w] = 1;
    const ValueInfo& x = a.values.info(w);
    if (x.kind == ValueKind::kDef || x.kind == ValueKind::kGuarded) sites.push_back(x.inst);
    if (x.kind == ValueKind::kGuarded) work.push_back(x.prior);
    if (x.kind == ValueKind::kPhi)
      for (const PhiIncoming& in : a.values.raw_phi_incoming(w))
        work.push_back(in.value);
  }
  std::sort(sites.begin(), sites.end());
  const auto& targets = ctx.module().targets;
  bool debug = std::find(targets.begin(), targets.end(), "debug") != targets.end();
  std::string msg = sites.empty() ? name + " is read but nothing writes it before this instruction"
                                  : name + " is read on a path where nothing defined it";
  // An error needs a lost definition (nothing writes the register on any path) whose value is
  // observed: compilers shuffle and spill never-initialised words of partly-initialised
  // structs (CUB's ShuffleUp of padding words), which only moves undefined bits around.
  const InstId guarded = guarded_write_after_fallback(a, i);
  if (guarded != kNoId)
    msg += ": it is the fallback value of a predicated write, so it may be undefined only where "
           "that write's guard fails";
  Severity severity =
      sites.empty() && !debug && guarded == kNoId && undefined_value_observed(a, i, v)
          ? Severity::kError
          : Severity::kWarning;
  auto f = ctx.report(i, msg, severity);
  if (severity == Severity::kError) replay_read(ctx, f, i, reg);
  if (guarded != kNoId) f.relate(guarded, "the predicated write it is the fallback of");
  for (InstId s : sites) {
    const InstInfo& info = a.ir.info(s);
    std::string note = "defines " + name;
    if (info.guard != kNoId)
      note += " only when " + std::string(info.guard_negated ? "!" : "") +
              a.ir.reg_name(info.guard) + " holds";
    else
      note += " on some paths only";
    f.relate(s, note);
  }
}

void UndefinedRegisterRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const ValueNumbering& vn = a.values;
  std::vector<char> undef = may_be_undefined(vn);
  Walker walker(a, undef);
  for (InstId i = 0; i < a.ir.size(); ++i) {
    if (!a.cfg.reachable(a.cfg.block_of(i))) continue;
    const InstInfo& info = a.ir.info(i);
    std::vector<Fact> facts = walker.dominating_facts(a.cfg.block_of(i));
    ValueId g = vn.ssa_guard(i);
    if (g != kNoId) {
      ctx.add_sites();
      if (undef[g] && walker.reaches(g, {})) report_read(ctx, i, info.guard, g);
      facts.push_back({g, !info.guard_negated});
    }
    std::vector<RegId> reported;
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
      const Mention& mm = a.ir.mention(m);
      if (mm.is_def) continue;
      ctx.add_sites();
      ValueId v = vn.ssa_use(m);
      if (v == kNoId || !undef[v]) continue;
      if (std::find(reported.begin(), reported.end(), mm.reg) != reported.end()) continue;
      if (!walker.reaches(v, facts)) continue;
      reported.push_back(mm.reg);
      report_read(ctx, i, mm.reg, v);
    }
  }
}

} // namespace

std::unique_ptr<Rule> make_undefined_register_rule() {
  return std::make_unique<UndefinedRegisterRule>();
}

} // namespace ptxkit::verifier
