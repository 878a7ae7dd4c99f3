// barrier-divergence.cpp: rule `barrier-divergence`: a barrier or other `.aligned` collective that
// only part of a warp can reach.
//
// What it proves: every aligned collective in reachable code — `bar.sync`/`bar.arrive`/`bar.red`
// (always aligned), `barrier.*.aligned` (cta and cluster), and any `.aligned` warp-wide operation
// (`mma.sync.aligned`, `wgmma.*.sync.aligned`, `wmma.*.sync.aligned`, `ldmatrix`/`stmatrix`/
// `movmatrix .sync.aligned`, `tcgen05.*.sync.aligned`, ...) — lies in a block that every lane of a
// warp which entered the function reaches together: not in a partial-warp region of a lane-varying
// branch (before the branch reconverges at its immediate post-dominator), and not after a
// lane-varying `ret`/`exit` (lanes that left never arrive). `.aligned` requires every thread of
// the warp to execute the same instruction; a barrier some threads skip hangs or is undefined.
// Non-`.aligned` `barrier.sync`/`barrier.arrive`/`barrier.red` (which allow divergent arrival) are
// reported only after a lane-varying exit: there a lane never arrives at all.
//
// Assumptions and limits: divergence is lane uniformity (uniformity.h): branches on %ctaid,
// parameters, constants, uniform loads and loops with uniform trip counts are uniform, so
// nvcc/CUB early exits (`if (blockIdx.x * tile >= n) return;`) are not findings. It is a
// warp-level analysis: a branch that is uniform within each warp but differs across warps
// (%warpid, `tid / 32` is varying anyway) is not reported for CTA barriers. `.func` bodies are
// analysed as if entered by a full warp. Severity: error; warning in debug builds (`.target
// sm_XX, debug`), whose .local round trips make every value lane-varying.
//
// Replay: an error carries two threads the interpreter replayed (divergence_replay_p.h,
// interp/replay_split.h), one executing the barrier and one exiting or leaving for code that
// cannot reach it first; where the replay cannot show such a pair (a loaded or float value, a
// call) the finding is a warning naming what it could not decide.
//
// How: classifies aligned collectives and checks their blocks against the uniformity analysis'
// partial-warp and after-divergent-exit facts, naming the divergent terminator responsible.
#include "divergence_replay_p.h"
#include "divergence_report_p.h"
#include "ptxkit/verifier/analysis/divergence_cause.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>
#include <optional>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

enum class Collective { kNone, kAligned, kUnaligned };

Collective classify(const Instruction& inst) {
  if (inst.op == Opcode::kBar) {
    if (inst.has_modifier("warp")) return Collective::kNone; // bar.warp.sync: a member mask
    return Collective::kAligned;                             // bar.sync/arrive/red: aligned
  }
  if (inst.has_modifier("aligned")) return Collective::kAligned;
  if (inst.op == Opcode::kBarrier) {
    for (std::string_view m : {"sync", "arrive", "red", "wait"})
      if (inst.has_modifier(m)) return Collective::kUnaligned;
  }
  return Collective::kNone;
}

// Blocks from which block `b` can be reached (`backward`), or that b reaches (b included).
std::vector<char> connected(const Cfg& cfg, BlockId b, bool backward) {
  std::vector<char> seen(cfg.size(), 0);
  std::vector<BlockId> work{b};
  seen[b] = 1;
  while (!work.empty()) {
    BlockId x = work.back();
    work.pop_back();
    for (BlockId n : backward ? cfg.block(x).preds : cfg.block(x).succs)
      if (!seen[n]) seen[n] = 1, work.push_back(n);
  }
  return seen;
}

// The constant barrier id of bar/barrier instruction i (operand 1 of `.red`, else operand 0), or
// nullopt when it is not a constant.
std::optional<std::int64_t> barrier_id(const FunctionAnalysis& a, InstId i) {
  return constant_operand(a, i, a.ir.inst(i).has_modifier("red") ? 1 : 0);
}

