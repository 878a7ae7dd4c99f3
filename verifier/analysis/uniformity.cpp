// uniformity.cpp: the lane-uniformity analysis of uniformity.h: sparse propagation of "varying"
// over SSA def-use edges, alternated with the control-dependence step (divergent branches make
// merges varying) until neither changes anything.
#include "ptxkit/verifier/analysis/uniformity.h"

#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/solver.h"
#include "ptxkit/verifier/analysis/split_edges.h"
#include "ptxkit/verifier/analysis/thread_index.h"
#include "ptxkit/verifier/analysis/thread_terms.h"

#include <algorithm>
#include <array>
#include <optional>

namespace ptxkit::verifier::analysis {

namespace {

bool writes_memory(const Instruction& inst) {
  if (inst.op == Opcode::kWmma) return inst.has_modifier("store");
  return isa::has(inst.op, isa::kWritesMemory);
}

// The carry flag (CC) is an implicit register: add.cc/sub.cc/mad.cc (and the .cc forms of
// addc/subc/madc) write it, addc/subc/madc read it.
bool reads_carry(const Instruction& inst) {
  return isa::has(inst.op, isa::kReadsCarry);
}

bool writes_carry(const Instruction& inst) {
  const Opcode op = inst.op;
  return inst.has_modifier("cc") &&
         (op == Opcode::kAdd || op == Opcode::kSub || op == Opcode::kMad || reads_carry(inst));
}

bool is_pow2(std::int64_t k) {
  return k > 0 && k < 32 && (k & (k - 1)) == 0;
}

} // namespace

bool Uniformity::special_register_uniform(std::string_view name, UniformityScope scope) {
  static constexpr std::string_view kVarying[] = {"%tid",   "%laneid",      "%lanemask",
                                                  "%clock", "%globaltimer", "%pm"};
  for (std::string_view v : kVarying)
    if (name.starts_with(v)) return false;
  if (scope == UniformityScope::kBlock && name.starts_with("%warpid")) return false;
  return true;
}

struct UniformityBuilder {
  Uniformity& u;
  const ValueNumbering& vn;
  const FunctionIR& ir;
  const Cfg& cfg;
  const DominatorTree& pdom;
  const LoopInfo& loops;
  bool is_func;
  // Analyse a .func as if every caller passed each argument the same in all lanes.
  bool params_uniform = false;
  bool writes_global = false, writes_shared = false;
  // Roots (kernel pointer parameters or global variables) of every global/generic write whose
  // address could be traced, and whether some write's could not.
  std::vector<std::string_view> written_roots; // sorted, unique
  bool unknown_global_write = false;

  bool is_kernel_param(std::string_view name) const {
    if (is_func && !params_uniform) return false;
    for (const VarDecl& p : ir.function().params)
      if (p.name == name) return true;
    return false;
  }

  // The kernel pointer parameter (or global variable) value v is an address into, "" if not
  // traceable: ld.param of the parameter, then cvta / mov / add / sub chains.
  std::string_view pointer_root(ValueId v, int depth = 0) const {
    if (v == kNoId || depth > 16 || vn.info(v).kind != ValueKind::kDef) return {};
    InstId d = vn.info(v).inst;
    const Instruction& in = ir.inst(d);
    if (in.op == Opcode::kLd && explicit_space(in) == AddrSpace::kParam)
      return address_root(d, 1, depth);
    if (in.op == Opcode::kCvta || in.op == Opcode::kMov)
      return pointer_root(vn.value_of(d, 1), depth + 1);
    // base + index * size in one instruction (Triton and LLVM: mad.wide.u32 %rd, %r, 4, %base).
    if (in.op == Opcode::kMad && in.operands.size() == 4)
      return pointer_root(vn.value_of(d, 3), depth + 1);
    if (in.op == Opcode::kAdd || in.op == Opcode::kSub) {
      std::string_view r = pointer_root(vn.value_of(d, 1), depth + 1);
      if (r.empty() && in.op == Opcode::kAdd) r = pointer_root(vn.value_of(d, 2), depth + 1);
      return r;
    }
    return {};
  }

