// shared-bounds.cpp: rule `shared-bounds`: a shared-memory access whose byte range falls outside
// the declared `.shared` variable.
//
// What it proves: for every shared access (ld/st/atom/red/ldmatrix/stmatrix .shared, or a
// generic access of a `cvta.shared` address) whose address derives from a `.shared` variable of
// known size (address_provenance.h: the variable and the address's form) with a bounded offset
// range [lo, hi] (buffer_offsets.h: immediates, %laneid, %tid/%ntid from the launch shape,
// strided intervals through the arithmetic, the guards that dominate the access, loop trip
// counts), that lo >= 0 and hi + width <= size, where width is the access's bytes including the
// vector (`ld.shared.v4.f32` at size-8 reads 8 bytes past the end). Accesses with an unbounded
// offset (a %tid without .reqntid/.maxntid, a loaded index) are not sites. Dynamic
// `.extern .shared` arrays (size unknown) are not-applicable for their accesses.
//
// Severity: an error only with a witness: a thread (and block) that every launch the kernel
// admits has, with the dominating guards holding, whose offset is one value outside the
// variable: the launch ids are pinned one at a time to the smallest value that keeps the access
// out of bounds (BufferOffsets::find_witness), and the message names the thread and the offset.
// A witness exists in every launch only where the block shape is declared (.reqntid,
// --block-dim, a contract's block); under .maxntid alone (a thread count, not a shape) a witness
// with %tid.y = 8 exists only in blocks with blockDim.y > 8: a warning that names that
// condition and how to state the shape. An offset range crossing the end with no such witness
// (it still varies with every id pinned: a loop counter, a loaded value, a select or phi whose
// choice the pins do not decide, a hull of arithmetic the intervals over-approximate) is a
// warning that says it is an over-approximation.
//
// Replay: before an error is reported, its witness thread is replayed by the interpreter
// (interp/replay.h), which shares nothing with the offset analysis: it must execute the access
// with the bytes outside the variable. The error then carries the witness (block shape, thread,
// offset, the path the replay took). A replay that contradicts it (the thread does not get
// there, or its bytes are inside) makes the finding a warning that says so; one that needs a
// value the interpreter does not know for the address (a loaded value, a parameter not stated)
// makes it a warning that names that value. Branches the replay cannot decide and that do not
// feed the address are steered toward the access (interpreter.h), as the analysis' guards are.
//
// How: each shared access with a known variable is checked against the variable's declared
// size; out-of-range ones are searched for a witness first among the launch ids every launch
// has, then among those the declared bounds admit.
#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/buffer_offsets.h"
#include "ptxkit/verifier/analysis/memory_access.h"
#include "ptxkit/verifier/interp/replay.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

bool has_unknown_dim(const VarDecl& v) {
  for (std::uint64_t d : v.dims)
    if (d == kUnknownDim) return true;
  return false;
}

class SharedBoundsRule final : public Rule {
public:
  std::string_view summary() const override {
    return "a shared-memory access at an offset (range) outside the declared .shared size";
  }
  void check(RuleContext& ctx) const override;
};

// One access checked against one variable.
struct Site {
  InstId inst = kNoId;
  std::uint32_t operand = 0;
  std::int64_t width = 0, size = 0;
  const VarDecl* var = nullptr;

  bool outside(const BufferValue& v) const {
    return v.kind == BufferValue::Kind::kPtr && v.var == var && v.range.bounded() &&
           (v.range.lo < 0 || v.range.hi + width > size);
  }
};

std::array<StridedRange, kLaunchIds> launch_space(const BufferOffsets& bo, bool guaranteed) {
  std::array<StridedRange, kLaunchIds> out;
  for (int id = 0; id < kLaunchIds; ++id) {
    auto lid = static_cast<LaunchId>(id);
    out[id] = guaranteed ? bo.guaranteed_range(lid) : bo.launch_range(lid);
  }
  return out;
}

// Every combination of the launch ids the offset depends on, each pinned to one value of
// `space` (at most kMaxCombinations of them): where the binary search of find_witness misses
// because the offset is not monotone in the id (the hull of `base + 76*tid - 72*tid` crosses the
// end at every prefix of the ids), each thread's one offset decides. `inside`: every
// combination keeps the access inside; `witness`: the first combination with one offset
// outside.
constexpr std::int64_t kMaxCombinations = 4096;