// Instruction `i` may arrive at the barrier resource that `at` uses (both bar/barrier; the same
// barrier id, or an id that is not a constant).
bool may_share_barrier(const FunctionAnalysis& a, InstId i, InstId at) {
  const Instruction& inst = a.ir.inst(i);
  if (inst.op != Opcode::kBar && inst.op != Opcode::kBarrier) return false;
  if (inst.has_modifier("warp")) return false; // bar.warp.sync: a member mask, no resource
  auto id = barrier_id(a, i), at_id = barrier_id(a, at);
  return !id || !at_id || *id == *at_id;
}

// The threads that do not arrive at `barrier` (in block b) only exit. Where a divergent
// terminator from which b can be reached sends threads to a block from which it cannot, those
// threads give up on b: every block they can run from there holds no instruction that may
// arrive at the same barrier resource (and no call) and
// ends the thread (`exit`, or `ret` of an .entry); and where that is code the threads past the
// barrier run too, it does nothing but leave (`if (tid < 32) __syncthreads(); work();` lets
// the threads that skipped run the work the barrier was to order: no exit of that kind). And
// the terminator that splits the threads before b sends some of them where b cannot be reached
// (or is a guarded exit): where every side can reach b, the threads come back to it later.
bool skippers_only_exit(const FunctionAnalysis& a, const WarpDivergence& div, InstId barrier) {
  const BlockId b = a.cfg.block_of(barrier);
  const Cfg& cfg = a.cfg;
  const bool entry = a.ir.function().kind == FunctionKind::kEntry;
  const std::vector<char> reach = connected(cfg, b, /*backward=*/true);
  const std::vector<char> after = connected(cfg, b, /*backward=*/false);
  const InstId cause = div.cause(b);
  if (cause == kNoId) return false;
  // The split is between threads that can still arrive and threads that never can: where every
  // side can reach b, the threads on the other side come back to it (another pass of a loop).
  bool a_side_gives_up = false;
  for (BlockId s : cfg.block(cfg.block_of(cause)).succs)
    a_side_gives_up = a_side_gives_up || !reach[s];
  if (!a_side_gives_up && a.ir.inst(cause).op != Opcode::kRet &&
      a.ir.inst(cause).op != Opcode::kExit)
    return false;
  std::vector<char> seen(cfg.size(), 0);
  std::vector<BlockId> work;
  // A terminator in b's own block comes after the barrier: it splits threads that skip b only
  // when b is in a loop (they leave before its next pass).
  bool b_in_loop = false;
  for (BlockId s : cfg.block(b).succs)
    b_in_loop = b_in_loop || reach[s];
  for (BlockId d = 0; d < cfg.size(); ++d) {
    if (!cfg.reachable(d) || !reach[d] || !div.divergent(d)) continue;
    if (d == b && !b_in_loop) continue;
    for (BlockId s : cfg.block(d).succs)
      if (!reach[s] && !seen[s]) seen[s] = 1, work.push_back(s);
  }
  while (!work.empty()) {
    BlockId x = work.back();
    work.pop_back();
    for (InstId i = cfg.block(x).begin; i < cfg.block(x).end; ++i) {
      const Instruction& inst = a.ir.inst(i);
      if (may_share_barrier(a, i, barrier) || inst.op == Opcode::kCall) return false;
      if (inst.op == Opcode::kRet && !entry) return false; // back to a caller, not an exit
      const bool leaves =
          inst.op == Opcode::kRet || inst.op == Opcode::kExit || inst.op == Opcode::kBra;
      if (after[x] && !leaves) return false;
    }
    for (BlockId s : cfg.block(x).succs) // none of them reaches b either
      if (!seen[s]) seen[s] = 1, work.push_back(s);
  }
  return true;
}

// The CTA-wide barrier at `i` (bar.sync/barrier.sync without a thread count) and its constant
// barrier id, or nullopt.
std::optional<std::int64_t> cta_barrier_id(const FunctionAnalysis& a, InstId i) {
  const Instruction& inst = a.ir.inst(i);
  if (inst.op != Opcode::kBar && inst.op != Opcode::kBarrier) return std::nullopt;
  if (inst.has_modifier("warp") || inst.has_modifier("arrive")) return std::nullopt;
  if (inst.operands.size() >= (inst.has_modifier("red") ? 4u : 2u)) return std::nullopt; // count
  return barrier_id(a, i);
}