  // Root of the address operand k of instruction i.
  std::string_view address_root(InstId i, std::uint32_t k, int depth = 0) const {
    const Instruction& in = ir.inst(i);
    if (k >= in.operands.size() || in.operands[k].kind != OperandKind::kAddress) return {};
    const Operand& a = in.operands[k];
    if (a.address_base_is_immediate()) return {};
    if (in.op == Opcode::kLd && explicit_space(in) == AddrSpace::kParam) {
      std::string_view sym = param_symbol_of_address(i, k);
      return is_kernel_param(sym) ? sym : std::string_view{};
    }
    if (!a.text().starts_with('%')) return a.text(); // a global variable
    return pointer_root(vn.value_of(i, k, 0), depth + 1);
  }

  // The symbol a register holds the address of (a .param variable, a global), through the
  // address arithmetic nvcc emits for a struct parameter passed by value: `mov.b64 %rd1, p;
  // add.s64 %rd2, %rd1, 640; ld.param.u32 %r, [%rd2+8]`. "" when not traceable.
  std::string_view address_symbol(ValueId v, int depth = 0) const {
    if (v == kNoId || depth > 16 || vn.info(v).kind != ValueKind::kDef) return {};
    InstId d = vn.info(v).inst;
    const Instruction& in = ir.inst(d);
    if ((in.op == Opcode::kMov || in.op == Opcode::kCvta) && in.operands.size() == 2) {
      if (in.operands[1].kind == OperandKind::kSymbol) return in.operands[1].text();
      return address_symbol(vn.value_of(d, 1), depth + 1);
    }
    if ((in.op == Opcode::kAdd || in.op == Opcode::kSub) && in.operands.size() == 3) {
      std::string_view r;
      if (in.operands[2].kind == OperandKind::kImmInt || !operand_varying(d, 2))
        r = address_symbol(vn.value_of(d, 1), depth + 1);
      if (r.empty() && in.op == Opcode::kAdd &&
          (in.operands[1].kind == OperandKind::kImmInt || !operand_varying(d, 1)))
        r = address_symbol(vn.value_of(d, 2), depth + 1);
      return r;
    }
    return {};
  }

  // The .param symbol operand k (an address) of instruction i reads: `[p+8]` names it, `[%rd+8]`
  // reaches it through address_symbol.
  std::string_view param_symbol_of_address(InstId i, std::uint32_t k) const {
    const Instruction& in = ir.inst(i);
    if (k >= in.operands.size() || in.operands[k].kind != OperandKind::kAddress) return {};
    const Operand& a = in.operands[k];
    if (a.address_base_is_immediate()) return {};
    if (!a.text().starts_with('%')) return a.text();
    return address_symbol(vn.value_of(i, k, 0));
  }

  // The address operand index of a memory instruction (first kAddress), or kNoId.
  static std::uint32_t address_operand(const Instruction& in) {
    for (std::uint32_t k = 0; k < in.operands.size(); ++k)
      if (in.operands[k].kind == OperandKind::kAddress) return k;
    return kNoId;
  }

  // The load follows a CTA barrier in its block with no shared-memory write in between: every
  // thread reads in the same barrier phase, and (race freedom) nobody writes the word in it.
  bool follows_barrier(InstId load) const {
    BlockId b = cfg.block_of(load);
    for (InstId j = load; j-- > cfg.block(b).begin;) {
      const Instruction& in = ir.inst(j);
      if ((in.op == Opcode::kBar || in.op == Opcode::kBarrier) &&
          (in.has_modifier("sync") || in.has_modifier("red")) && ir.info(j).guard == kNoId)
        return true;
      if (writes_memory(in)) {
        const AddrSpace sp = explicit_space(in);
        if (sp == AddrSpace::kNone || sp == AddrSpace::kShared) return false;
      }
      if (in.op == Opcode::kCall) return false;
    }
    return false;
  }

