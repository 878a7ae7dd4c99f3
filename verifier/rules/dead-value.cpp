// dead-value.cpp: rule `dead-value`: an instruction without side effects whose results are
// never read.
//
// What it proves: for every side-effect-free instruction in reachable code (arithmetic, logic,
// comparisons, conversions, moves, and loads that are not volatile/acquire/relaxed/mmio), that
// at least one of its results can reach an instruction with an effect (a store, a branch, a
// call, an atomic...) — directly, through other pure instructions, through phis, or as the
// prior content under a guarded write — or it reports the instruction (aggressive dead-code
// elimination's notion of live). A result read only by other dead instructions is reported as
// "only feeds results that are never used", so a loop-carried sum nobody reads after the loop
// is found, update and initialisation alike. The bug it exists for: a kernel that loads a value
// and then computes with something else instead (a copied handle written over the register, a
// constant), so the output is silently wrong.
//
// Severity follows what the dead value means, not where it is. A dropped result is an error: a
// value that carries the kernel's data (a load of memory, or a computation reading a register)
// whose register is overwritten in its block before any read by an instruction whose own value
// is used: the register's reader meant to get a value and gets the later one (`ld %f1; mov %f1,
// 1.0; st %f1`, the copied-handle bug). No optimizing compiler emits it: SSA-form PTX never
// writes a register twice in a block without a read. Everything else is waste, a warning: a load
// or a result nothing reads changes no output (a prefetch-by-load in inline asm, a scoped
// `{ .reg .u8 d; ld.global.nc.u8 d, [p]; }`, is one; so are the zero-initialising movs and setps
// Triton and LLVM leave, parameter reads nvcc leaves behind when it copies a struct field by
// field, every dead value of a debug build (`.target sm_XX, debug`: nvcc -G keeps unused
// variables), reloads from the thread's local stack (`.local`, or generic addresses from
// cvta.local / __local_depot) and constant movs overwritten later). An instruction with several
// results (setp p|q, ld.v4) is dead only when none is read. Carry-chain instructions (.cc,
// addc/subc/madc) are never reported: their CC output is implicit.
//
// How: marks SSA values live from real reads, through phis and guarded writes, then reports pure
// instructions none of whose results is live.
#include "ptxkit/verifier/analysis/memory_access.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

bool is_load(const Instruction& inst) {
  return inst.op == Opcode::kLd || inst.op == Opcode::kLdu;
}

// Side-effect-free: the only effect is the register results.
bool is_pure(const Instruction& inst) {
  if (!isa::has(inst.op, isa::kPure) && !is_load(inst)) return false;
  if (inst.has_modifier("cc")) return false;
  if (is_load(inst)) {
    for (std::string_view m : {"volatile", "acquire", "relaxed", "mmio", "sys"})
      if (inst.has_modifier(m)) return false;
  }
  return true;
}

// `ld.param` of a `.param` the function body declares, not of one of its own parameters: the
// calling convention's read of a call's return value (`call (retval0), f, ...;` then
// `ld.param.b32 %r, [retval0+0];`). The compiler emits it for every call whose callee returns a
// value, whether the source uses the result (printf's count, say) or not: a discarded result is
// the source's choice, not a dead load.
bool reads_call_result(const Function& fn, const Instruction& inst) {
  if (!is_load(inst) || !inst.has_modifier("param") || inst.operands.size() < 2) return false;
  const std::string_view base = inst.operands[1].text();
  for (const VarDecl& p : fn.params)
    if (p.name == base) return false;
  return true;
}

bool is_debug_build(const Module& m) {
  return std::find(m.targets.begin(), m.targets.end(), "debug") != m.targets.end();
}

// The next instruction of i's block that writes register r, or kNoId.
InstId next_write_in_block(const FunctionAnalysis& a, InstId i, RegId r) {
  const FunctionIR& ir = a.ir;
  for (InstId j = i + 1; j < a.cfg.block(a.cfg.block_of(i)).end; ++j)
    for (const Mention* m = ir.mentions_begin(j); m != ir.mentions_end(j); ++m)
      if (m->is_def && m->reg == r) return j;
  return kNoId;
}

