// value_numbering.cpp: SSA construction (pruned phi placement + dominator-tree renaming), the
// guarded-write refinements, leaders by copy propagation and trivial-phi folding, def-use lists
// and reaching definitions. See value_numbering.h for the model.
#include "ptxkit/verifier/analysis/value_numbering.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <string_view>
#include <unordered_set>

namespace ptxkit::verifier::analysis {

namespace {

bool is_register_copy(const FunctionIR& ir, InstId i) {
  const Instruction& inst = ir.inst(i);
  if (inst.op != Opcode::kMov || inst.operands.size() != 2) return false;
  const Operand& dst = inst.operands[0];
  const Operand& src = inst.operands[1];
  bool dst_reg = dst.kind == OperandKind::kRegister || dst.kind == OperandKind::kSymbol;
  bool src_reg = src.kind == OperandKind::kRegister || src.kind == OperandKind::kSymbol;
  if (!dst_reg || !src_reg || src.negated() || src.has_register_index()) return false;
  // Both must resolve to registers (a symbol source is an address, not a copy).
  std::uint32_t defs = 0, uses = 0;
  for (const Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
    (m->is_def ? defs : uses) += 1;
  return defs == 1 && uses == 1;
}

} // namespace

struct SsaBuilder {
  ValueNumbering& vn;
  const Cfg& cfg;
  const FunctionIR& ir;
  const DominatorTree& dom;
  const Liveness& live;
  std::vector<std::vector<ValueId>> phis;   // per block
  std::vector<std::vector<ValueId>> stacks; // per register: current value
  std::vector<ValueId> undef_of;            // per register, lazily

  ValueId add(ValueInfo v) {
    vn.values_.push_back(v);
    return static_cast<ValueId>(vn.values_.size() - 1);
  }

  ValueId entry_value(RegId r) {
    if (undef_of[r] == kNoId) {
      ValueInfo v;
      v.kind = ir.reg(r).is_param ? ValueKind::kParam : ValueKind::kUndef;
      v.reg = r;
      v.block = cfg.entry();
      undef_of[r] = add(v);
    }
    return undef_of[r];
  }
  ValueId current(RegId r) { return stacks[r].empty() ? entry_value(r) : stacks[r].back(); }