  bool global_may_be_written(InstId load) const {
    if (!writes_global) return false;
    if (unknown_global_write) return true;
    std::string_view root = address_root(load, address_operand(ir.inst(load)));
    if (root.empty()) return true;
    return std::binary_search(written_roots.begin(), written_roots.end(), root);
  }
  std::vector<std::int32_t> bfly_mask; // per value: -1 unknown

  UniformityBuilder(Uniformity& u_, const ValueNumbering& vn_, const DominatorTree& pdom_,
                    const LoopInfo& loops_)
      : u(u_), vn(vn_), ir(vn_.ir()), cfg(vn_.cfg()), pdom(pdom_), loops(loops_),
        is_func(vn_.ir().function().kind == FunctionKind::kFunc), bfly_mask(vn_.size(), -1),
        tid_x_runs(analysis::warps_are_tid_x_runs(vn_.ir())) {}
  const bool tid_x_runs; // computed once: it scans the function

  bool varying_use(ValueId v, InstId at) const {
    return v != kNoId && u.varying_at(v, cfg.block_of(at));
  }
  bool operand_varying(InstId i, std::uint32_t operand) const {
    const InstInfo& info = ir.info(i);
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
      const Mention& mm = ir.mention(m);
      if (!mm.is_def && mm.operand == operand && varying_use(vn.ssa_use(m), i)) return true;
    }
    // Malformed input (a `brx` without its index, say) has no such operand: nothing varies.
    if (operand >= ir.inst(i).operands.size()) return false;
    const Operand& op = ir.inst(i).operands[operand];
    if (op.kind == OperandKind::kSpecialReg &&
        !Uniformity::special_register_uniform(op.text(), u.scope_))
      return true;
    return false;
  }
  bool any_operand_varying(InstId i) const {
    const Instruction& inst = ir.inst(i);
    for (std::uint32_t k = 0; k < inst.operands.size(); ++k) {
      const Operand& op = inst.operands[k];
      if (op.kind == OperandKind::kSpecialReg &&
          !Uniformity::special_register_uniform(op.text(), u.scope_))
        return true;
      if (op.kind == OperandKind::kVector || op.kind == OperandKind::kParenList)
        for (const Operand& e : op.elements())
          if (e.kind == OperandKind::kSpecialReg &&
              !Uniformity::special_register_uniform(e.text(), u.scope_))
            return true;
    }
    const InstInfo& info = ir.info(i);
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m)
      if (!ir.mention(m).is_def && varying_use(vn.ssa_use(m), i)) return true;
    return false;
  }

  // The carry flag `reader` reads may differ between lanes: the nearest earlier carry writer of
  // its block read a varying operand or carry (or was guarded by a varying predicate; a guarded
  // writer may leave the previous carry, so the walk goes on). A carry from another block (or
  // none) is not tracked: varying.
  bool carry_in_varying(InstId reader) const {
    const BasicBlock& blk = cfg.block(cfg.block_of(reader));
    for (InstId j = reader; j-- > blk.begin;) {
      const Instruction& w = ir.inst(j);
      if (!writes_carry(w)) continue;
      if (any_operand_varying(j) || (reads_carry(w) && carry_in_varying(j))) return true;
      if (ir.info(j).guard == kNoId) return false;
      if (varying_use(vn.ssa_guard(j), j)) return true;
    }
    return true;
  }

  // The integer value of operand k of i: an immediate, or a register set by `mov` of one.
  std::optional<std::uint64_t> constant_of(InstId i, std::uint32_t k) const {
    const Instruction& in = ir.inst(i);
    if (k >= in.operands.size()) return std::nullopt;
    const Operand& o = in.operands[k];
    if (o.kind == OperandKind::kImmInt) return o.bits;
    if (o.kind != OperandKind::kRegister) return std::nullopt;
    ValueId v = vn.value_of(i, k);
    if (v == kNoId || vn.info(v).kind != ValueKind::kDef) return std::nullopt;
    const Instruction& d = ir.inst(vn.info(v).inst);
    if (d.op == Opcode::kMov && d.operands.size() == 2 &&
        d.operands[1].kind == OperandKind::kImmInt)
      return d.operands[1].bits;
    return std::nullopt;
  }

  // shfl.sync.idx b, c: every lane reads lane (b & 31) only when c has no segment mask (bits
  // 8..12: each segment reads its own lane) and b & 31 is within the clamp c & 31 (beyond it a
  // lane reads its own value).
  bool shfl_idx_reads_one_lane(InstId i) const {
    std::optional<std::uint64_t> c = constant_of(i, 3);
    if (!c || ((*c >> 8) & 31) != 0) return false;
    if ((*c & 31) == 31) return true;
    std::optional<std::uint64_t> b = constant_of(i, 2);
    return b && (*b & 31) <= (*c & 31);
  }

  static bool imm_is(const Operand& op, std::uint64_t v) {
    return op.kind == OperandKind::kImmInt && (op.bits & 0xffffffffu) == v;
  }

  // Butterfly lanes covered by the reduction chain ending in value v (leader), 0 if none.
  std::int32_t butterfly(ValueId v, int depth = 0) {
    if (v == kNoId || depth > 8) return 0;
    if (bfly_mask[v] >= 0) return bfly_mask[v];
    std::int32_t mask = 0;
    InstId i = vn.defining_instruction(v);
    if (i != kNoId && vn.info(v).kind == ValueKind::kDef) {
      const Instruction& inst = ir.inst(i);
      bool reducing = isa::has(inst.op, isa::kAssociative);
      if (reducing && inst.operands.size() == 3) {
        ValueId a = vn.value_of(i, 1), b = vn.value_of(i, 2);
        for (int swap = 0; swap < 2 && mask == 0; ++swap) {
          ValueId x = swap ? b : a, y = swap ? a : b;
          if (x == kNoId || y == kNoId) continue;
          InstId s = vn.defining_instruction(y);
          if (s == kNoId || vn.info(y).kind != ValueKind::kDef) continue;
          const Instruction& sh = ir.inst(s);
          if (sh.op != Opcode::kShfl || !sh.has_modifier("bfly") || sh.operands.size() < 5)
            continue;
          if (vn.value_of(s, 1) != x) continue;
          const Operand& lane = sh.operands[2];
          if (lane.kind != OperandKind::kImmInt || !is_pow2(lane.int_value())) continue;
          if (!imm_is(sh.operands[3], 31) || !imm_is(sh.operands[4], 0xffffffffu)) continue;
          mask = butterfly(x, depth + 1) | static_cast<std::int32_t>(lane.int_value());
        }
      }
    }
    bfly_mask[v] = mask;
    return mask;
  }

  // Warps are formed from consecutive %tid.x (thread_index.h: a declared 1-D block or ntid.x a
  // multiple of 32, or no .reqntid and no read of %tid.y/%tid.z).
  bool warps_are_tid_x_aligned() const { return tid_x_runs; }

  bool is_tid_x(ValueId v) const { return analysis::is_tid_x(ir, vn, v); }

  // The instruction computes something of %tid.x that is the same in every lane of a warp:
  // tid.x >> k (k >= 5), tid.x / (32m), tid.x & mask with mask's low 5 bits clear, or a
  // comparison of tid.x with a constant on a 32-lane boundary (tid.x < 32m, tid.x > 32m - 1).
  // Operand `op` of instruction i is an integer constant: an immediate, or a register set by
  // `mov` of one (nvcc's `mov.u32 %r2, WARP_SZ; div.s32 %r3, %r1, %r2`).
  std::optional<std::int64_t> constant_source(InstId i, std::uint32_t op) const {
    const Operand& c = ir.inst(i).operands[op];
    if (c.kind == OperandKind::kImmInt) return c.int_value();
    if (c.kind != OperandKind::kRegister && c.kind != OperandKind::kSymbol) return std::nullopt;
    const ValueId v = vn.value_of(i, op);
    if (v == kNoId) return std::nullopt;
    const InstId d = vn.defining_instruction(v);
    if (d == kNoId) return std::nullopt;
    const Instruction& m = ir.inst(d);
    if (m.op != Opcode::kMov || m.operands.size() != 2 || !m.guard.empty() ||
        m.operands[1].kind != OperandKind::kImmInt)
      return std::nullopt;
    return m.operands[1].int_value();
  }

  bool warp_id_of_tid(InstId i) const {
    const Instruction& in = ir.inst(i);
    if (in.operands.size() != 3) return false;
    if (warps_are_tid_x_aligned() && tid_x_compare_is_warp_uniform(ir, vn, i)) return true;
    const std::optional<std::int64_t> divisor = constant_source(i, 2);
    if (!divisor) return false;
    ValueId x = vn.value_of(i, 1);
    if (!(warps_are_tid_x_aligned() && is_tid_x(x)) && !is_linear_tid(ir, vn, x)) return false;
    std::int64_t k = *divisor;
    const Opcode op = in.op;
    if (op == Opcode::kShr) return k >= 5;
    if (op == Opcode::kDiv) return k > 0 && k % 32 == 0;
    if (op == Opcode::kAnd) return (static_cast<std::uint64_t>(k) & 31) == 0;
    if (op == Opcode::kSetp || op == Opcode::kSet) {
      if (k < 0) return false;
      if (in.has_modifier("lt") || in.has_modifier("ge")) return k % 32 == 0;
      if (in.has_modifier("le") || in.has_modifier("gt")) return (k + 1) % 32 == 0;
    }
    return false;
  }

  bool load_varying(InstId i) {
    const Instruction& inst = ir.inst(i);
    const AddrSpace space = explicit_space(inst);
    if (space == AddrSpace::kLocal || inst.has_modifier("volatile")) return true;
    if (space == AddrSpace::kParam) {
      // Only the kernel's own parameters are the same in every thread: `.param` variables
      // declared in the body carry per-thread call arguments and return values.
      if (!is_kernel_param(param_symbol_of_address(i, 1))) return true;
    }
    bool address_varying = false;
    for (std::uint32_t k = 1; k < inst.operands.size(); ++k)
      address_varying = address_varying || operand_varying(i, k);
    if (address_varying) return true;
    if (space == AddrSpace::kConst || space == AddrSpace::kParam || inst.op == Opcode::kLdu ||
        inst.has_modifier("nc"))
      return false;
    if (space == AddrSpace::kGlobal) return global_may_be_written(i);
    if (space == AddrSpace::kShared) return writes_shared && !follows_barrier(i);
    // Generic: a pointer traced to a kernel parameter or global variable addresses global memory.
    if (!address_root(i, address_operand(inst)).empty()) return global_may_be_written(i);
    return writes_global || writes_shared;
  }

  bool def_varying(ValueId v) {
    const ValueInfo& x = vn.info(v);
    InstId i = x.inst;
    if (x.fresh != kNoId) return varying_use(x.fresh, i); // a copy
    const Instruction& inst = ir.inst(i);
    const Opcode op = inst.op;
    const Mention& dm = ir.mention(x.mention);
    // bar.red: the same result in every thread that takes part; with a thread count, different
    // groups of warps may use the barrier one after the other (different results in the CTA).
    if ((op == Opcode::kBar || op == Opcode::kBarrier) && inst.has_modifier("red"))
      return u.scope_ == UniformityScope::kBlock && inst.operands.size() >= 4;
    // mbarrier.test_wait/try_wait (and arrive's state) report what this thread observed when
    // it polled: like atomics, never the same by construction.
    if (op == Opcode::kAtom || op == Opcode::kTex || op == Opcode::kTld4 || op == Opcode::kSuld ||
        op == Opcode::kMbarrier)
      return true;
    if (reads_carry(inst) && carry_in_varying(i)) return true;
    if (op == Opcode::kLd || op == Opcode::kLdu) return load_varying(i);
    // The same outcome in every thread of the block, so at every scope.
    if (tid_x_compare_is_constant(ir, vn, i)) return false;
    if (thread_terms_cancel(ir, vn, loops, i)) return false;
    if (u.scope_ == UniformityScope::kBlock) {
      // Warp-level results differ between warps; same-everywhere inputs give same results.
      if (op == Opcode::kActivemask || op == Opcode::kElect) return true;
      return any_operand_varying(i);
    }
    if (op == Opcode::kVote || op == Opcode::kRedux || op == Opcode::kActivemask) return false;
    if (op == Opcode::kMatch) return !inst.has_modifier("all");
    if (op == Opcode::kElect) return dm.element != 0;
    if (op == Opcode::kShfl) {
      if (inst.has_modifier("idx") && inst.operands.size() >= 4 && shfl_idx_reads_one_lane(i))
        return operand_varying(i, 2) || (inst.operands.size() > 4 && operand_varying(i, 4));
      return true;
    }
    if (butterfly(vn.leader(v)) == 31) return false;
    if (warp_id_of_tid(i)) return false;
    return any_operand_varying(i);
  }

  bool evaluate(ValueId v) {
    const ValueInfo& x = vn.info(v);
    switch (x.kind) {
    case ValueKind::kUndef:
      return false;
    case ValueKind::kParam:
      return is_func && !params_uniform;
    case ValueKind::kGuarded: {
      // Read where the guarded write is: a prior value (or predicate) from a loop that lanes
      // left at different iterations differs between them there.
      BlockId b = cfg.block_of(x.inst);
      return u.varying_at(x.pred, b) || u.varying_at(x.fresh, b) || u.varying_at(x.prior, b);
    }
    case ValueKind::kPhi: {
      if (u.join_[x.block] && vn.leader(v) == v && merges_split_lanes(vn, split_edges, v))
        return true;
      for (const PhiIncoming& in : vn.phi_incoming(v))
        if (u.varying_at(in.value, x.block)) return true;
      // phi_incoming gives leaders; also check the raw incoming values.
      return false;
    }
    case ValueKind::kDef:
      return def_varying(v);
    }
    return false;
  }

  // The values instruction i writes.
  void push_defs(InstId i, SparseWorklist& work) const {
    const InstInfo& info = ir.info(i);
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m)
      if (ir.mention(m).is_def && vn.ssa_def(m) != kNoId) {
        work.push(vn.ssa_def(m));
        const ValueInfo& d = vn.info(vn.ssa_def(m));
        if (d.kind == ValueKind::kGuarded) work.push(d.fresh);
      }
  }

  // The values of the carry readers after carry writer w in its block (they read its carry, or
  // a carry chained from it).
  void push_carry_readers(InstId w, SparseWorklist& work) const {
    if (w == kNoId || !writes_carry(ir.inst(w))) return;
    const BasicBlock& blk = cfg.block(cfg.block_of(w));
    for (InstId j = w + 1; j < blk.end; ++j)
      if (reads_carry(ir.inst(j))) push_defs(j, work);
  }

  void propagate() {
    const std::uint32_t n = vn.size();
    SparseWorklist work(n);
    // Pushed last to first so that values pop in definition order: an operand is usually
    // decided before its users are first evaluated, which saves most re-evaluations.
    for (ValueId v = n; v-- > 0;)
      if (!u.varying_[v]) work.push(v);
    while (!work.empty()) {
      ValueId v = work.pop();
      if (u.varying_[v] || !evaluate(v)) continue;
      u.varying_[v] = 1;
      // Every value whose evaluation may read v: its users' results, and values led by v; and
      // the readers of a carry flag that v, or a value read by its writer, feeds.
      const ValueInfo& x = vn.info(v);
      if (x.kind == ValueKind::kDef || x.kind == ValueKind::kGuarded)
        push_carry_readers(x.inst, work);
      for (const ValueUse& use : vn.uses(v)) {
        if (use.inst == kNoId) {
          work.push(use.phi);
        } else {
          push_defs(use.inst, work);
          push_carry_readers(use.inst, work);
        }
      }
    }
  }

  // Divergent terminators, loop divergence, partial-warp regions and join blocks from the
  // current value facts. Returns whether anything new became divergent.
  bool control_step() {
    bool changed = false;
    const std::size_t sorted_edges = split_edges.size(); // sorted by the previous step
    for (BlockId b : cfg.rpo()) {
      if (u.divergent_branch_[b]) continue;
      InstId t = cfg.terminator(b);
      if (t == kNoId) continue;
      const InstInfo& info = ir.info(t);
      bool divergent = false;
      if (info.control != ControlKind::kNone && vn.ssa_guard(t) != kNoId &&
          varying_use(vn.ssa_guard(t), t))
        divergent = true;
      if (info.control == ControlKind::kIndirect && operand_varying(t, 0)) divergent = true;
      if (info.control == ControlKind::kBranch && cfg.block(b).succs.size() < 2 &&
          !cfg.block(b).exits)
        divergent = false; // both ways lead to the same block
      if (!divergent) continue;
      u.divergent_branch_[b] = 1;
      changed = true;
      mark_regions(b);
    }
    if (!changed) return false;
    sort_split_edges(split_edges, sorted_edges);
    for (LoopId l = 0; l < loops.size(); ++l)
      for (BlockId b : loops.loop(l).blocks)
        if (u.divergent_branch_[b]) u.loop_divergent_[l] = 1;
    return true;
  }

  // Blocks reachable from c's successors before its reconvergence point `stop`: partial-warp
  // blocks; those reached from two different successors (stop included) are joins.
  void mark_regions(BlockId c) {
    const std::uint32_t n = cfg.size();
    std::uint32_t stop = pdom.idom(c); // n (the virtual exit) or kNoId: never reconverges
    // No reconvergence before the function's exit: the lanes that went another way (or left
    // through a guarded ret/exit) never rejoin the blocks of this region.
    bool exit_kind = stop == n || stop == kNoId;
    // Only the blocks a region reaches are touched and reset: regions are small, functions
    // may have hundreds of thousands of blocks and one region per divergent branch.
    if (count.size() != n) {
      count.assign(n, 0);
      stamp.assign(n, 0);
    }
    std::vector<BlockId> work, touched;
    for (BlockId s : cfg.block(c).succs) {
      ++generation;
      work.assign(1, s);
      stamp[s] = generation;
      while (!work.empty()) {
        BlockId b = work.back();
        work.pop_back();
        if (count[b] == 0) touched.push_back(b);
        if (count[b] < 2) ++count[b];
        if (b == stop) continue;
        u.partial_[b] = 1;
        if (exit_kind) u.after_exit_[b] = 1;
        for (BlockId x : cfg.block(b).succs)
          if (stamp[x] != generation) {
            stamp[x] = generation;
            work.push_back(x);
          }
      }
    }
    // The edges into a join that lanes split at c may take: from c or a block of its region.
    auto record = [&](BlockId x) {
      for (BlockId b : cfg.block(x).succs)
        if (b < n && count[b] >= 2) split_edges.push_back({b, c, x});
    };
    record(c);
    for (BlockId x : touched)
      if (x != stop) record(x);
    for (BlockId b : touched) {
      if (count[b] >= 2) u.join_[b] = 1;
      count[b] = 0;
    }
  }

  // Edges into join blocks lanes of one split may arrive over (split_edges.h).
  std::vector<SplitEdge> split_edges;
  std::vector<std::uint8_t> count;
  std::vector<std::uint32_t> stamp;
  std::uint32_t generation = 0;
};