// A result that carries something from the kernel's data: a load of memory (not a parameter,
// not a spill reload from the thread's own stack) or a computation that reads a register. A
// constant `mov` carries nothing that a later write could have been meant to keep.
bool carries_information(const FunctionAnalysis& a, InstId i) {
  const FunctionIR& ir = a.ir;
  const Instruction& inst = ir.inst(i);
  if (is_load(inst)) return !inst.has_modifier("param") && !local_stack_address(a, i, 1);
  for (const Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
    if (!m->is_def) return true;
  return false;
}

class DeadValueRule final : public Rule {
public:
  std::string_view summary() const override {
    return "a load or other side-effect-free result is never used";
  }
  void check(RuleContext& ctx) const override;
};

void DeadValueRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const ValueNumbering& vn = a.values;
  const FunctionIR& ir = a.ir;
  // Liveness as aggressive dead-code elimination sees it: instructions with an effect (or no
  // result) are live; a live instruction makes the values it reads live; a live value makes the
  // instruction that computes it live (and a live phi or guarded write its inputs).
  std::vector<char> live_inst(ir.size(), 0);
  std::vector<char> live(vn.size(), 0);
  std::vector<ValueId> work;
  auto mark = [&](ValueId v) {
    if (v != kNoId && !live[v]) {
      live[v] = 1;
      work.push_back(v);
    }
  };
  auto make_live = [&](InstId i) {
    if (live_inst[i]) return;
    live_inst[i] = 1;
    const InstInfo& info = ir.info(i);
    mark(vn.ssa_guard(i));
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m)
      if (!ir.mention(m).is_def) mark(vn.ssa_use(m));
  };
  for (InstId i = 0; i < ir.size(); ++i) {
    if (!a.cfg.reachable(a.cfg.block_of(i))) continue;
    bool has_def = false;
    for (const Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
      has_def = has_def || m->is_def;
    if (!has_def || !is_pure(ir.inst(i)) || reads_call_result(ctx.function(), ir.inst(i)))
      make_live(i);
  }
  // An old-style `.func (.reg .b32 %ret) f(...)` returns %ret in the register itself: the caller
  // reads what it holds at `ret`, so writes to it are live.
  const auto& returns = ctx.function().returns;
  for (InstId i = 0; i < ir.size() && !returns.empty(); ++i) {
    if (!a.cfg.reachable(a.cfg.block_of(i))) continue;
    for (const Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m) {
      if (!m->is_def || m->reg == kNoId) continue;
      const VarDecl* decl = ir.reg(m->reg).decl;
      if (decl && decl->space == StateSpace::kReg && decl >= returns.data() &&
          decl < returns.data() + returns.size())
        make_live(i);
    }
  }
  while (!work.empty()) {
    ValueId v = work.back();
    work.pop_back();
    const ValueInfo& x = vn.info(v);
    switch (x.kind) {
    case ValueKind::kPhi:
      for (const PhiIncoming& in : vn.raw_phi_incoming(v))
        mark(in.value);
      break;
    case ValueKind::kGuarded:
      mark(x.prior);
      mark(x.fresh);
      make_live(x.inst);
      break;
    case ValueKind::kDef:
      make_live(x.inst);
      break;
    default:
      break;
    }
  }
  const bool debug = is_debug_build(ctx.module());
  for (InstId i = 0; i < ir.size(); ++i) {
    BlockId b = a.cfg.block_of(i);
    if (!a.cfg.reachable(b) || live_inst[i]) continue;
    const InstInfo& info = ir.info(i);
    const Instruction& inst = ir.inst(i);
    RegId first = kNoId;
    bool read_by_dead = false;
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
      const Mention& mm = ir.mention(m);
      if (!mm.is_def) continue;
      if (first == kNoId) first = mm.reg;
      ValueId v = vn.ssa_def(m);
      if (v == kNoId) continue;
      // Read by an instruction or a phi; being the prior of a guarded write is no read.
      for (const ValueUse& u : vn.uses(v))
        read_by_dead = read_by_dead || u.inst != kNoId || vn.is_phi(u.phi);
    }
    const bool load = is_load(inst);
    const InstId overwriter = next_write_in_block(a, i, first);
    const bool dropped = !read_by_dead && overwriter != kNoId && live_inst[overwriter] && !debug &&
                         carries_information(a, i);
    std::string name = ir.reg_name(first);
    std::string what = load ? "the value loaded into " + name : "the result " + name;
    std::string msg;
    if (dropped)
      msg = what + " is overwritten before any read, and the register's next value is used: a "
                   "dropped result (the reader meant to get it reads another value)";
    else if (read_by_dead)
      msg = what + " only feeds results that are never used";
    else
      msg = what + (load ? " is never used: a wasted load, with no effect on any result"
                         : " is never used: wasted work, with no effect on any result");
    auto f = ctx.report(i, msg, dropped ? Severity::kError : Severity::kWarning);
    if (overwriter != kNoId) f.relate(overwriter, "overwrites " + name + " before any read");
  }
  // Sites: every reachable side-effect-free instruction with a result.
  for (InstId i = 0; i < ir.size(); ++i) {
    if (!a.cfg.reachable(a.cfg.block_of(i)) || !is_pure(ir.inst(i))) continue;
    for (const Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
      if (m->is_def) {
        ctx.add_sites();
        break;
      }
  }
}

} // namespace

std::unique_ptr<Rule> make_dead_value_rule() {
  return std::make_unique<DeadValueRule>();
}

} // namespace ptxkit::verifier