  void place_phis() {
    const std::uint32_t nregs = ir.num_regs();
    std::vector<std::vector<BlockId>> def_blocks(nregs);
    for (BlockId b : cfg.rpo()) {
      const BasicBlock& bb = cfg.block(b);
      for (InstId i = bb.begin; i < bb.end; ++i)
        for (const Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
          if (m->is_def && (def_blocks[m->reg].empty() || def_blocks[m->reg].back() != b))
            def_blocks[m->reg].push_back(b);
    }
    std::vector<RegId> has_phi(cfg.size(), kNoId), in_work(cfg.size(), kNoId);
    std::vector<BlockId> work;
    for (RegId r = 0; r < nregs; ++r) {
      if (def_blocks[r].empty()) continue;
      work.clear();
      for (BlockId b : def_blocks[r]) {
        in_work[b] = r;
        work.push_back(b);
      }
      while (!work.empty()) {
        BlockId b = work.back();
        work.pop_back();
        for (BlockId f : dom.frontier(b)) {
          if (has_phi[f] == r) continue;
          has_phi[f] = r;
          if (!live.live_in(f).test(r)) continue;
          ValueInfo v;
          v.kind = ValueKind::kPhi;
          v.reg = r;
          v.block = f;
          phis[f].push_back(add(v));
          if (in_work[f] != r) {
            in_work[f] = r;
            work.push_back(f);
          }
        }
      }
    }
    // Reserve each phi's incoming slots, one per CFG predecessor.
    for (BlockId b = 0; b < cfg.size(); ++b)
      for (ValueId p : phis[b]) {
        auto& v = vn.values_[p];
        v.phi_begin = static_cast<std::uint32_t>(vn.incoming_.size());
        for (BlockId pred : cfg.block(b).preds)
          vn.incoming_.push_back({pred, kNoId});
        v.phi_end = static_cast<std::uint32_t>(vn.incoming_.size());
      }
  }

  // The value a use under guard (pred, negated) really reads from `v`.
  ValueId refine_for_guard(ValueId v, ValueId pred, bool negated) {
    if (pred == kNoId) return v;
    for (int depth = 0; depth < 8; ++depth) {
      const ValueInfo& g = vn.values_[v];
      if (g.kind != ValueKind::kGuarded || g.pred != pred) return v;
      v = g.negated == negated ? g.fresh : g.prior;
    }
    return v;
  }

  void rename_block(BlockId b, std::vector<RegId>& pushed) {
    for (ValueId p : phis[b]) {
      stacks[vn.values_[p].reg].push_back(p);
      pushed.push_back(vn.values_[p].reg);
    }
    const BasicBlock& bb = cfg.block(b);
    for (InstId i = bb.begin; i < bb.end; ++i) {
      const InstInfo& info = ir.info(i);
      ValueId pred = info.guard == kNoId ? kNoId : current(info.guard);
      vn.guard_[i] = pred;
      for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
        const Mention& mm = ir.mention(m);
        if (!mm.is_def)
          vn.mention_value_[m] = refine_for_guard(current(mm.reg), pred, info.guard_negated);
      }
      bool copy = is_register_copy(ir, i);
      for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
        const Mention& mm = ir.mention(m);
        if (!mm.is_def) continue;
        ValueInfo d;
        d.kind = ValueKind::kDef;
        d.reg = mm.reg;
        d.inst = i;
        d.mention = m;
        d.block = b;
        if (copy) {
          for (std::uint32_t u = info.mention_begin; u < info.mention_end; ++u)
            if (!ir.mention(u).is_def) d.fresh = vn.mention_value_[u];
        }
        ValueId val = add(d);
        if (pred != kNoId) {
          ValueInfo g;
          g.kind = ValueKind::kGuarded;
          g.reg = mm.reg;
          g.inst = i;
          g.mention = m;
          g.block = b;
          g.fresh = val;
          g.prior = current(mm.reg);
          g.pred = pred;
          g.negated = info.guard_negated;
          const ValueInfo& prev = vn.values_[g.prior];
          if (prev.kind == ValueKind::kGuarded && prev.pred == pred && prev.negated != g.negated)
            g.prior = prev.fresh; // `@p x = a; @!p x = b;`: defined on both paths
          val = add(g);
        }
        vn.mention_value_[m] = val;
        stacks[mm.reg].push_back(val);
        pushed.push_back(mm.reg);
      }
    }
    for (BlockId s : bb.succs) {
      const auto& preds = cfg.block(s).preds;
      for (ValueId p : phis[s]) {
        const ValueInfo& pv = vn.values_[p];
        for (std::uint32_t k = 0; k < preds.size(); ++k)
          if (preds[k] == b) vn.incoming_[pv.phi_begin + k].value = current(pv.reg);
      }
    }
  }