// Warps that go different ways at the thread-divergent terminator of block d still meet at every
// CTA barrier when each way arrives at the same barriers equally often before the ways meet
// again (nvcc duplicates `if (threadIdx.y == 0) {...} __syncthreads();` into both sides): every
// path from d to its reconvergence point P = ipdom(d) passes the same number of CTA barriers,
// all with one constant id, with no loop in between. Other barriers (a thread count, a
// non-constant id), calls and exits in the region: not matched.
class MatchedBarrierRegions {
public:
  explicit MatchedBarrierRegions(const FunctionAnalysis& a) : a_(&a), memo_(a.cfg.size(), 0) {}
  bool matched(BlockId d) {
    if (memo_[d] == 0) memo_[d] = compute(d) ? 1 : 2;
    return memo_[d] == 1;
  }
  // b lies between d and its reconvergence point.
  bool in_region(BlockId d, BlockId b) const {
    const std::uint32_t stop = a_->pdom.idom(d);
    std::vector<char> seen(a_->cfg.size(), 0);
    std::vector<BlockId> work(a_->cfg.block(d).succs.begin(), a_->cfg.block(d).succs.end());
    while (!work.empty()) {
      BlockId x = work.back();
      work.pop_back();
      if (x == stop || seen[x]) continue;
      if (x == b) return true;
      seen[x] = 1;
      for (BlockId s : a_->cfg.block(x).succs)
        work.push_back(s);
    }
    return false;
  }

private:
  static constexpr std::int64_t kNone = -1;
  bool compute(BlockId d) {
    const Cfg& cfg = a_->cfg;
    const std::uint32_t stop = a_->pdom.idom(d);
    if (stop == kNoId || stop >= cfg.size()) return false; // the ways never meet again
    // counts[x]: the number of barriers every path from x to `stop` passes (kNone: unknown yet);
    // depth-first with an on-stack mark, so a loop in the region fails.
    std::vector<std::int64_t> count(cfg.size(), kNone);
    std::vector<char> state(cfg.size(), 0); // 1 on the stack, 2 done
    id_.reset();
    bool ok = true;
    auto visit = [&](auto&& self, BlockId x) -> std::int64_t {
      if (x == stop) return 0;
      if (state[x] == 1) return ok = false, 0; // a cycle
      if (state[x] == 2) return count[x];
      state[x] = 1;
      std::int64_t here = 0;
      for (InstId i = cfg.block(x).begin; i < cfg.block(x).end && ok; ++i) {
        const Instruction& inst = a_->ir.inst(i);
        if (inst.op == Opcode::kCall || inst.op == Opcode::kRet || inst.op == Opcode::kExit) {
          ok = false;
          break;
        }
        if (inst.op != Opcode::kBar && inst.op != Opcode::kBarrier) continue;
        if (inst.has_modifier("warp")) continue;
        auto id = cta_barrier_id(*a_, i);
        if (!id || !inst.guard.empty() || (id_ && *id_ != *id)) {
          ok = false;
          break;
        }
        id_ = id;
        ++here;
      }
      std::int64_t after = kNone;
      if (cfg.block(x).succs.empty()) ok = false;
      for (BlockId s : cfg.block(x).succs) {
        if (!ok) break;
        const std::int64_t c = self(self, s);
        if (after == kNone)
          after = c;
        else if (c != after)
          ok = false;
      }
      state[x] = 2;
      count[x] = here + (after == kNone ? 0 : after);
      return count[x];
    };
    std::int64_t first = kNone;
    for (BlockId s : cfg.block(d).succs) {
      const std::int64_t c = visit(visit, s);
      if (!ok) return false;
      if (first == kNone)
        first = c;
      else if (c != first)
        return false;
    }
    return ok;
  }
  const FunctionAnalysis* a_;
  std::vector<std::uint8_t> memo_;
  std::optional<std::int64_t> id_;
};