Uniformity::Uniformity(const ValueNumbering& vn, const DominatorTree& pdom, const LoopInfo& loops,
                       UniformityScope scope, bool func_params_uniform)
    : vn_(&vn), loops_(&loops), scope_(scope) {
  const Cfg& cfg = vn.cfg();
  const FunctionIR& ir = vn.ir();
  varying_.assign(vn.size(), 0);
  divergent_branch_.assign(cfg.size(), 0);
  partial_.assign(cfg.size(), 0);
  after_exit_.assign(cfg.size(), 0);
  join_.assign(cfg.size(), 0);
  loop_divergent_.assign(loops.size(), 0);
  UniformityBuilder b(*this, vn, pdom, loops);
  b.params_uniform = func_params_uniform;
  for (InstId i = 0; i < ir.size(); ++i) {
    const Instruction& inst = ir.inst(i);
    if (!writes_memory(inst)) continue;
    const AddrSpace space = explicit_space(inst); // the destination's, for cp.*
    if (space == AddrSpace::kShared || space == AddrSpace::kNone) b.writes_shared = true;
    if (space == AddrSpace::kGlobal || space == AddrSpace::kNone) b.writes_global = true;
  }
  // Trace global/generic writes to their roots once values are known.
  for (InstId i = 0; i < ir.size() && b.writes_global; ++i) {
    const Instruction& inst = ir.inst(i);
    if (!writes_memory(inst)) continue;
    const AddrSpace space = explicit_space(inst);
    if (space != AddrSpace::kGlobal && space != AddrSpace::kNone) continue;
    bool opaque = inst.op == Opcode::kSust || inst.op == Opcode::kSured ||
                  inst.op == Opcode::kTcgen05 || inst.op == Opcode::kTensormap ||
                  inst.op == Opcode::kMultimem;
    std::string_view root =
        opaque ? std::string_view{} : b.address_root(i, UniformityBuilder::address_operand(inst));
    if (root.empty()) {
      b.unknown_global_write = true;
      break;
    }
    b.written_roots.push_back(root);
  }
  std::sort(b.written_roots.begin(), b.written_roots.end());
  b.written_roots.erase(std::unique(b.written_roots.begin(), b.written_roots.end()),
                        b.written_roots.end());
  do {
    b.propagate();
  } while (b.control_step());
}