  void rename() {
    // Iterative dominator-tree walk; each frame remembers how many pushes to undo.
    struct Frame {
      BlockId b;
      std::uint32_t child;
      std::size_t mark;
    };
    std::vector<RegId> pushed;
    std::vector<Frame> stack;
    rename_block(cfg.entry(), pushed);
    stack.push_back({cfg.entry(), 0, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      const auto& kids = dom.children(f.b);
      if (f.child < kids.size()) {
        BlockId c = kids[f.child++];
        std::size_t mark = pushed.size();
        rename_block(c, pushed);
        stack.push_back({c, 0, mark});
      } else {
        while (pushed.size() > f.mark) {
          stacks[pushed.back()].pop_back();
          pushed.pop_back();
        }
        stack.pop_back();
      }
    }
  }

  // ---- Stack round trips: a value stored to `.local` and loaded back is the same value ----
  //
  // Register allocators spill to the thread's stack and reload (`st.local [%rd1+8], %f3` ...
  // `ld.local %f9, [%rd1+8]`); the reload is a copy of what was stored when the same slot
  // (same address value, same offset, same width) was last written on every path, with no
  // store between that might write it. A forward must-analysis over the CFG: the slots whose
  // content is known, intersected at merges; a store through another address, a generic or
  // vector or guarded store, an atomic or a call forgets everything (they may alias any slot).
  struct LocalSlot {
    ValueId base = kNoId; // address register's value (copies followed); kNoId: a symbol
    std::string_view symbol;
    std::int64_t offset = 0;
    std::uint32_t width = 0;
    ValueId value = kNoId; // what the slot holds
    bool operator==(const LocalSlot&) const = default;
  };

  ValueId copy_root(ValueId v) const {
    for (int hops = 0; v != kNoId && hops < 64; ++hops) {
      const ValueInfo& x = vn.values_[v];
      if (x.kind != ValueKind::kDef || x.fresh == kNoId) break;
      v = x.fresh;
    }
    return v;
  }

  // The raw SSA value read by operand k (element e) of instruction i, kNoId if none.
  ValueId use_value(InstId i, std::uint32_t k, std::uint32_t e) const {
    const InstInfo& info = ir.info(i);
    for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
      const Mention& mm = ir.mention(m);
      if (!mm.is_def && mm.operand == k && mm.element == e) return vn.mention_value_[m];
    }
    return kNoId;
  }

  static std::uint32_t scalar_width(const Instruction& inst) {
    std::uint32_t w = 0;
    for (std::string_view m : inst.modifiers) {
      if (m == "v2" || m == "v4" || m == "v8") return 0;
      if (std::uint32_t s = isa::size_bytes(isa::type_from_spelling(m)); s != 0) w = s;
    }
    return w;
  }

  // The slot an `ld.local`/`st.local` addresses (operand k), or nullopt when it cannot be named.
  std::optional<LocalSlot> slot_of(InstId i, std::uint32_t k) const {
    const Instruction& inst = ir.inst(i);
    if (k >= inst.operands.size() || inst.operands[k].kind != OperandKind::kAddress) return {};
    const Operand& a = inst.operands[k];
    if (a.address_base_is_immediate() || !a.elements().empty()) return {};
    LocalSlot s;
    s.base = copy_root(use_value(i, k, 0));
    if (s.base == kNoId) s.symbol = a.text();
    s.offset = a.address_offset();
    s.width = scalar_width(inst);
    if (s.width == 0) return {};
    return s;
  }

  // A call may write the caller's stack through a pointer it was given; a store or atomic
  // writes it when its space is .local or generic.
  static bool may_write_local(const Instruction& inst) {
    const Opcode op = inst.op;
    if (op == Opcode::kCall) return true;
    if (op != Opcode::kSt && op != Opcode::kAtom && op != Opcode::kRed) return false;
    for (std::string_view m : inst.modifiers)
      if (m == "global" || m.starts_with("shared") || m == "param" || m == "const") return false;
    return true;
  }

