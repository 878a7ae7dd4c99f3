// divergence_cause.cpp: the divergent terminator behind a partial-warp block (a bounded forward
// walk from each divergent block to its reconvergence point), member-mask operands of warp
// collectives, and constant operands through copies.
#include "ptxkit/verifier/analysis/divergence_cause.h"

#include "ptxkit/verifier/analysis/solver.h"
#include "ptxkit/verifier/analysis/thread_index.h"
#include "ptxkit/verifier/analysis/thread_terms.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

namespace ptxkit::verifier::analysis {

namespace {

bool is_thread_index(std::string_view name) {
  return name.starts_with("%tid") || name.starts_with("%laneid") || name.starts_with("%lanemask");
}

} // namespace

bool WarpDivergence::launch_shape_unknown(const FunctionAnalysis& a) {
  const Function& fn = a.ir.function();
  return !fn.reqntid(); // .maxntid bounds the thread count, not the shape
}

WarpDivergence::WarpDivergence(const Module& m, const FunctionAnalysis& a, bool thread_level,
                               bool assume_whole_warps_in_x, const Uniformity* lanes)
    : a_(&a), lanes_(lanes          ? lanes
                     : thread_level ? &a.block_uniformity
                                    : &a.uniformity),
      ranges_(a.provenance(m)), thread_level_(thread_level), divergent_(a.cfg.size(), 0),
      partial_(a.cfg.size(), 0), after_exit_(a.cfg.size(), 0), reconverge_(a.cfg.size(), 0) {
  run(assume_whole_warps_in_x);
}

WarpDivergence::WarpDivergence(const Module& m, const FunctionAnalysis& a, WarpgroupScope)
    : a_(&a), lanes_(&a.block_uniformity), ranges_(a.provenance(m)), thread_level_(false),
      group_log2_(7), divergent_(a.cfg.size(), 0), partial_(a.cfg.size(), 0),
      after_exit_(a.cfg.size(), 0), reconverge_(a.cfg.size(), 0) {
  run(false);
}

void WarpDivergence::run(bool assume_whole_warps_in_x) {
  const FunctionAnalysis& a = *a_;
  const Function& fn = a.ir.function();
  auto req = fn.reqntid();
  auto bound = req; // the shape: .maxntid bounds only the thread count
  const std::uint32_t group = 1u << group_log2_;
  x_multiple_of_32_ =
      !thread_level_ && ((req && (*req)[0] % group == 0) || (assume_whole_warps_in_x && !bound));
  // Warps (warpgroups) are runs of 32 (128) consecutive linear thread ids: tid.x / 32 is the same
  // in a warp when ntid.x is a multiple of 32 or the block is 1-D (assumed when no launch bound
  // says otherwise and the function reads neither %tid.y nor %tid.z: one that does may run
  // with ntid.x < 32, its warps spanning several rows).
  const bool one_d = bound ? ((*bound)[1] == 1 && (*bound)[2] == 1) : !reads_tid_yz(a.ir);
  warp_index_ok_ = !thread_level_ && (x_multiple_of_32_ || one_d);
  users_ = &a.divergence_users();
  if (thread_level_) compute_tid_dependent();
  // Optimistic start (phis uniform when their inputs are), then grow: a phi at a block inside a
  // divergent region is varying (control dependence), which may make more terminators divergent.
  // Each round solves the values to their fixpoint under the previous round's regions; rounds
  // go on until no terminator becomes divergent (divergent_ only grows: at most one round per
  // block).
  std::vector<char> loops_before;
  for (std::uint32_t round = 0;; ++round) {
    bits_stale_ = true; // updated (facts weakened) on first use this round
    loops_before = loop_divergent_;
    compute_loop_divergent();
    solve_uniform(round == 0, loops_before);
    std::vector<char> before = divergent_;
    compute_divergent();
    compute_regions();
    // The round each block became divergent in: explain() follows a merge back to the branch
    // of the earliest round, the one whose condition varies for a reason other than merges.
    divergent_round_.resize(divergent_.size(), kNoId);
    for (BlockId d = 0; d < divergent_.size(); ++d)
      if (divergent_[d] && !before[d]) divergent_round_[d] = round;
    // Nothing new is divergent: the next round would see the same regions and find the same.
    if (divergent_ == before) break;
  }
}

// A loop whose lanes may leave at different iterations: it holds a divergent block d whose
// lanes may not meet again in the same iteration: d's reconvergence point lies outside the loop
// (or is the exit), or the paths from d to it go around the loop's back edge (reach its header).
// A branch that reconverges inside one iteration (an mbarrier wait's spin loop nested in a
// pipeline's k-tile loop, an `if` in the body) keeps the enclosing loop's lanes together.
void WarpDivergence::compute_loop_divergent() {
  const FunctionAnalysis& a = *a_;
  const Cfg& cfg = a.cfg;
  loop_divergent_.assign(a.loops.size(), 0);
  // seen[x] == d + 1: x is in d's region (one stamp array for every d: regions are small,
  // functions may have many blocks).
  std::vector<std::uint32_t> seen(cfg.size(), 0);
  std::vector<BlockId> work;
  for (BlockId d = 0; d < cfg.size(); ++d) {
    if (!divergent_[d] || a.loops.loop_of(d) == kNoId) continue;
    std::uint32_t stop = a.pdom.idom(d);
    work.assign(cfg.block(d).succs.begin(), cfg.block(d).succs.end());
    std::vector<BlockId> region;
    while (!work.empty()) {
      BlockId x = work.back();
      work.pop_back();
      if (x == stop || seen[x] == d + 1) continue;
      seen[x] = d + 1;
      region.push_back(x);
      for (BlockId s : cfg.block(x).succs)
        work.push_back(s);
    }
    for (LoopId l = a.loops.loop_of(d); l != kNoId; l = a.loops.loop(l).parent) {
      if (loop_divergent_[l]) continue;
      bool leaves = stop == kNoId || stop >= cfg.size() || !a.loops.contains(l, stop);
      for (BlockId x : region)
        leaves = leaves || x == a.loops.loop(l).header || !a.loops.contains(l, x);
      if (leaves) loop_divergent_[l] = 1;
    }
  }
}

bool WarpDivergence::kernel_exit_block(BlockId b) const {
  const FunctionAnalysis& a = *a_;
  if (a.ir.function().kind != FunctionKind::kEntry || !a.cfg.block(b).succs.empty()) return false;
  for (InstId i = a.cfg.block(b).begin; i < a.cfg.block(b).end; ++i) {
    const Opcode op = a.ir.inst(i).op;
    if (op != Opcode::kRet && op != Opcode::kExit) return false;
  }
  return true;
}

// The leaders an instruction defines whose facts read its operands: kDef and kGuarded values
// that are their own leaders (a `mov`'s result is its source's value).
template <class F>
void WarpDivergence::for_each_defined_leader(const FunctionAnalysis& a, InstId i, F&& f) {
  const ValueNumbering& vn = a.values;
  const FunctionIR& ir = a.ir;
  const InstInfo& info = ir.info(i);
  auto visit = [&](ValueId d) {
    if (d == kNoId || vn.leader(d) != d || vn.info(d).inst != i) return;
    if (vn.info(d).kind == ValueKind::kDef || vn.info(d).kind == ValueKind::kGuarded) f(d);
  };
  for (std::uint32_t m = info.mention_begin; m < info.mention_end; ++m) {
    if (!ir.mention(m).is_def) continue;
    ValueId d = vn.ssa_def(m);
    visit(d);
    if (d != kNoId && vn.info(d).kind == ValueKind::kGuarded) visit(vn.info(d).fresh);
  }
}

FlatLists<std::uint32_t> WarpDivergence::build_users(const FunctionAnalysis& a) {
  const ValueNumbering& vn = a.values;
  const FunctionIR& ir = a.ir;
  // A value's users are phis and guarded writes (value entries) and instructions (entries
  // tagged kInstructionUser: every leader the instruction defines reads the value). One entry
  // per instruction, not per (defined value, operand) pair: an mma defining 8 registers from 12
  // operands is 12 entries, not 96. Two passes over the same edges (count, then fill) into one
  // flat array grouped by leader.
  auto for_each_edge = [&](auto&& add) {
    for (ValueId v = 0; v < vn.size(); ++v) {
      if (vn.leader(v) != v) continue;
      const ValueInfo& x = vn.info(v);
      if (x.kind == ValueKind::kPhi) {
        for (const PhiIncoming& in : vn.phi_incoming(v))
          add(in.value, v);
      } else if (x.kind == ValueKind::kGuarded) {
        add(x.prior, v);
        add(x.pred, v);
        add(x.fresh, v);
      }
    }
    for (InstId i = 0; i < ir.size(); ++i) {
      bool defines = false;
      for_each_defined_leader(a, i, [&](ValueId) { defines = true; });
      if (!defines) continue;
      vn.for_each_operand_value(i, [&](ValueId u) { add(u, kInstructionUser | i); });
    }
  };
  return FlatLists<std::uint32_t>::build(vn.size(), [&](auto&& emit) {
    for_each_edge([&](ValueId from, std::uint32_t to) {
      if (from != kNoId && to != kNoId) emit(vn.leader(from), to);
    });
  });
}

template <class F>
void WarpDivergence::for_each_user(ValueId leader, F&& f) const {
  for (std::uint32_t e : (*users_)[leader]) {
    if (e & kInstructionUser)
      for_each_defined_leader(*a_, e & ~kInstructionUser, f);
    else
      f(e);
  }
}

// Thread-index dependence, a least fixpoint over the def-use graph: a value read from %tid,
// %laneid or %lanemask, or computed (phis, guarded writes included) from one that is. Only data
// dependence: control dependence is the uniformity analysis' business.
void WarpDivergence::compute_tid_dependent() {
  const ValueNumbering& vn = a_->values;
  const FunctionIR& ir = a_->ir;
  tid_dep_.assign(vn.size(), 0);
  auto dep = [&](ValueId v) { return v != kNoId && tid_dep_[vn.leader(v)] != 0; };
  auto evaluate = [&](ValueId v) {
    const ValueInfo& info = vn.info(v);
    if (info.kind == ValueKind::kPhi) {
      for (const PhiIncoming& in : vn.phi_incoming(v))
        if (dep(in.value)) return true;
      return false;
    }
    if (info.kind != ValueKind::kDef && info.kind != ValueKind::kGuarded) return false;
    const Instruction& di = ir.inst(info.inst);
    // bar.red/barrier.red: the same result in every thread of the CTA.
    if ((di.op == Opcode::kBar || di.op == Opcode::kBarrier) && di.has_modifier("red"))
      return false;
    // A comparison of %tid.x that the declared launch bound decides: the same in every thread.
    if (info.kind == ValueKind::kDef && tid_x_compare_is_constant(ir, vn, info.inst)) return false;
    // A comparison whose thread-dependent terms cancel (thread_terms.h).
    if (info.kind == ValueKind::kDef && thread_terms_cancel(ir, vn, a_->loops, info.inst))
      return false;
    for (std::uint32_t k = writes_first_operand(di) ? 1 : 0; k < di.operands.size(); ++k) {
      const Operand& o = di.operands[k];
      if (o.kind == OperandKind::kSpecialReg && is_thread_index(o.text())) return true;
      if (o.kind == OperandKind::kVector || o.kind == OperandKind::kParenList)
        for (const Operand& e : o.elements())
          if (e.kind == OperandKind::kSpecialReg && is_thread_index(e.text())) return true;
    }
    const InstInfo& ii = ir.info(info.inst);
    for (std::uint32_t m = ii.mention_begin; m < ii.mention_end; ++m)
      if (!ir.mention(m).is_def && dep(vn.ssa_use(m))) return true;
    return info.kind == ValueKind::kGuarded && (dep(info.prior) || dep(info.pred));
  };
  SparseWorklist work(vn.size());
  for (ValueId v = vn.size(); v-- > 0;)
    if (vn.leader(v) == v) work.push(v);
  while (!work.empty()) {
    ValueId v = work.pop();
    if (tid_dep_[v] || !evaluate(v)) continue;
    tid_dep_[v] = 1;
    for_each_user(v, [&](ValueId u) { work.push(u); });
  }
}

// Greatest fixpoint of "the same in every lane (thread)": every value starts uniform and becomes
// varying when its transfer function, reading the current facts of its operands, says so; the
// users of a value that became varying are re-evaluated. Facts only fall, so it terminates, and
// no answer rests on an assumption made while walking a cycle.
void WarpDivergence::solve_uniform(bool first_round, const std::vector<char>& loops_before) {
  const FunctionAnalysis& a = *a_;
  const ValueNumbering& vn = a.values;
  SparseWorklist work(vn.size());
  if (first_round) {
    uniform_.assign(vn.size(), 1);
    for (ValueId v = vn.size(); v-- > 0;)
      if (vn.leader(v) == v) work.push(v);
  } else {
    // A later round only adds divergence (divergent blocks, their regions, divergent loops), so
    // every fact can only fall: start from the last round's facts and re-evaluate what reads a
    // control fact: phis in or closing a region, comparisons (the warp-bit refinement is
    // rebuilt), and the readers of values defined in a loop that became divergent (temporal
    // divergence where they are read outside it).
    for (ValueId v = vn.size(); v-- > 0;) {
      if (vn.leader(v) != v || !uniform_[v]) continue;
      const ValueInfo& x = vn.info(v);
      if (x.kind == ValueKind::kPhi) {
        if (partial_[x.block] || after_exit_[x.block] || reconverge_[x.block]) work.push(v);
      } else if (x.inst != kNoId && a.ir.inst(x.inst).op == Opcode::kSetp) {
        work.push(v);
      }
      if (x.block == kNoId) continue;
      for (LoopId l = a.loops.loop_of(x.block); l != kNoId; l = a.loops.loop(l).parent)
        if (loop_divergent_[l] && (l >= loops_before.size() || !loops_before[l])) {
          for_each_user(v, [&](ValueId u) { work.push(u); });
          break;
        }
    }
  }
  while (!work.empty()) {
    ValueId v = work.pop();
    if (!uniform_[v]) continue;
    bool u = !(thread_level_ && tid_dep_[v]) && (lanes_->is_uniform(v) || compute_warp_uniform(v));
    if (u) continue;
    uniform_[v] = 0;
    for_each_user(v, [&](ValueId x) { work.push(x); });
  }
}

void WarpDivergence::compute_divergent() {
  const FunctionAnalysis& a = *a_;
  const Cfg& cfg = a.cfg;
  for (BlockId d = 0; d < cfg.size(); ++d) {
    if (!cfg.reachable(d)) continue;
    InstId t = cfg.terminator(d);
    ValueId g = t == kNoId ? kNoId : a.values.guard_value(t);
    bool lane_divergent = lanes_->divergent_terminator(d);
    if (!lane_divergent) {
      // Thread level: a branch or exit on a value computed from %tid, even one lane uniformity
      // calls uniform (tid < 32 keeps warps whole but splits the block).
      bool control = t != kNoId && a.ir.info(t).control != ControlKind::kNone;
      divergent_[d] =
          divergent_[d] || (thread_level_ && control && g != kNoId &&
                            cfg.block(d).succs.size() + (cfg.block(d).exits ? 1 : 0) > 1 &&
                            tid_dep_[a.values.leader(g)]);
      continue;
    }
    bool indirect = t != kNoId && a.ir.info(t).control == ControlKind::kIndirect;
    divergent_[d] = divergent_[d] || indirect || g == kNoId ||
                    (!warp_uniform_at(g, d) && (thread_level_ || !bits().guard_uniform(t)));
  }
}

void WarpDivergence::compute_regions() {
  const Cfg& cfg = a_->cfg;
  std::fill(partial_.begin(), partial_.end(), 0);
  std::fill(after_exit_.begin(), after_exit_.end(), 0);
  std::fill(reconverge_.begin(), reconverge_.end(), 0);
  split_edges_.clear();
  std::vector<std::uint32_t> seen(cfg.size(), 0); // d + 1: x is in d's region
  std::vector<BlockId> work, region;
  for (BlockId d = 0; d < cfg.size(); ++d) {
    if (!divergent_[d]) continue;
    std::uint32_t stop = a_->pdom.idom(d);
    // A branch straight to a bare `ret`/`exit` of a kernel that is also where the sides meet
    // (`if (i >= n) return;` compiled as a branch to the function's one return block): the
    // lanes that took it have left.
    const auto& succs = cfg.block(d).succs;
    bool never =
        stop == kNoId || stop >= cfg.size() ||
        (kernel_exit_block(stop) && std::find(succs.begin(), succs.end(), stop) != succs.end());
    if (!never) reconverge_[stop] = 1;
    work.assign(cfg.block(d).succs.begin(), cfg.block(d).succs.end());
    region.assign(1, d);
    while (!work.empty()) {
      BlockId x = work.back();
      work.pop_back();
      if (x == stop || seen[x] == d + 1) continue;
      seen[x] = d + 1;
      region.push_back(x);
      (never ? after_exit_ : partial_)[x] = 1;
      for (BlockId s : cfg.block(x).succs)
        work.push_back(s);
    }
    // The edges lanes split at d may arrive over, into a block of the region or where it ends.
    for (BlockId x : region)
      for (BlockId s : cfg.block(x).succs)
        if ((s == stop && !never) || (s < cfg.size() && seen[s] == d + 1))
          split_edges_.push_back({s, d, x});
  }
  sort_split_edges(split_edges_);
}

bool WarpDivergence::warp_uniform_at(ValueId v, BlockId use_block) const {
  const FunctionAnalysis& a = *a_;
  if (v == kNoId) return true;
  // Temporal divergence: lanes that left a loop with a divergent terminator at different
  // iterations read different instances of a value defined in it.
  BlockId def = a.values.info(a.values.leader(v)).block;
  if (def != kNoId && def != use_block && use_block != kNoId)
    for (LoopId l = a.loops.loop_of(def); l != kNoId; l = a.loops.loop(l).parent)
      if (loop_divergent_[l] && !a.loops.contains(l, use_block)) return false;
  return warp_uniform(v);
}

bool WarpDivergence::warp_uniform(ValueId v) const {
  if (v == kNoId) return true;
  ValueId l = a_->values.leader(v);
  // Thread level: lane uniformity may count warp-level functions of tid (tid < 32) as uniform;
  // for a CTA barrier every dependence on the thread index is divergence.
  if (thread_level_ && tid_dep_[l]) return false;
  return lanes_->is_uniform(v) || uniform_[l] != 0;
}

bool WarpDivergence::guard_uniform(InstId inst) const {
  ValueId g = a_->values.guard_value(inst);
  return g == kNoId || warp_uniform_at(g, a_->cfg.block_of(inst)) ||
         (!thread_level_ && bits().guard_uniform(inst));
}

bool WarpDivergence::operand_uniform(InstId i, std::uint32_t k) const {
  const FunctionAnalysis& a = *a_;
  const Operand& o = a.ir.inst(i).operands[k];
  switch (o.kind) {
  case OperandKind::kImmInt:
  case OperandKind::kImmFloat:
    return true;
  case OperandKind::kSymbol: // `arr[%r1]` is as uniform as its index register
    return !o.has_register_index() ||
           warp_uniform_at(a.values.value_of(i, k, 1), a.cfg.block_of(i));
  case OperandKind::kSpecialReg:
    return Uniformity::special_register_uniform(o.text(), lanes_->scope());
  case OperandKind::kRegister:
    return warp_uniform_at(a.values.value_of(i, k), a.cfg.block_of(i));
  default:
    return false;
  }
}

bool WarpDivergence::plain_load_of_shared_memory(InstId d) const {
  const Instruction& di = a_->ir.inst(d);
  for (std::string_view m : {"volatile", "relaxed", "acquire", "mmio", "local", "param", "const"})
    if (di.has_modifier(m)) return false;
  for (std::string_view m : di.modifiers)
    if (m == "global" || m.starts_with("shared")) return true;
  // Generic: where the address may point.
  AbsValue base = ranges_.operand_value(d, 1);
  if (base.kind == AbsValue::Kind::kAddr)
    return base.space == AddrSpace::kGlobal || base.space == AddrSpace::kShared;
  // Not traced to a window (a pointer parameter, a loaded pointer): in an .entry it cannot be
  // the thread's stack (cvta.local results are traced, and the host passes no local address).
  return base.kind == AbsValue::Kind::kInt && a_->ir.function().kind == FunctionKind::kEntry;
}

bool WarpDivergence::compute_warp_uniform(ValueId v) const {
  const FunctionAnalysis& a = *a_;
  const ValueInfo& info = a.values.info(v);
  if (info.kind == ValueKind::kPhi) {
    // A real merge inside a divergent region depends on which way each lane went. So does one
    // at the reconvergence point: lanes arrive from different sides. Unless every edge the lanes
    // of one split may arrive over carries the same value (a flag updated before an
    // elect-one block and merged with a path that skipped the block's whole iteration).
    if ((partial_[info.block] || after_exit_[info.block] || reconverge_[info.block]) &&
        merges_split_lanes(a.values, split_edges_, v))
      return false;
    for (const PhiIncoming& in : a.values.phi_incoming(v))
      if (in.value != kNoId && !warp_uniform_at(in.value, info.block)) return false;
    return true;
  }
  // A guarded write under a predicate the same in every lane: all lanes write or none do.
  if (info.kind == ValueKind::kGuarded) {
    const BlockId b = a.cfg.block_of(info.inst);
    return warp_uniform_at(info.pred, b) && warp_uniform_at(info.fresh, b) &&
           warp_uniform_at(info.prior, b);
  }
  if (info.kind != ValueKind::kDef) return false;
  InstId d = a.values.info(v).inst;
  const Instruction& di = a.ir.inst(d);
  const Opcode op = di.op;
  const auto n = static_cast<std::uint32_t>(di.operands.size());
  // tid.x (see the constructor) or the linear thread index (always): its warp-boundary functions
  // are the same in every lane of a warp.
  auto warp_index_source = [&](ValueId x) {
    return x != kNoId && ((warp_index_ok_ && is_tid_x(a.ir, a.values, x)) ||
                          (!thread_level_ && is_linear_tid(a.ir, a.values, x)));
  };
  // tid.x / 32m, tid.x >> k (k >= 5), tid.x & ~31: the warp index.
  if (n == 3 && (op == Opcode::kShr || op == Opcode::kDiv || op == Opcode::kAnd) &&
      di.operands[2].kind == OperandKind::kImmInt &&
      di.operands[1].kind == OperandKind::kRegister) {
    std::int64_t k = di.operands[2].int_value();
    const std::int64_t group = std::int64_t{1} << group_log2_;
    bool warp_index = op == Opcode::kShr   ? k >= static_cast<std::int64_t>(group_log2_)
                      : op == Opcode::kDiv ? (k > 0 && k % group == 0)
                                           : (k & (group - 1)) == 0; // tid & ~31
    ValueId x = a.values.value_of(d, 1);
    if (warp_index && warp_index_source(x)) return true;
  }
  // tid.x (+ k) compared with a constant on warp boundaries (thread_index.h).
  if (!thread_level_ && !warpgroup() && warp_index_ok_ && op == Opcode::kSetp &&
      tid_x_compare_is_warp_uniform(a.ir, a.values, d))
    return true;
  // tid.x < 32m (and the other comparisons on a warp boundary): whole warps on each side.
  if (op == Opcode::kSetp && n == 3 && di.modifiers.size() == 2) {
    std::string_view cmp = di.modifiers[0];
    for (std::uint32_t side = 1; side <= 2; ++side) {
      const Operand& c = di.operands[3 - side];
      ValueId x =
          di.operands[side].kind == OperandKind::kRegister ? a.values.value_of(d, side) : kNoId;
      if (c.kind != OperandKind::kImmInt || !warp_index_source(x)) continue;
      std::int64_t k = c.int_value();
      bool strict = cmp == "lt" || cmp == "ge" || cmp == "lo" || cmp == "hs";
      bool loose = cmp == "le" || cmp == "gt" || cmp == "ls" || cmp == "hi";
      if (side == 2) std::swap(strict, loose); // C < x is x > C
      const std::int64_t group = std::int64_t{1} << group_log2_;
      if ((strict && k % group == 0) || (loose && (k + 1) % group == 0)) return true;
    }
  }
  if (x_multiple_of_32_ && (op == Opcode::kMov || op == Opcode::kCvt) && n == 2 &&
      di.operands[1].kind == OperandKind::kSpecialReg &&
      (di.operands[1].text() == "%tid.y" || di.operands[1].text() == "%tid.z"))
    return true;
  // A shared load from an address the same for every thread (a symbol, or a uniform register):
  // in a race-free kernel nobody writes that word in the barrier phase in which every thread
  // executing the load reads it (the broadcast of a value stored before a barrier).
  // The same holds for global memory, and for a generic address that cannot be the thread's own
  // stack: an .entry's generic pointers come from its parameters or from cvta of a global or
  // shared window; a .func's may be a caller's .local array (per-thread memory at the same
  // address). Loads that synchronize (volatile, relaxed, acquire: a flag polled while another
  // thread sets it) are excluded.
  if (op == Opcode::kLd && n == 2 && di.operands[1].kind == OperandKind::kAddress &&
      !di.operands[1].address_base_is_immediate() && plain_load_of_shared_memory(d)) {
    ValueId base = a.values.value_of(d, 1, 0);
    if (base == kNoId || warp_uniform_at(base, a.cfg.block_of(d))) return true;
  }
  // shfl.sync.idx from one lane (a uniform source lane, no segment mask, the lane within the
  // clamp): every lane receives the same value (CUTLASS broadcasts its warp-group role this way).
  // Here the operands' facts are this analysis' own, in which a constant defined in a loop whose
  // lanes stay together is no lane-varying value.
  // A shuffle of a value the same in every lane (thread) returns it, whatever lane each reads.
  // (Not its predicate result: whether the lane read was in range differs for up/down/bfly.)
  const bool shfl_value = op == Opcode::kShfl && a.ir.mention(info.mention).element == 0;
  if (shfl_value && n >= 2 && operand_uniform(d, 1)) return true;
  if (!thread_level_ && !warpgroup() && op == Opcode::kShfl && di.has_modifier("idx") && n >= 4 &&
      operand_uniform(d, 2) && (n < 5 || operand_uniform(d, 4))) {
    std::optional<std::int64_t> c = constant_operand(a, d, 3);
    std::optional<std::int64_t> lane = constant_operand(a, d, 2);
    if (c && ((*c >> 8) & 31) == 0 && ((*c & 31) == 31 || (lane && (*lane & 31) <= (*c & 31))))
      return true;
  }
  if (op == Opcode::kSetp && uniform_trip_count(d)) return true;
  // x < y where x's bits from k up are the same in every lane and y is uniform with its low k
  // bits zero (s = uniform*4 + (lane >> 3) < 4m): see warp_bits.h.
  if (!thread_level_ && op == Opcode::kSetp && bits().compare_uniform(d)) return true;
  // clusterlaunchcontrol.query_cancel decodes the response it is given (the cluster launch
  // control's answer, read from shared memory): a pure function of its operand.
  const bool decode = op == Opcode::kClusterlaunchcontrol && di.has_modifier("query_cancel");
  if (!decode && !isa::has(op, isa::kPure)) return false;
  for (std::uint32_t k = 1; k < n; ++k)
    if (!operand_uniform(d, k)) return false;
  return n >= 2;
}

bool WarpDivergence::uniform_trip_count(InstId s) const {
  const FunctionAnalysis& a = *a_;
  const ValueNumbering& vn = a.values;
  const Instruction& si = a.ir.inst(s);
  if (si.operands.size() != 3 || si.modifiers.size() != 2 ||
      si.operands[2].kind != OperandKind::kImmInt || si.operands[1].kind != OperandKind::kRegister)
    return false;
  std::string_view cmp = si.modifiers[0];
  std::int64_t c = si.operands[2].int_value();
  if (cmp == "le" || cmp == "ls")
    ++c;
  else if (cmp != "lt" && cmp != "lo")
    return false;
  ValueId x = vn.value_of(s, 1);
  if (x == kNoId || !vn.is_phi(x)) return false;
  auto lc = vn.loop_carried(x, a.loops);
  if (lc.initial.empty() || lc.updated.size() != 1) return false;
  // The update: x + step with a positive constant step, made by every lane (not a guarded write).
  if (vn.info(lc.updated[0]).kind != ValueKind::kDef) return false;
  InstId u = vn.defining_instruction(lc.updated[0]);
  if (u == kNoId) return false;
  const Instruction& ui = a.ir.inst(u);
  if (ui.op != Opcode::kAdd || ui.operands.size() != 3 ||
      ui.operands[2].kind != OperandKind::kImmInt || vn.value_of(u, 1) != x)
    return false;
  std::int64_t step = ui.operands[2].int_value();
  if (step <= 0 || step > std::numeric_limits<std::int32_t>::max()) return false;
  AbsValue start;
  for (ValueId i : lc.initial) {
    AbsValue v = ranges_.value(i);
    if (v.kind != AbsValue::Kind::kInt || !v.has_range) return false;
    start = start.kind == AbsValue::Kind::kTop ? v : start;
    start.lo = std::min(start.lo, v.lo);
    start.hi = std::max(start.hi, v.hi);
  }
  // Counters that stay within [0, 2^31) in every lane: the signed and the unsigned comparison
  // agree, and x + step cannot wrap past the bound.
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (start.lo < 0 || start.hi > kMax || c > kMax - step) return false;
  auto trips = [&](std::int64_t x0) { return x0 >= c ? 0 : (c - x0 + step - 1) / step; };
  return trips(start.lo) == trips(start.hi);
}

const WarpBits& WarpDivergence::bits() const {
  if (!bits_ || bits_stale_) {
    // Phis inside a divergent region, or at its reconvergence point, may merge lanes that came
    // over different edges.
    merge_varying_.assign(partial_.size(), 0);
    for (BlockId b = 0; b < partial_.size(); ++b)
      merge_varying_[b] = partial_[b] || after_exit_[b] || reconverge_[b];
    WarpBitsInput in;
    in.divergent = &divergent_;
    in.merge_varying = &merge_varying_;
    in.tid_x_warp_aligned = warp_index_ok_;
    in.ntid_x_multiple_of_32 = x_multiple_of_32_;
    in.group_log2 = group_log2_;
    in.lanes = lanes_;
    // Rounds only add divergence: a later round's facts are the last round's, weakened.
    if (bits_)
      bits_->update(in);
    else
      bits_ = std::make_unique<WarpBits>(*a_, in);
    bits_stale_ = false;
  }
  return *bits_;
}

InstId WarpDivergence::cause_except(BlockId b, BlockId except, BlockId only) const {
  const FunctionAnalysis& a = *a_;
  const Cfg& cfg = a.cfg;
  BlockId best = kNoId;
  std::vector<std::uint32_t> seen(cfg.size(), kNoId);
  std::vector<BlockId> work;
  for (BlockId d = 0; d < cfg.size(); ++d) {
    if (!divergent_[d] || d == except || (only != kNoId && d != only)) continue;
    if (best != kNoId && cfg.rpo_index(d) <= cfg.rpo_index(best)) continue;
    std::uint32_t stop = a.pdom.idom(d); // cfg.size() (virtual exit) or kNoId: walk everything
    work.clear();
    for (BlockId s : cfg.block(d).succs)
      work.push_back(s);
    bool found = false;
    while (!work.empty() && !found) {
      BlockId x = work.back();
      work.pop_back();
      if (x == stop || seen[x] == d) continue;
      seen[x] = d;
      if (x == b) found = true;
      for (BlockId s : cfg.block(x).succs)
        work.push_back(s);
    }
    // A guarded exit in d itself: the instructions after it in the fall-through block count.
    if (found) best = d;
  }
  return best == kNoId ? kNoId : cfg.terminator(best);
}

namespace {

// Why the result of `inst` differs between lanes when none of its register operands does.
std::string root_reason(const Instruction& inst, bool thread_level) {
  for (const Operand& o : inst.operands)
    if (o.kind == OperandKind::kSpecialReg &&
        !Uniformity::special_register_uniform(o.text(), thread_level ? UniformityScope::kBlock
                                                                     : UniformityScope::kWarp))
      return "reads " + std::string(o.text()) + ", which differs between lanes";
  const Opcode op = inst.op;
  if (op == Opcode::kLd && inst.has_modifier("local"))
    return "a load from per-thread .local memory";
  if (op == Opcode::kLd && inst.has_modifier("param"))
    return "a call's return value or a .func parameter: per-lane";
  if (op == Opcode::kLd || op == Opcode::kLdu)
    return "a load from memory that the kernel also writes: lanes may read different values";
  if (op == Opcode::kAtom) return "an atomic's result: different in every lane";
  if (op == Opcode::kShfl) return "a shuffle: each lane receives another lane's value";
  if (op == Opcode::kMbarrier) return "what this thread observed polling an mbarrier";
  if (thread_level && (op == Opcode::kVote || op == Opcode::kRedux || op == Opcode::kActivemask ||
                       op == Opcode::kElect || op == Opcode::kMatch))
    return "a warp-level result: it differs between the warps of the block";
  return "the result of " + inst.full_opcode() + " differs between lanes";
}

} // namespace

std::vector<WarpDivergence::VaryingStep> WarpDivergence::explain(ValueId v, BlockId use_block,
                                                                 std::size_t max_steps) const {
  const FunctionAnalysis& a = *a_;
  const ValueNumbering& vn = a.values;
  std::vector<char> seen(vn.size(), 0);
  std::vector<InstId> branches; // divergent terminators on the trail
  // The branch whose condition v is (when it is one) is where the trail starts, not a cause.
  if (use_block != kNoId && divergent_[use_block]) branches.push_back(a.cfg.terminator(use_block));
  auto branch_seen = [&](InstId t) {
    return std::find(branches.begin(), branches.end(), t) != branches.end();
  };
  std::size_t budget = 4096; // values visited: the search is a depth-first walk over the trail
  // Depth-first search for where v's difference between lanes starts; `steps` gets the trail's
  // notable points (merges, loops, the root) in order, nearest first, when one is found.
  std::vector<VaryingStep> steps;
  std::function<bool(ValueId, BlockId, int)> walk = [&](ValueId x, BlockId at_use,
                                                        int depth) -> bool {
    if (x == kNoId || depth > 48 || budget == 0 || warp_uniform_at(x, at_use)) return false;
    --budget;
    ValueId l = vn.leader(x);
    if (seen[l]) return false;
    seen[l] = 1;
    const ValueInfo& info = vn.info(l);
    auto emit = [&](InstId i, std::string why) {
      if (i != kNoId) steps.insert(steps.begin(), {i, std::move(why)});
    };
    // Temporal divergence: defined in a loop whose lanes leave at different iterations.
    if (warp_uniform(x) && info.block != kNoId) {
      for (LoopId lp = a.loops.loop_of(info.block); lp != kNoId; lp = a.loops.loop(lp).parent) {
        if (!loop_divergent_[lp] || a.loops.contains(lp, at_use)) continue;
        for (BlockId d : a.loops.loop(lp).blocks) {
          InstId t = divergent_[d] ? a.cfg.terminator(d) : kNoId;
          if (t == kNoId || branch_seen(t)) continue;
          branches.push_back(t);
          bool deeper = walk(vn.guard_value(t), d, depth + 1);
          emit(t, "the loop's lanes part here");
          emit(vn.defining_instruction(l), "defined in a loop that lanes leave at different "
                                           "iterations: lanes read different iterations' values");
          (void)deeper;
          return true;
        }
      }
      return false;
    }
    BlockId at = info.block;
    if (info.kind == ValueKind::kPhi) {
      for (const PhiIncoming& in : vn.phi_incoming(l))
        if (in.value != kNoId && walk(in.value, at, depth + 1)) return true;
      // No varying incoming explains it: the merge does. The divergent branch whose sides meet
      // here (inside its region, or at its reconvergence point), of the earliest round.
      InstId t = kNoId;
      std::uint32_t best_round = kNoId;
      for (BlockId d = 0; d < a.cfg.size(); ++d) {
        if (!divergent_[d] || divergent_round_[d] >= best_round) continue;
        InstId term = a.cfg.terminator(d);
        if (term == kNoId || branch_seen(term)) continue;
        if (a.pdom.idom(d) == at || cause_except(at, kNoId, d) != kNoId) {
          t = term;
          best_round = divergent_round_[d];
        }
      }
      if (t == kNoId) return false;
      branches.push_back(t);
      walk(vn.guard_value(t), a.cfg.block_of(t), depth + 1);
      emit(t, "values merge after this lane-varying branch: lanes arrive with different ones");
      return true;
    }
    if (info.kind == ValueKind::kGuarded) {
      for (ValueId y : {info.pred, info.fresh, info.prior})
        if (y != kNoId && walk(y, at, depth + 1)) return true;
      return false;
    }
    if (info.kind == ValueKind::kDef) {
      const InstInfo& ii = a.ir.info(info.inst);
      bool varying_operand = false;
      for (std::uint32_t m = ii.mention_begin; m < ii.mention_end; ++m) {
        ValueId u = vn.ssa_use(m);
        if (a.ir.mention(m).is_def || u == kNoId || warp_uniform_at(u, at)) continue;
        varying_operand = true;
        if (walk(u, at, depth + 1)) return true;
      }
      if (varying_operand) return false; // explained elsewhere on a cycle: not a root
      emit(info.inst, root_reason(a.ir.inst(info.inst), thread_level_));
      return true;
    }
    return false; // a .func's register parameter: the caller's per-lane argument
  };
  walk(v, use_block, 0);
  if (steps.size() > max_steps) steps.resize(max_steps);
  return steps;
}

std::uint32_t member_mask_operand(const Instruction& inst) {
  const auto n = static_cast<std::uint32_t>(inst.operands.size());
  if (n == 0 || !inst.has_modifier("sync")) return kNoId;
  const Opcode op = inst.op;
  if (op == Opcode::kShfl || op == Opcode::kVote || op == Opcode::kMatch || op == Opcode::kRedux)
    return n - 1;
  if (op == Opcode::kBar && inst.has_modifier("warp")) return 0;
  return kNoId;
}

std::optional<std::int64_t> constant_operand(const FunctionAnalysis& a, InstId i,
                                             std::uint32_t operand) {
  const Instruction& inst = a.ir.inst(i);
  if (operand >= inst.operands.size()) return std::nullopt;
  const Operand& o = inst.operands[operand];
  if (o.kind == OperandKind::kImmInt) return o.int_value();
  if (o.kind != OperandKind::kRegister) return std::nullopt;
  ValueId v = a.values.value_of(i, operand);
  if (v == kNoId) return std::nullopt;
  InstId d = a.values.defining_instruction(v);
  if (d == kNoId || a.values.info(v).kind != ValueKind::kDef) return std::nullopt;
  const Instruction& di = a.ir.inst(d);
  if (di.op == Opcode::kMov && di.operands.size() == 2 &&
      di.operands[1].kind == OperandKind::kImmInt)
    return di.operands[1].int_value();
  return std::nullopt;
}

} // namespace ptxkit::verifier::analysis