bool Uniformity::varying_at(ValueId v, BlockId use_block) const {
  if (v == kNoId) return false;
  if (varying_[v]) return true;
  BlockId def_block = vn_->info(v).block;
  if (def_block == kNoId || def_block == use_block) return false;
  for (LoopId l = loops_->loop_of(def_block); l != kNoId; l = loops_->loop(l).parent)
    if (loop_divergent_[l] && !loops_->contains(l, use_block)) return true;
  return false;
}

bool Uniformity::operand_uniform(InstId inst, std::uint32_t operand, std::uint32_t element) const {
  const FunctionIR& ir = vn_->ir();
  const Instruction& in = ir.inst(inst);
  if (operand >= in.operands.size()) return true;
  const Operand& op = in.operands[operand];
  const Operand* e = &op;
  if ((op.kind == OperandKind::kVector || op.kind == OperandKind::kPair) &&
      element < op.elements().size())
    e = &op.elements()[element];
  if (e->kind == OperandKind::kSpecialReg) return special_register_uniform(e->text(), scope_);
  BlockId ub = vn_->cfg().block_of(inst);
  const InstInfo& info = ir.info(inst);
  for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
    const Mention& mm = ir.mention(m);
    if (!mm.is_def && mm.operand == operand &&
        (mm.element == element || op.kind == OperandKind::kAddress) &&
        varying_at(vn_->ssa_use(m), ub))
      return false;
  }
  return true;
}

} // namespace ptxkit::verifier::analysis