  void forward_local_stores() {
    bool any = false;
    for (InstId i = 0; i < ir.size() && !any; ++i)
      any = ir.inst(i).op == Opcode::kLd && ir.inst(i).has_modifier("local");
    if (!any) return;
    const std::uint32_t nb = cfg.size();
    std::vector<std::vector<LocalSlot>> out(nb);
    std::vector<char> seen(nb, 0);
    auto transfer = [&](BlockId b, std::vector<LocalSlot>& st, bool apply) {
      for (InstId i = cfg.block(b).begin; i < cfg.block(b).end; ++i) {
        const Instruction& inst = ir.inst(i);
        const bool local = inst.has_modifier("local") && !inst.has_modifier("volatile");
        if (inst.op == Opcode::kLd && local && apply && ir.info(i).guard == kNoId) {
          std::optional<LocalSlot> s = slot_of(i, 1);
          if (s && inst.operands.size() == 2 && inst.operands[0].kind == OperandKind::kRegister) {
            for (const LocalSlot& have : st)
              if (have.base == s->base && have.symbol == s->symbol && have.offset == s->offset &&
                  have.width == s->width) {
                const InstInfo& info = ir.info(i);
                for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m)
                  if (ir.mention(m).is_def && vn.mention_value_[m] != kNoId &&
                      vn.values_[vn.mention_value_[m]].kind == ValueKind::kDef)
                    vn.values_[vn.mention_value_[m]].fresh = have.value;
                break;
              }
          }
          continue;
        }
        if (!may_write_local(inst)) continue;
        std::optional<LocalSlot> s;
        if (inst.op == Opcode::kSt && local && ir.info(i).guard == kNoId &&
            inst.operands.size() == 2 && inst.operands[1].kind == OperandKind::kRegister)
          s = slot_of(i, 0);
        if (!s) {
          st.clear(); // may write any slot
          continue;
        }
        // Forget the slots this store may overlap: same base and overlapping bytes, or another
        // base (two address values may point at the same slot).
        std::erase_if(st, [&](const LocalSlot& have) {
          if (have.base != s->base || have.symbol != s->symbol) return true;
          return have.offset < s->offset + s->width && s->offset < have.offset + have.width;
        });
        s->value = use_value(i, 1, 0);
        if (s->value != kNoId) st.push_back(*s);
      }
    };
    // What holds on entry to b: the slots every visited predecessor agrees on (one not yet
    // visited is the optimistic top); nothing at the function's entry.
    auto meet_preds = [&](BlockId b) {
      std::vector<LocalSlot> in;
      bool first = true;
      for (BlockId p : cfg.block(b).preds) {
        if (!seen[p]) continue;
        if (first) {
          in = out[p];
          first = false;
        } else {
          std::erase_if(in, [&](const LocalSlot& x) {
            return std::find(out[p].begin(), out[p].end(), x) == out[p].end();
          });
        }
      }
      if (b == cfg.entry()) in.clear();
      return in;
    };
    // Iterate to the fixpoint (sets only shrink after a block's first visit), then rewrite the
    // loads with the final facts.
    for (bool changed = true; changed;) {
      changed = false;
      for (BlockId b : cfg.rpo()) {
        std::vector<LocalSlot> in = meet_preds(b);
        transfer(b, in, false);
        if (!seen[b] || in != out[b]) {
          out[b] = std::move(in);
          seen[b] = 1;
          changed = true;
        }
      }
    }
    for (BlockId b : cfg.rpo()) {
      std::vector<LocalSlot> in = meet_preds(b);
      transfer(b, in, true);
    }
  }

  ValueId find(ValueId v) {
    ValueId root = v;
    while (vn.leader_[root] != root)
      root = vn.leader_[root];
    while (vn.leader_[v] != root) {
      ValueId next = vn.leader_[v];
      vn.leader_[v] = root;
      v = next;
    }
    return root;
  }

  void number_values() {
    const std::uint32_t n = vn.size();
    vn.leader_.resize(n);
    for (ValueId v = 0; v < n; ++v)
      vn.leader_[v] = v;
    for (ValueId v = 0; v < n; ++v) {
      const ValueInfo& x = vn.values_[v];
      if (x.kind == ValueKind::kDef && x.fresh != kNoId) vn.leader_[v] = x.fresh;
    }
    // Trivial phis, to a fixed point (each phi is folded at most once).
    std::vector<ValueId> all_phis;
    for (const auto& ps : phis)
      all_phis.insert(all_phis.end(), ps.begin(), ps.end());
    bool changed = true;
    while (changed) {
      changed = false;
      for (ValueId p : all_phis) {
        if (find(p) != p) continue;
        const ValueInfo& pv = vn.values_[p];
        ValueId same = kNoId;
        bool trivial = true;
        for (std::uint32_t k = pv.phi_begin; k < pv.phi_end && trivial; ++k) {
          ValueId in = vn.incoming_[k].value;
          if (in == kNoId) continue;
          in = find(in);
          if (in == p || in == same) continue;
          if (same != kNoId) trivial = false;
          same = in;
        }
        if (trivial && same != kNoId) {
          vn.leader_[p] = same;
          changed = true;
        }
      }
    }
    for (ValueId v = 0; v < n; ++v)
      find(v);
  }