// The CTA barrier at `i` in block b is reached in step by every warp although threads diverge
// before it: every thread-divergent terminator whose region holds b is matched.
bool warps_meet_at(MatchedBarrierRegions& m, const FunctionAnalysis& a, const WarpDivergence& div,
                   BlockId b) {
  bool any = false;
  for (BlockId d = 0; d < a.cfg.size(); ++d) {
    if (!a.cfg.reachable(d) || !div.divergent(d) || !m.in_region(d, b)) continue;
    if (!m.matched(d)) return false;
    any = true;
  }
  return any;
}

class BarrierDivergenceRule final : public Rule {
public:
  std::string_view summary() const override {
    return "a barrier or .aligned collective is reachable by only part of a warp";
  }
  void check(RuleContext& ctx) const override;
};

void BarrierDivergenceRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  // at the first collective of each scope
  const WarpDivergence *threads = nullptr, *warps = nullptr, *groups = nullptr;
  WholeWarpsShape shape; // warp-level collectives under an undeclared launch shape
  UniformArguments args; // in a .func: divergence that depends on the callers' arguments
  std::optional<MatchedBarrierRegions> matched; // per function, on first need
  for (InstId i = 0; i < a.ir.size(); ++i) {
    BlockId b = a.cfg.block_of(i);
    if (!a.cfg.reachable(b)) continue;
    const Instruction& inst = a.ir.inst(i);
    Collective c = classify(inst);
    if (c == Collective::kNone) continue;
    ctx.add_sites();
    // CTA-wide barriers need every thread: any lane-varying branch counts. A named barrier with
    // a thread count, and warp-wide .aligned operations, need whole warps only.
    // The count is operand 1 of bar.sync/bar.arrive (`bar.sync a{, b}`) and operand 2 of bar.red
    // (`bar.red.op d, a{, b}, c`).
    bool cta_wide = (inst.op == Opcode::kBar || inst.op == Opcode::kBarrier) &&
                    inst.operands.size() < (inst.has_modifier("red") ? 4u : 2u);
    auto& div = cta_wide ? threads : warps;
    if (!div) div = &a.divergence(ctx.module(), cta_wide);
    bool after_exit = div->after_exit(b);
    bool partial = div->partial(b);
    std::string what = inst.full_opcode();
    // `@%p bar.sync 0` with a thread-varying %p: the threads whose guard fails never arrive at
    // this aligned barrier (a non-aligned one may be reached by them at another instruction).
    bool guarded = c == Collective::kAligned && !div->guard_uniform(i);
    // Whether a finding is due: a guard, an exit, or (aligned ones) a divergent region.
    bool due = guarded || after_exit || (partial && c == Collective::kAligned);
    // wgmma.* and setmaxnreg are executed by a warpgroup (4 warps) together. Control flow the
    // same in every lane of each warp may still differ between the four (a role read per warp
    // from shared memory, a warp index compared on a boundary that is no multiple of 4): a
    // warning, since the warps' roles usually agree by construction the PTX does not show.
    if (!due && (inst.op == Opcode::kWgmma || inst.op == Opcode::kSetmaxnreg)) {
      // Control flow the same in every thread of the block is the same in every warpgroup:
      // the block-level facts (needed for the CTA barriers such kernels have anyway) settle the
      // common case without a warpgroup-level analysis.
      if (!threads) threads = &a.divergence(ctx.module(), true);
      if (!threads->after_exit(b) && !threads->partial(b) && threads->guard_uniform(i)) continue;
      if (!groups) groups = &a.warpgroup_divergence(ctx.module());
      const bool group_guarded = !groups->guard_uniform(i);
      if (groups->after_exit(b) || groups->partial(b) || group_guarded) {
        auto f = ctx.report(i, what +
                                   (group_guarded && !groups->partial(b) && !groups->after_exit(b)
                                        ? " under a guard"
                                        : " under control flow") +
                                   " that is the same in each warp but not provably in all four "
                                   "warps of its warpgroup: a warpgroup that splits here never "
                                   "completes it");
        f.assuming("the four warps of a warpgroup differ in this condition (the PTX does not "
                   "show that their roles agree)",
                   "compute the condition from the warpgroup index (%tid.x / 128) or from "
                   "block-uniform values");
        const DivergenceCause cause = divergence_cause(a, *groups, b);
        if (cause.inst != kNoId) relate_cause(ctx, f, cause, *groups);
      }
      continue;
    }
    if (!due) continue;
    if (!cta_wide && shape.fine_with_whole_warps(ctx, i, b)) {
      auto f = WholeWarpsShape::report(ctx, i, what, guarded && !after_exit && !partial);
      const DivergenceCause cause = divergence_cause(a, *div, b);
      if (cause.inst != kNoId) f.relate(cause.inst, "the branch that depends on the launch shape");
      continue;
    }
    if (args.fine_with_uniform_arguments(ctx, i, b, cta_wide)) {
      auto f = UniformArguments::report(ctx, i, what, guarded && !after_exit && !partial);
      const DivergenceCause cause = divergence_cause(a, *div, b);
      if (cause.inst != kNoId) f.relate(cause.inst, "the branch on the arguments");
      continue;
    }
    if (!after_exit && !partial && guarded) {
      auto f = unless_debug_build(
          ctx.module(), ctx.report(i, what + " under a lane-varying guard predicate: the "
                                             "threads whose predicate fails never arrive"));
      relate_varying_guard(ctx, f, i);
      replay_divergence(ctx, f, i, cta_wide);
      continue;
    }
    if (!after_exit && !(partial && c == Collective::kAligned)) continue;
    // Threads of the block part, but whole warps do, and each way arrives at barrier `id` as
    // often as the other: every warp reaches a barrier of the same count. What decides it is
    // then whether warps stay whole (the warp-level facts, under the launch shape if undeclared).
    if (cta_wide && partial && !after_exit && !guarded && cta_barrier_id(a, i)) {
      if (!matched) matched.emplace(a);
      if (warps_meet_at(*matched, a, *div, b)) {
        if (!warps) warps = &a.divergence(ctx.module(), false);
        if (!warps->partial(b) && !warps->after_exit(b) && warps->guard_uniform(i)) continue;
        if (shape.fine_with_whole_warps(ctx, i, b)) {
          auto f = WholeWarpsShape::report(ctx, i, what, false);
          const DivergenceCause cause = divergence_cause(a, *div, b);
          if (cause.inst != kNoId)
            f.relate(cause.inst, "the branch that depends on the launch shape");
          continue;
        }
      }
    }
    const DivergenceCause cause = divergence_cause(a, *div, b);
    // A non-aligned barrier may be reached from different places: only exited threads matter.
    const bool exit_case = after_exit && (cause.is_exit || !partial || c == Collective::kUnaligned);
    // Threads that skip a CTA-wide barrier only to exit: PTX releases a barrier that waits for
    // every thread once the exited threads are the only ones missing, and the cuda-samples and
    // many kernels rely on it (`if (i >= n) return; ... __syncthreads();`), but CUDA's
    // programming model asks every thread of the block to reach it. The same whether nvcc
    // branches to a shared return block, returns from each side, or the PTX has a guarded `ret`.
    // A non-aligned barrier may be reached from other instructions too: what the skipping
    // threads run on their way out does not matter.
    const bool in_entry = a.ir.function().kind == FunctionKind::kEntry;
    if (cta_wide &&
        (c == Collective::kUnaligned ? after_exit && in_entry : skippers_only_exit(a, *div, i))) {
      auto f = ctx.report(i, what + " that some threads skip to exit: GPUs release the barrier "
                                    "for exited threads, but CUDA requires every thread of the "
                                    "block to reach it (exit after it)");
      f.assuming("the code must follow CUDA's rule that every thread of the block reaches "
                 "__syncthreads(); PTX defines a barrier whose missing threads have exited",
                 "move the exit after the barrier to be portable");
      relate_cause(ctx, f, cause, *div);
      continue;
    }
    std::string msg = exit_case ? what + " after a lane-varying exit: lanes that left never arrive"
                                : what + " under lane-varying control flow: only part of the warp "
                                         "reaches it";
    auto f = unless_debug_build(ctx.module(), ctx.report(i, msg));
    relate_cause(ctx, f, cause, *div);
    replay_divergence(ctx, f, i, cta_wide);
  }
}

} // namespace

std::unique_ptr<Rule> make_barrier_divergence_rule() {
  return std::make_unique<BarrierDivergenceRule>();
}

} // namespace ptxkit::verifier