struct Enumerated {
  bool inside = false;
  std::optional<BufferOffsets::Witness> witness;
};

Enumerated enumerate_launch_ids(const BufferOffsets& bo, const Site& s,
                                const std::array<StridedRange, kLaunchIds>& space) {
  BufferOffsets::LaunchPins pins;
  for (int k = 0; k < kLaunchIds; ++k)
    pins[k] = space[k];
  const BufferValue free = bo.operand_value_pinned(s.inst, s.operand, pins);
  std::vector<int> varying; // the ids the value depends on
  std::int64_t combinations = 1;
  for (int k = 0; k < kLaunchIds; ++k) {
    if (!bo.reads(static_cast<LaunchId>(k)) || space[k].is_constant()) continue;
    if (!space[k].bounded()) return {};
    pins[k] = StridedRange::constant(space[k].lo);
    bool depends = !(bo.operand_value_pinned(s.inst, s.operand, pins) == free);
    pins[k] = space[k];
    if (!depends) continue;
    combinations *= space[k].hi - space[k].lo + 1;
    if (combinations > kMaxCombinations) return {};
    varying.push_back(k);
  }
  for (int k : varying)
    pins[k] = StridedRange::constant(space[k].lo);
  bool undecided = false;
  while (true) { // an odometer over the varying ids
    BufferValue v = bo.operand_value_pinned(s.inst, s.operand, pins);
    if (s.outside(v)) {
      if (!v.range.is_constant()) {
        undecided = true;
      } else {
        BufferOffsets::Witness w;
        for (int k = 0; k < kLaunchIds; ++k)
          if (bo.reads(static_cast<LaunchId>(k)) && pins[k]->is_constant()) w.ids[k] = pins[k]->lo;
        w.value = v;
        return {false, w};
      }
    }
    std::size_t d = 0;
    for (; d < varying.size(); ++d) {
      int k = varying[d];
      if (pins[k]->lo < space[k].hi) {
        pins[k] = StridedRange::constant(pins[k]->lo + 1);
        break;
      }
      pins[k] = StridedRange::constant(space[k].lo);
    }
    if (d == varying.size()) return {!undecided, std::nullopt};
  }
}

// The number of threads a block needs to hold the witness's thread.
std::int64_t block_size_needed(const BufferOffsets::Witness& w) {
  std::int64_t n = 1;
  for (int k = 0; k < 3; ++k)
    n *= w.ids[k].value_or(0) + 1;
  return n;
}

// A witness whose offset is one value: every launch id it depends on pinned. The block ids are
// pinned first (z, y, x); of the orders of the thread ids, the one whose thread fits the
// smallest block (so a message says `blockDim.y > 32`, not `blockDim.x > 992 and
// blockDim.y > 1`).
std::optional<BufferOffsets::Witness> concrete_witness(const BufferOffsets& bo, const Site& s,
                                                       bool guaranteed) {
  const auto space = launch_space(bo, guaranteed);
  auto bad = [&](const BufferValue& v) { return s.outside(v); };
  std::array<LaunchId, 3> tids = {LaunchId::kTidX, LaunchId::kTidY, LaunchId::kTidZ};
  std::optional<BufferOffsets::Witness> best;
  do {
    BufferOffsets::LaunchOrder order = {LaunchId::kCtaidZ, LaunchId::kCtaidY, LaunchId::kCtaidX,
                                        tids[0],           tids[1],           tids[2]};
    auto w = bo.find_witness(s.inst, s.operand, space, order, bad);
    if (w && w->value.range.is_constant() &&
        (!best || block_size_needed(*w) < block_size_needed(*best)))
      best = w;
  } while (std::next_permutation(tids.begin(), tids.end()));
  if (!best) best = enumerate_launch_ids(bo, s, space).witness;
  return best;
}

// "thread (96, 0, 0)" / "thread (3, 0, 0) of block (2, 0, 0)": the ids the search pinned (the
// others do not matter: 0).
std::string thread_of(const BufferOffsets::Witness& w) {
  auto id = [&](int k) { return std::to_string(w.ids[k].value_or(0)); };
  std::string out = "thread (" + id(0) + ", " + id(1) + ", " + id(2) + ")";
  if (w.ids[3] || w.ids[4] || w.ids[5])
    out += " of block (" + id(3) + ", " + id(4) + ", " + id(5) + ")";
  return out;
}