  // Every (used value, use) pair, in instruction order and then value order: once to count,
  // once to fill the flat use array (one allocation, not one vector per value).
  template <class Emit>
  void for_each_use(Emit&& emit) const {
    for (InstId i = 0; i < ir.size(); ++i) {
      if (!cfg.reachable(cfg.block_of(i))) continue;
      const InstInfo& info = ir.info(i);
      if (vn.guard_[i] != kNoId) emit(vn.guard_[i], ValueUse{i, kNoId, kNoId, true});
      for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
        if (!ir.mention(m).is_def && vn.mention_value_[m] != kNoId)
          emit(vn.mention_value_[m], ValueUse{i, m, kNoId, false});
      }
    }
    for (ValueId v = 0; v < vn.size(); ++v) {
      const ValueInfo& x = vn.values_[v];
      if (x.kind == ValueKind::kPhi) {
        for (std::uint32_t k = x.phi_begin; k < x.phi_end; ++k)
          if (vn.incoming_[k].value != kNoId)
            emit(vn.incoming_[k].value, ValueUse{kNoId, 0, v, false});
      } else if (x.kind == ValueKind::kGuarded) {
        // A guarded write's value keeps its prior alive, and its fresh part (when it is a
        // separate kDef value) is only ever read through it.
        emit(x.prior, ValueUse{kNoId, 0, v, false});
        emit(x.fresh, ValueUse{kNoId, 0, v, false});
      }
    }
  }

  void build_uses() {
    vn.uses_ = FlatLists<ValueUse>::build(vn.size(), [&](auto&& emit) { for_each_use(emit); });
  }
};

ValueNumbering::ValueNumbering(const Cfg& cfg, const DominatorTree& dom, const Liveness& live)
    : cfg_(&cfg) {
  const FunctionIR& ir = cfg.ir();
  SsaBuilder b{*this, cfg, ir, dom, live, {}, {}, {}};
  b.phis.resize(cfg.size());
  b.stacks.resize(ir.num_regs());
  b.undef_of.assign(ir.num_regs(), kNoId);
  mention_value_.assign(ir.num_mentions(), kNoId);
  guard_.assign(ir.size(), kNoId);
  values_.reserve(ir.num_mentions() / 2 + 16);
  b.place_phis();
  b.rename();
  b.forward_local_stores();
  b.number_values();
  b.build_uses();
  values_.shrink_to_fit(); // reserved for the worst case; kept for the function's analysis
}

std::uint32_t ValueNumbering::mention_index(InstId inst, std::uint32_t operand,
                                            std::uint32_t element, bool def) const {
  const InstInfo& info = ir().info(inst);
  for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
    const Mention& mm = ir().mention(m);
    if (mm.operand == operand && mm.element == element && mm.is_def == def) return m;
  }
  return kNoId;
}

ValueId ValueNumbering::value_of(InstId inst, std::uint32_t operand, std::uint32_t element) const {
  std::uint32_t m = mention_index(inst, operand, element, false);
  if (m == kNoId || mention_value_[m] == kNoId) return kNoId;
  return leader_[mention_value_[m]];
}

ValueId ValueNumbering::defined_value(InstId inst, std::uint32_t operand,
                                      std::uint32_t element) const {
  std::uint32_t m = mention_index(inst, operand, element, true);
  if (m == kNoId || mention_value_[m] == kNoId) return kNoId;
  return leader_[mention_value_[m]];
}

InstId ValueNumbering::defining_instruction(ValueId v) const {
  const ValueInfo& x = values_[v];
  return x.kind == ValueKind::kDef || x.kind == ValueKind::kGuarded ? x.inst : kNoId;
}

