// dead-value.cpp: the `dead-value` rule (see dead-value.h): marks SSA values live from real
// reads, through phis and guarded writes, then reports pure instructions none of whose results
// is live.
#include "dead-value.h"

#include <algorithm>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

bool is_load(const Instruction& inst) { return inst.opcode == "ld" || inst.opcode == "ldu"; }

// Side-effect-free: the only effect is the register results.
bool is_pure(const Instruction& inst) {
  static constexpr std::string_view kPure[] = {
      "add",  "sub",   "mul",  "mad",   "fma",  "div",   "rem",    "abs",     "neg",
      "min",  "max",   "and",  "or",    "xor",  "not",   "shl",    "shr",     "cnot",
      "lop3", "bfe",   "bfi",  "brev",  "clz",  "popc",  "prmt",   "shf",     "selp",
      "set",  "setp",  "slct", "cvt",   "cvta", "mov",   "sqrt",   "rsqrt",   "rcp",
      "sin",  "cos",   "lg2",  "ex2",   "tanh", "copysign", "testp", "bmsk",  "szext",
      "dp4a", "dp2a",  "sad",  "mul24", "mad24", "fns",  "isspacep", "mapa",  "getctarank",
      "ld",   "ldu",   "cvt",
  };
  if (std::find(std::begin(kPure), std::end(kPure), inst.opcode) == std::end(kPure)) return false;
  if (inst.has_modifier("cc")) return false;
  if (is_load(inst)) {
    for (std::string_view m : {"volatile", "acquire", "relaxed", "mmio", "sys"})
      if (inst.has_modifier(m)) return false;
  }
  return true;
}

bool is_debug_build(const Module& m) {
  return std::find(m.targets.begin(), m.targets.end(), "debug") != m.targets.end();
}

// The load reads the thread's local stack: `.local` space, or a generic address derived from
// `cvta.local` / the `__local_depot` symbol (debug builds reload spilled variables this way).
bool reads_local_stack(const FunctionAnalysis& a, InstId i) {
  const Instruction& inst = a.ir.inst(i);
  if (inst.has_modifier("local")) return true;
  ValueId v = a.values.value_of(i, 1);
  for (int depth = 0; depth < 6 && v != kNoId; ++depth) {
    InstId d = a.values.defining_instruction(v);
    if (d == kNoId) return false;
    const Instruction& di = a.ir.inst(d);
    if (di.opcode == "cvta" && di.has_modifier("local")) return true;
    if (di.opcode == "mov" && di.operands.size() == 2 &&
        di.operands[1].text().starts_with("__local_depot"))
      return true;
    if (di.opcode != "add" && di.opcode != "sub" && di.opcode != "mov") return false;
    v = a.values.value_of(d, 1);
  }
  return false;
}

class DeadValueRule final : public Rule {
public:
  std::string_view id() const override { return "dead-value"; }
  std::string_view summary() const override {
    return "a load or other side-effect-free result is never used";
  }
  Severity default_severity() const override { return Severity::kError; }
  void check(RuleContext& ctx) const override;
};

void DeadValueRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const ValueNumbering& vn = a.values;
  std::vector<char> live(vn.size(), 0);
  std::vector<ValueId> work;
  auto mark = [&](ValueId v) {
    if (v != kNoId && !live[v]) {
      live[v] = 1;
      work.push_back(v);
    }
  };
  for (ValueId v = 0; v < vn.size(); ++v)
    for (const ValueUse& u : vn.uses(v))
      if (u.inst != kNoId) mark(v);
  while (!work.empty()) {
    ValueId v = work.back();
    work.pop_back();
    const ValueInfo& x = vn.info(v);
    if (x.kind == ValueKind::kPhi) {
      for (const PhiIncoming& in : vn.raw_phi_incoming(v)) mark(in.value);
    } else if (x.kind == ValueKind::kGuarded) {
      mark(x.prior);
      mark(x.fresh);
    }
  }
  const bool debug = is_debug_build(ctx.module());
  for (InstId i = 0; i < a.ir.size(); ++i) {
    BlockId b = a.cfg.block_of(i);
    if (!a.cfg.reachable(b)) continue;
    const InstInfo& info = a.ir.info(i);
    const Instruction& inst = a.ir.inst(i);
    if (!is_pure(inst)) continue;
    bool has_result = false, used = false;
    RegId first = kNoId;
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
      const Mention& mm = a.ir.mention(m);
      if (!mm.is_def) continue;
      has_result = true;
      if (first == kNoId) first = mm.reg;
      ValueId v = vn.ssa_def(m);
      if (v == kNoId) continue;
      // A guarded write is used if the register after it is read, or if its new value is read
      // directly (`@p ld %r; @!p mov %r, x;` merges the two paths' values).
      const ValueInfo& x = vn.info(v);
      used = used || live[v] || (x.kind == ValueKind::kGuarded && live[x.fresh]);
    }
    if (!has_result) continue;
    ctx.add_sites();
    if (used) continue;
    bool load = is_load(inst);
    Severity severity = load && !debug && !reads_local_stack(a, i) ? Severity::kError
                                                                    : Severity::kWarning;
    std::string name = a.ir.reg_name(first);
    std::string what = load ? "the value loaded into " + name : "the result " + name;
    Finding& f = ctx.report(i, what + " is never used", severity);
    // The next write of the same register in this block, if any, is where it was discarded.
    for (InstId j = i + 1; j < a.cfg.block(b).end; ++j) {
      const InstInfo& nj = a.ir.info(j);
      bool redefines = false;
      for (std::uint32_t m = nj.mention_begin; m < nj.mention_end; ++m)
        redefines = redefines || (a.ir.mention(m).is_def && a.ir.mention(m).reg == first);
      if (redefines) {
        ctx.relate(f, j, "overwrites " + name + " before any read");
        break;
      }
    }
  }
}

}  // namespace

std::unique_ptr<Rule> make_dead_value_rule() { return std::make_unique<DeadValueRule>(); }

}  // namespace ptxkit::verifier