std::string touched(const Site& s, std::int64_t offset) {
  std::string out = "bytes " + std::to_string(offset) + ".." + std::to_string(offset + s.width - 1);
  return offset < 0 ? out + ", before its start" : out;
}

// "blockDim.y > 8": the launch extents a witness needs beyond what every launch has.
std::string shape_condition(const BufferOffsets& bo, const BufferOffsets::Witness& w) {
  static constexpr std::string_view kExtent[] = {"blockDim.x", "blockDim.y", "blockDim.z",
                                                 "gridDim.x",  "gridDim.y",  "gridDim.z"};
  std::string out;
  for (int k = 0; k < kLaunchIds; ++k) {
    if (!w.ids[k] || *w.ids[k] <= bo.guaranteed_range(static_cast<LaunchId>(k)).hi) continue;
    out += out.empty() ? "" : " and ";
    out += std::string(kExtent[k]) + " > " + std::to_string(*w.ids[k]);
  }
  return out;
}

bool pins_something(const BufferOffsets::Witness& w) {
  for (const auto& id : w.ids)
    if (id) return true;
  return false;
}

// "ends at byte 1020" / "may start before it"
std::string crossing(const Site& s, const BufferValue& v, bool certain) {
  std::string may = certain ? "" : "may ";
  if (v.range.lo < 0) return may + "start" + (certain ? "s" : "") + " before it";
  return may + "end" + (certain ? "s" : "") + " at byte " + std::to_string(v.range.hi + s.width);
}

// The error's witness thread, replayed by the interpreter (interp/replay.h) along its path.
struct Replayed {
  interp::Replay replay;
  interp::ThreadLaunch launch;
  std::unique_ptr<interp::Interpreter> in;
};

Replayed replay_witness(const RuleContext& ctx, const Site& s, const BufferOffsets::Witness& w) {
  auto id = [&](int k) { return static_cast<std::uint32_t>(w.ids[k].value_or(0)); };
  Replayed r;
  r.launch = interp::stated_launch(ctx.function(), ctx.contract(), {id(0), id(1), id(2)},
                                   {id(3), id(4), id(5)});
  r.in = std::make_unique<interp::Interpreter>(ctx.module(), ctx.analysis());
  r.replay = interp::replay_shared_out_of_bounds(*r.in, r.launch, s.inst, *s.var);
  return r;
}

// The replayed witness as the Finding's: the launch, the thread and its bytes, the path.
void attach_witness(RuleContext::Reported& f, const Site& s, const Replayed& r) {
  const std::int64_t off = interp::offset_into(*r.in, *r.replay.run.access, *s.var);
  Witness w;
  if (r.launch.block_known) w.block_dim = r.launch.ntid;
  const std::string bytes =
      "bytes " + std::to_string(off) + ".." + std::to_string(off + s.width - 1);
  w.threads.push_back({r.launch.tid, r.launch.ctaid,
                       "touches " + bytes + " of " + std::string(s.var->name) +
                           (off < 0 ? " (before its start)" : "") +
                           (r.replay.run.steered.empty()
                                ? ""
                                : " (" + interp::steered_text(*r.in, r.replay.run) + ")")});
  w.values.emplace_back("offset", off);
  for (InstId i : interp::witness_path(r.replay.run))
    w.path.push_back(f.step(i));
  f.witness(std::move(w));
}