// a and b hold the same number in every thread: the same value, or the results of the same
// pure computation (or `ld.param` of the same parameter word, which nothing writes) on
// operands that are. Compilers rematerialize such values on one side of a branch (a parameter
// reloaded inside an `if`); value numbering keeps them apart, lanes cannot tell them apart.
// `ld.param` i reads a formal parameter of this .entry: its address is the parameter's name,
// or a register holding it (`mov.b64 %rd, param`, copies followed) plus an offset.
bool ValueNumbering::reads_kernel_parameter(InstId i) const {
  const Function& fn = ir().function();
  const Instruction& in = ir().inst(i);
  if (in.operands.size() != 2 || in.operands[1].kind != OperandKind::kAddress) return false;
  auto is_param = [&](std::string_view name) {
    return std::any_of(fn.params.begin(), fn.params.end(),
                       [&](const VarDecl& d) { return d.name == name; });
  };
  ValueId base = value_of(i, 1, 0);
  if (base == kNoId) return is_param(in.operands[1].text());
  InstId d = defining_instruction(base);
  if (d == kNoId) return false;
  const Instruction& def = ir().inst(d);
  return def.op == Opcode::kMov && def.operands.size() == 2 &&
         def.operands[1].kind == OperandKind::kSymbol && is_param(def.operands[1].text());
}

bool ValueNumbering::same_number(ValueId a, ValueId b, int depth) const {
  const ValueNumbering& vn = *this;
  if (a == kNoId || b == kNoId) return a == b;
  a = vn.leader(a);
  b = vn.leader(b);
  if (a == b) return true;
  if (depth > 6) return false;
  // A phi is that number when every value it merges is (a loop carrying a reloaded parameter
  // around its back edge): a phi met again on the way is assumed to be, as in any induction.
  if (vn.is_phi(a) || vn.is_phi(b)) {
    if (vn.is_phi(b)) std::swap(a, b);
    if (std::find(phis_assumed_.begin(), phis_assumed_.end(), a) != phis_assumed_.end())
      return true;
    phis_assumed_.push_back(a);
    bool same = true;
    for (const PhiIncoming& in : vn.phi_incoming(a))
      if (!same_number(in.value, b, depth + 1)) {
        same = false;
        break;
      }
    phis_assumed_.pop_back();
    return same;
  }
  const ValueInfo& x = vn.info(a);
  const ValueInfo& y = vn.info(b);
  if (x.kind != ValueKind::kDef || y.kind != ValueKind::kDef) return false;
  const Instruction& p = ir().inst(x.inst);
  const Instruction& q = ir().inst(y.inst);
  if (p.op != q.op || p.opcode != q.opcode || p.operands.size() != q.operands.size() ||
      p.modifiers.size() != q.modifiers.size() || p.operands.size() < 2)
    return false;
  for (std::uint32_t k = 0; k < p.modifiers.size(); ++k)
    if (p.modifiers[k] != q.modifiers[k]) return false;
  // A kernel's parameters are read-only; a .func's may be written (they are its arguments'
  // storage), so only an .entry's parameter loads count.
  const bool param_load = p.op == Opcode::kLd && p.has_modifier("param") &&
                          !p.has_modifier("volatile") &&
                          ir().function().kind == FunctionKind::kEntry;
  if (!param_load && !isa::has(p.op, isa::kPure)) return false;
  // The parameter word must be the kernel's own: a call's `retval0` (declared in the call's
  // block) holds that call's result, different after every call.
  if (param_load && !reads_kernel_parameter(x.inst)) return false;
  // One destination, written by the first operand; every source equal.
  if (ir().mention(x.mention).operand != 0 || ir().mention(y.mention).operand != 0) return false;
  for (std::uint32_t k = 1; k < p.operands.size(); ++k) {
    const Operand& o = p.operands[k];
    const Operand& r = q.operands[k];
    if (o.kind != r.kind || o.flags != r.flags) return false;
    switch (o.kind) {
    case OperandKind::kImmInt:
    case OperandKind::kImmFloat:
      if (o.bits != r.bits) return false;
      break;
    case OperandKind::kSpecialReg:
    case OperandKind::kSymbol:
      if (o.text() != r.text() || o.bits != r.bits || o.has_register_index()) return false;
      break;
    case OperandKind::kRegister: // the video selector (`.h0`, `.b1`) is part of the operand
      if (o.bits != r.bits) return false;
      if (!same_number(vn.value_of(x.inst, k), vn.value_of(y.inst, k), depth + 1)) return false;
      break;
    case OperandKind::kAddress: {
      if (o.address_offset() != r.address_offset() || !o.elements().empty() ||
          !r.elements().empty())
        return false;
      ValueId ba = vn.value_of(x.inst, k, 0), bb = vn.value_of(y.inst, k, 0);
      if (ba == kNoId && bb == kNoId ? o.text() != r.text() : !same_number(ba, bb, depth + 1))
        return false;
      break;
    }
    default:
      return false;
    }
  }
  return true;
}

PhiIncomingRange ValueNumbering::phi_incoming(ValueId phi) const {
  const ValueInfo& x = values_[phi];
  if (x.kind != ValueKind::kPhi) return {};
  return {incoming_.data() + x.phi_begin, incoming_.data() + x.phi_end, leader_.data()};
}

PhiIncomingRange ValueNumbering::raw_phi_incoming(ValueId phi) const {
  const ValueInfo& x = values_[phi];
  if (x.kind != ValueKind::kPhi) return {};
  return {incoming_.data() + x.phi_begin, incoming_.data() + x.phi_end, nullptr};
}

ValueNumbering::LoopCarried ValueNumbering::loop_carried(ValueId phi, const LoopInfo& loops) const {
  LoopCarried lc;
  const ValueInfo& x = values_[phi];
  if (x.kind != ValueKind::kPhi || loops.loop_with_header(x.block) == kNoId) return lc;
  for (const PhiIncoming& in : phi_incoming(phi))
    (loops.is_back_edge(in.pred, x.block) ? lc.updated : lc.initial).push_back(in.value);
  return lc;
}

ReachingDefs ValueNumbering::reaching_defs(std::uint32_t m) const {
  ReachingDefs r;
  if (m >= mention_value_.size() || mention_value_[m] == kNoId) return r;
  std::unordered_set<ValueId> seen; // the walk is small; the function may not be
  std::vector<ValueId> work{mention_value_[m]};
  while (!work.empty()) {
    ValueId v = work.back();
    work.pop_back();
    if (v == kNoId || !seen.insert(v).second) continue;
    const ValueInfo& x = values_[v];
    switch (x.kind) {
    case ValueKind::kUndef:
      r.undefined = true;
      break;
    case ValueKind::kParam:
      r.parameter = true;
      break;
    case ValueKind::kDef:
      r.sites.push_back(x.inst);
      break;
    case ValueKind::kGuarded:
      r.sites.push_back(x.inst);
      work.push_back(x.prior);
      break;
    case ValueKind::kPhi:
      for (std::uint32_t k = x.phi_begin; k < x.phi_end; ++k)
        work.push_back(incoming_[k].value);
      break;
    }
  }
  std::sort(r.sites.begin(), r.sites.end());
  r.sites.erase(std::unique(r.sites.begin(), r.sites.end()), r.sites.end());
  return r;
}

void ValueNumbering::print_value(std::ostream& os, ValueId v) const {
  if (v == kNoId) {
    os << "none";
    return;
  }
  const ValueInfo& x = values_[v];
  std::string reg = x.reg == kNoId ? "?" : ir().reg_name(x.reg);
  switch (x.kind) {
  case ValueKind::kUndef:
    os << "undef(" << reg << ')';
    break;
  case ValueKind::kParam:
    os << "param(" << reg << ')';
    break;
  case ValueKind::kDef:
    os << reg << '@' << x.inst;
    break;
  case ValueKind::kGuarded:
    os << "guarded(" << reg << ")@" << x.inst;
    break;
  case ValueKind::kPhi:
    os << "phi(" << reg << ")@B" << x.block;
    break;
  }
}

} // namespace ptxkit::verifier::analysis