void report_outside(RuleContext& ctx, const BufferOffsets& bo, const Site& s, const BufferValue& v,
                    InstId origin) {
  std::string msg = std::to_string(s.width) + "-byte access at " +
                    (v.range.is_constant() ? "offset " : "offsets ") + v.range.str() + " of " +
                    std::string(s.var->name) + " (" + std::to_string(s.size) + " bytes declared) ";
  Severity severity = Severity::kWarning;
  std::optional<Replayed> replayed; // an error's witness, confirmed by the interpreter
  std::string unknown;              // an inconclusive replay: what it did not know
  if (auto w = concrete_witness(bo, s, true)) {
    // A thread's witness offset, not the hull's end (which no thread may reach).
    if (pins_something(*w))
      msg += "is out of bounds: " + thread_of(*w) + " touches " + touched(s, w->value.range.lo);
    else
      msg += crossing(s, v, true);
    Replayed r = replay_witness(ctx, s, *w);
    if (r.replay.verdict == interp::Verdict::kConfirmed) {
      severity = Severity::kError;
      replayed = std::move(r);
    } else if (r.replay.verdict == interp::Verdict::kContradicted) {
      msg += "; but the witness did not replay: " + r.replay.why +
             " (the offset analysis over-approximated)";
    } else {
      msg += "; the witness did not replay: " + r.replay.why;
      unknown = r.replay.why;
    }
  } else if (auto w2 = concrete_witness(bo, s, false)) {
    msg += "is out of bounds if " + shape_condition(bo, *w2) + " (" + thread_of(*w2) + " touches " +
           touched(s, w2->value.range.lo) +
           "): the kernel declares no block shape (.maxntid bounds only its thread count); "
           "declare .reqntid or pass --block-dim to decide it";
  } else if (enumerate_launch_ids(bo, s, launch_space(bo, false)).inside) {
    return; // each thread's offset is inside: only the hull crosses the end
  } else {
    msg += crossing(s, v, false) +
           ": the offset range is an over-approximation (no thread that the launch bounds and "
           "the guards admit was found whose offset is outside: the offset also depends on a "
           "loop counter, a loaded value or a select the thread index does not decide)";
    if (!bo.block_declared()) msg += "; declaring .reqntid or passing --block-dim may decide it";
  }
  auto f = ctx.report(s.inst, msg, severity);
  if (replayed) attach_witness(f, s, *replayed);
  if (!unknown.empty())
    f.assuming("the value the replay did not know puts the access outside (" + unknown + ")",
               "state the parameters and the launch with --contract or --block-dim");
  if (origin != kNoId && origin != s.inst)
    f.relate(origin, "the address of " + std::string(s.var->name) + " is taken here");
}

void SharedBoundsRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const AddressProvenance& prov = a.provenance(ctx.module());
  const KernelContract none;
  std::optional<BufferOffsets> bo; // built at the first access into a variable of known size
  for (InstId i = 0; i < a.ir.size(); ++i) {
    if (!a.cfg.reachable(a.cfg.block_of(i))) continue;
    const Instruction& inst = a.ir.inst(i);
    for (const MemoryOperand& mo : memory_operands(inst)) {
      if (inst.op == Opcode::kCp) continue; // the copy size is an operand, not the type
      AbsValue pv = prov.operand_value(i, mo.operand);
      if (pv.kind != AbsValue::Kind::kAddr || pv.space != AddrSpace::kShared || !pv.var) continue;
      bool right_form = mo.space == AddrSpace::kShared
                            ? !pv.generic
                            : (mo.space == AddrSpace::kNone && pv.generic);
      if (!right_form || has_unknown_dim(*pv.var)) continue;
      Site s{i, mo.operand, access_width(inst), 0, pv.var};
      if (inst.op == Opcode::kLdmatrix || inst.op == Opcode::kStmatrix)
        s.width = 16; // a row per lane
      s.size = static_cast<std::int64_t>(pv.var->size_in_bytes());
      if (s.width == 0 || s.size == 0) continue;
      // Sites: accesses whose offset the provenance bounds from what the kernel states (not a
      // loaded index, bounded only by its register's width).
      if (!pv.has_range) continue;
      if (!bo) bo.emplace(a, ctx.contract() ? *ctx.contract() : none, &prov);
      ctx.add_sites();
      BufferValue v = bo->operand_value(i, mo.operand);
      if (v.kind == BufferValue::Kind::kTop) continue; // its guards admit no value: never executed
      if (v.kind != BufferValue::Kind::kPtr || v.var != pv.var || !v.range.bounded()) {
        v.kind = BufferValue::Kind::kPtr; // the provenance's hull: never a witness
        v.var = pv.var;
        v.range = StridedRange::interval(pv.lo, pv.hi);
        v.range.exact = false;
        v.origin = pv.origin;
      }
      if (s.outside(v)) report_outside(ctx, *bo, s, v, v.origin);
    }
  }
}

} // namespace

std::unique_ptr<Rule> make_shared_bounds_rule() {
  return std::make_unique<SharedBoundsRule>();
}

} // namespace ptxkit::verifier
