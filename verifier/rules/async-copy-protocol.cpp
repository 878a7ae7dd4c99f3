// async-copy-protocol.cpp: rule `async-copy-protocol`: the Ampere/Hopper/Blackwell asynchronous
// machinery used out of protocol: data an asynchronous operation is still writing is read (or
// overwritten), or memory the generic proxy wrote is read by the async proxy without a proxy fence.
//
// What it proves, for one thread along every path of its control flow (a per-site dataflow over
// the CFG, loops included):
//   1. cp.async (.ca/.cg): the shared destination of a copy is not read or written by a generic
//      access (ld/st/atom/red/ldmatrix/stmatrix .shared, or a generic address into shared) while
//      its commit group is in flight. Groups are counted along each path: cp.async.commit_group
//      closes the open group, `cp.async.wait_group N` covers every group but the newest N (never
//      the open one), cp.async.wait_all covers all. The state of a copy site is the distance of
//      its newest instance from the newest group (0: still in the open group), an interval over
//      the paths, plus whether some path has no instance in flight (may vs must).
//   2. Bulk/TMA copies into shared memory with `.mbarrier::complete_tx::bytes`: the destination
//      is not accessed before an mbarrier.try_wait/test_wait on the same mbarrier object.
//   3. wgmma.mma_async: no instruction other than a later wgmma.mma_async reads or writes one of
//      its accumulator registers before a `wgmma.wait_group N` covers its wgmma.commit_group
//      group (same counting as 1; registers are exact, so this part needs no address reasoning).
//   4. Proxies: shared memory written by a generic-proxy store is not read by the async proxy
//      (bulk/TMA copies and reductions from shared memory, wgmma's shared-memory descriptors)
//      unless a `fence.proxy.async` (full, or .shared::cta/.shared::cluster) lies between them.
//
// Severity: `error` when the violation is definite: the operation is in flight on every path to
// the access (must) and the two touch the same bytes in this thread (the same variable at
// constant offsets that overlap, or the same address register, unchanged since the copy, at
// overlapping constant offsets), and for wgmma's registers on every path. `warning`, saying why,
// when it is undecidable: the operation is in flight on some paths only (a loop's first
// iteration, a guarded wait), or the addresses are not comparable (a computed or swizzled offset:
// the access may or may not touch the bytes, possibly another thread's; then only when no wait
// at all ran since the copy, since a `wait_group N > 0` leaves the newest N groups in flight by
// design: the multistage pipeline reads another stage). Accesses proven disjoint (different
// variables, disjoint offset ranges over every thread) are quiet.
//
// Assumptions and limits: the analysis is per thread: a copy issued by one thread (a TMA
// producer warp) and read by another after a barrier is not related; mbarrier phases are not
// tracked (any try_wait/test_wait on the same object covers the copy, the generous reading);
// a wait on an mbarrier not comparable with the copy's may cover it; copies whose completion is
// tracked by `cp.async.mbarrier.arrive` become "may be covered"; generic accesses whose address
// is not known to be shared are not examined; the bulk-group protocol of shared-to-global copies
// (`cp.async.bulk.wait_group.read` before reusing the source) is not modelled.
//
// How: each instruction is classified once (the ISA table's opcodes and modifiers); then for each
// issuing site a forward dataflow of that site's state runs over the CFG in reverse post-order
// to a fixpoint, visiting only the instructions that matter to its class, and the accesses are
// checked against the fixpoint's states.
#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/memory_access.h"
#include "ptxkit/verifier/rule.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptxkit::verifier {

namespace {

using namespace analysis;
using Mod = isa::Modifier;

bool has(const Instruction& in, Mod m) {
  return in.has_modifier(isa::spelling(m));
}

enum class Cls : std::uint8_t { kCpAsync, kBulk, kWgmma, kProxy };
constexpr int kClasses = 4;

enum class Ev : std::uint8_t {
  kNone,
  kIssue,      // a site of the class (cp.async copy, bulk copy in, wgmma, generic shared store)
  kCommit,     // cp.async.commit_group / wgmma.commit_group
  kWait,       // cp.async.wait_group N / wgmma.wait_group N (n)
  kWaitAll,    // cp.async.wait_all, fence.proxy.async
  kMbarArrive, // cp.async.mbarrier.arrive: the open copies are tracked by an mbarrier
  kMbarWait,   // mbarrier.try_wait / test_wait
  kCheck,      // an access to compare with the in-flight sites
  // Precomputed for the wgmma class: touches a wgmma accumulator register, a kCheck for the sites
  // whose accumulators it touches (event_of), kNone for the others.
  kAccumulator,
};

struct Event {
  InstId inst;
  Ev ev;
  std::uint32_t n = 0;
};

// One thread's view of one issuing site at a program point.
struct State {
  bool reached = false;        // false: bottom (no path seen yet)
  bool pending = false;        // on some path the newest instance is in flight
  bool clear = true;           // on some path nothing of the site is in flight
  bool waited = false;         // on some in-flight path a wait ran since the instance was issued
  std::uint8_t lo = 0, hi = 0; // distance of the newest instance from the newest group
  bool operator==(const State&) const = default;
};

State join(const State& a, const State& b) {
  if (!a.reached) return b;
  if (!b.reached) return a;
  State s;
  s.reached = true;
  s.clear = a.clear || b.clear;
  s.pending = a.pending || b.pending;
  s.waited = (a.pending && a.waited) || (b.pending && b.waited);
  if (a.pending && b.pending) {
    s.lo = std::min(a.lo, b.lo);
    s.hi = std::max(a.hi, b.hi);
  } else if (a.pending || b.pending) {
    s.lo = a.pending ? a.lo : b.lo;
    s.hi = a.pending ? a.hi : b.hi;
  }
  return s;
}

// A shared-memory byte range one access touches.
struct Region {
  bool shared = false;
  const VarDecl* var = nullptr;
  bool has_range = false, exact = false;
  std::int64_t lo = 0, hi = 0; // offset range from var (every thread)
  ValueId base = kNoId;        // the address register's value (leader), kNoId for a symbol
  std::int64_t off = 0;        // the constant offset written in the operand
  std::uint32_t width = 0;     // bytes; 0 unknown (at least 1)
};

enum class Overlap : std::uint8_t { kDisjoint, kMay, kDefinite };

class Checker {
public:
  Checker(RuleContext& ctx)
      : ctx_(ctx), a_(ctx.analysis()), prov_(a_.provenance(ctx.module())), kind_(a_.ir.size()) {}
  void run();

private:
  struct Site {
    InstId inst;
    Cls cls;
    Region region;                  // kCpAsync/kBulk: destination; kProxy: the store
    std::vector<RegId> acc;         // kWgmma: accumulator registers, sorted
    std::uint32_t mbar_operand = 0; // kBulk: the mbarrier's address operand
  };
  struct Finding {
    InstId site = kNoId;
    Severity sev = Severity::kWarning;
    std::string msg;
    bool must = false;
  };
  // An undecided overlap: reported once per site, at its first access in program order.
  struct Undecided {
    InstId at = kNoId;
    std::uint32_t count = 0;
    std::string msg;
  };

  void classify();
  void solve(const Site& s);
  Ev class_event(Cls c, InstId i) const;
  Ev event_of(const Site& s, const Event& e) const;
  void apply(const Site& s, const Event& e, State& st) const;
  void check(const Site& s, InstId at, const State& st);
  Region region_of(InstId i, std::uint32_t operand, std::uint32_t width) const;
  Overlap overlap(const Region& c, const Region& r, InstId site) const;
  bool stable_since(ValueId v, InstId site) const;
  std::optional<bool> same_mbarrier(const Site& s, InstId wait) const;
  void note(InstId at, Cls c, Finding f);

  RuleContext& ctx_;
  const FunctionAnalysis& a_;
  const AddressProvenance& prov_;
  std::vector<std::uint8_t> kind_;                   // per instruction: bit per class it matters to
  std::vector<std::vector<Event>> events_[kClasses]; // per class, per block
  std::vector<Site> sites_;
  std::vector<Region> access_;      // per instruction: the generic shared access (if any)
  std::vector<std::int8_t> write_;  // per instruction: 1 write, 0 read, -1 none
  std::vector<InstId> async_reads_; // async-proxy readers of shared memory
  std::map<std::pair<InstId, int>, Finding> found_; // best finding per (access, class)
  // Undecided overlaps, per class: one warning per function (the first access in program
  // order, with its site), counting the rest: computed addresses make every access of a
  // pipeline undecided, and one warning says what a hundred would.
  std::map<int, std::pair<InstId, Undecided>> undecided_;
  void undecided(Cls c, InstId site, InstId at, std::string msg) {
    auto& [first_site, u] = undecided_[static_cast<int>(c)];
    if (u.at == kNoId || at < u.at || (at == u.at && site < first_site)) {
      u.at = at;
      first_site = site;
      u.msg = std::move(msg);
    }
    ++u.count;
  }
};

Region Checker::region_of(InstId i, std::uint32_t operand, std::uint32_t width) const {
  Region r;
  const Instruction& in = a_.ir.inst(i);
  AbsValue v = prov_.operand_value(i, operand);
  AddrSpace sp = AddrSpace::kNone;
  for (const MemoryOperand& mo : memory_operands(in))
    if (mo.operand == operand) sp = mo.space;
  if (in.op == Opcode::kCp || in.op == Opcode::kWgmma)
    sp = explicit_space(in, operand == 0 ? 0 : 1);
  r.shared =
      sp == AddrSpace::kShared ||
      (sp == AddrSpace::kNone && v.kind == AbsValue::Kind::kAddr && v.space == AddrSpace::kShared);
  if (v.kind == AbsValue::Kind::kAddr && v.space == AddrSpace::kShared) {
    r.var = v.var;
    r.has_range = v.has_range;
    r.exact = v.exact;
    r.lo = v.lo;
    r.hi = v.hi;
  }
  const Operand& op = in.operands[operand];
  if (op.kind == OperandKind::kAddress && !op.address_base_is_immediate()) {
    ValueId b = a_.values.value_of(i, operand);
    r.base = b == kNoId ? kNoId : a_.values.leader(b);
    r.off = op.address_offset();
  }
  r.width = width;
  return r;
}

// The value v holds the same number every time the site executes and until the next access:
// it is defined outside every loop that contains the site.
bool Checker::stable_since(ValueId v, InstId site) const {
  const BlockId vb = a_.values.info(v).block;
  const BlockId sb = a_.cfg.block_of(site);
  for (LoopId l = a_.loops.loop_of(sb); l != kNoId; l = a_.loops.loop(l).parent)
    if (a_.loops.contains(l, vb)) return false;
  return true;
}

Overlap Checker::overlap(const Region& c, const Region& r, InstId site) const {
  if (!c.shared || !r.shared) return Overlap::kDisjoint;
  if (c.var && r.var && c.var != r.var) return Overlap::kDisjoint;
  const std::int64_t wc = c.width, wr = r.width;
  if (c.var && c.var == r.var && c.has_range && r.has_range) {
    // Over every thread: c covers [c.lo, c.hi + wc), r [r.lo, r.hi + wr).
    const bool r_before = wr != 0 && r.hi + wr <= c.lo;
    const bool c_before = wc != 0 && c.hi + wc <= r.lo;
    if (r_before || c_before) return Overlap::kDisjoint;
    if (c.exact && r.exact && c.lo == c.hi && r.lo == r.hi &&
        r.lo < c.lo + std::max<std::int64_t>(wc, 1) && c.lo < r.lo + std::max<std::int64_t>(wr, 1))
      return Overlap::kDefinite;
  }
  if (c.base != kNoId && c.base == r.base && stable_since(c.base, site) &&
      r.off < c.off + std::max<std::int64_t>(wc, 1) &&
      c.off < r.off + std::max<std::int64_t>(wr, 1))
    return Overlap::kDefinite;
  return Overlap::kMay;
}

// Whether the wait's mbarrier is the bulk copy's: true (the same object), false (another one),
// nullopt (not comparable).
std::optional<bool> Checker::same_mbarrier(const Site& s, InstId wait) const {
  const Instruction& w = a_.ir.inst(wait);
  std::uint32_t k = 0;
  while (k < w.operands.size() && w.operands[k].kind != OperandKind::kAddress)
    ++k;
  if (k == w.operands.size()) return std::nullopt;
  Region a = region_of(s.inst, s.mbar_operand, 8), b = region_of(wait, k, 8);
  a.shared = b.shared = true;
  if (a.base != kNoId && a.base == b.base) return a.off == b.off;
  if (a.var && b.var) {
    if (a.var != b.var) return false;
    if (a.has_range && b.has_range && a.exact && b.exact && a.lo == a.hi && b.lo == b.hi)
      return a.lo == b.lo;
  }
  return std::nullopt;
}

void Checker::classify() {
  const FunctionIR& ir = a_.ir;
  const std::uint32_t n = ir.size();
  access_.assign(n, Region{});
  write_.assign(n, -1);
  bool any_async_read = false;
  std::vector<RegId> acc_regs;
  std::vector<InstId> stores;
  for (InstId i = 0; i < n; ++i) {
    if (!a_.cfg.reachable(a_.cfg.block_of(i))) continue;
    const Instruction& in = ir.inst(i);
    auto mark = [&](Cls c) { kind_[i] |= std::uint8_t(1u << static_cast<int>(c)); };
    if (in.op == Opcode::kCp && has(in, Mod::kAsync) && !has(in, Mod::kBulk)) {
      if (has(in, Mod::kMbarrier)) {
        mark(Cls::kCpAsync);
      } else if (has(in, Mod::kCommitGroup) || has(in, Mod::kWaitGroup) || has(in, Mod::kWaitAll)) {
        mark(Cls::kCpAsync);
      } else if (in.operands.size() >= 3 && in.operands[0].kind == OperandKind::kAddress) {
        std::uint32_t w = in.operands[2].kind == OperandKind::kImmInt
                              ? static_cast<std::uint32_t>(in.operands[2].int_value())
                              : 0;
        sites_.push_back({i, Cls::kCpAsync, region_of(i, 0, w), {}, 0});
        mark(Cls::kCpAsync);
      }
    } else if (in.op == Opcode::kCp && has(in, Mod::kBulk)) {
      if (has(in, Mod::kCommitGroup) || has(in, Mod::kWaitGroup)) continue;
      // Destination first, then source: a copy into shared memory completing on an mbarrier,
      // or a read of shared memory by the async proxy (to global, or to another CTA's).
      const AddrSpace dst = explicit_space(in, 0), src = explicit_space(in, 1);
      std::vector<std::uint32_t> addr;
      for (std::uint32_t k = 0; k < in.operands.size(); ++k)
        if (in.operands[k].kind == OperandKind::kAddress) addr.push_back(k);
      if (dst == AddrSpace::kShared && has(in, Mod::kCompleteTxBytes) && addr.size() >= 2 &&
          src != AddrSpace::kShared) {
        std::uint32_t w = 0;
        if (!has(in, Mod::kTensor) && in.operands.size() > addr[1] + 1 &&
            in.operands[addr[1] + 1].kind == OperandKind::kImmInt)
          w = static_cast<std::uint32_t>(in.operands[addr[1] + 1].int_value());
        sites_.push_back({i, Cls::kBulk, region_of(i, addr[0], w), {}, addr.back()});
        mark(Cls::kBulk);
      }
      if (src == AddrSpace::kShared && addr.size() >= 2) {
        async_reads_.push_back(i);
        any_async_read = true;
        mark(Cls::kProxy);
      }
    } else if (in.op == Opcode::kMbarrier && (has(in, Mod::kTryWait) || has(in, Mod::kTestWait))) {
      mark(Cls::kBulk);
    } else if (in.op == Opcode::kWgmma) {
      if (has(in, Mod::kMmaAsync) && !in.operands.empty()) {
        Site s{i, Cls::kWgmma, {}, {}, 0};
        for (const Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
          if (m->operand == 0) s.acc.push_back(m->reg);
        std::sort(s.acc.begin(), s.acc.end());
        acc_regs.insert(acc_regs.end(), s.acc.begin(), s.acc.end());
        sites_.push_back(std::move(s));
        mark(Cls::kWgmma);
        // A 64-bit descriptor operand (not a register vector): shared memory the async proxy
        // reads.
        for (std::uint32_t k = 1; k < 3 && k < in.operands.size(); ++k)
          if (in.operands[k].kind == OperandKind::kRegister) {
            async_reads_.push_back(i);
            any_async_read = true;
            mark(Cls::kProxy);
            break;
          }
      } else if (has(in, Mod::kCommitGroup) || has(in, Mod::kWaitGroup)) {
        mark(Cls::kWgmma);
      }
    } else if (in.op == Opcode::kFence && has(in, Mod::kProxy) && has(in, Mod::kAsync)) {
      const AddrSpace sp = explicit_space(in, 0);
      if (sp == AddrSpace::kNone || sp == AddrSpace::kShared) mark(Cls::kProxy);
    } else if (isa::has(in.op, isa::kAddressedAccess)) {
      for (const MemoryOperand& mo : memory_operands(in)) {
        std::uint32_t w = access_width(in);
        if (in.op == Opcode::kLdmatrix || in.op == Opcode::kStmatrix) w = 16;
        Region r = region_of(i, mo.operand, w);
        if (!r.shared) continue;
        access_[i] = r;
        write_[i] = isa::has(in.op, isa::kWritesMemory) ? 1 : 0;
        mark(Cls::kCpAsync);
        mark(Cls::kBulk);
        if (write_[i] == 1) stores.push_back(i);
      }
    }
  }
  // Instructions touching an accumulator register (checked against the wgmma sites).
  std::sort(acc_regs.begin(), acc_regs.end());
  acc_regs.erase(std::unique(acc_regs.begin(), acc_regs.end()), acc_regs.end());
  if (!acc_regs.empty())
    for (InstId i = 0; i < n; ++i) {
      const Instruction& in = ir.inst(i);
      if (in.op == Opcode::kWgmma || !a_.cfg.reachable(a_.cfg.block_of(i))) continue;
      for (const Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
        if (std::binary_search(acc_regs.begin(), acc_regs.end(), m->reg)) {
          kind_[i] |= 1u << static_cast<int>(Cls::kWgmma);
          break;
        }
    }
  // Generic stores matter to the proxy rule only where the async proxy reads shared memory.
  if (any_async_read)
    for (InstId i : stores) {
      sites_.push_back({i, Cls::kProxy, access_[i], {}, 0});
      kind_[i] |= 1u << static_cast<int>(Cls::kProxy);
    }
  for (auto& e : events_)
    e.assign(a_.cfg.size(), {});
  for (InstId i = 0; i < n; ++i)
    for (int c = 0; c < kClasses; ++c)
      if (kind_[i] & (1u << c))
        events_[c][a_.cfg.block_of(i)].push_back({i, class_event(static_cast<Cls>(c), i), 0});
}

// What instruction i means to every site of class c but its own issue (computed once per
// instruction: the per-site solves visit each event many times).
Ev Checker::class_event(Cls c, InstId i) const {
  const Instruction& in = a_.ir.inst(i);
  switch (c) {
  case Cls::kCpAsync:
    if (in.op == Opcode::kCp && has(in, Mod::kMbarrier)) return Ev::kMbarArrive;
    if (in.op == Opcode::kCp && has(in, Mod::kCommitGroup)) return Ev::kCommit;
    if (in.op == Opcode::kCp && has(in, Mod::kWaitGroup)) return Ev::kWait;
    if (in.op == Opcode::kCp && has(in, Mod::kWaitAll)) return Ev::kWaitAll;
    return write_[i] >= 0 ? Ev::kCheck : Ev::kNone;
  case Cls::kBulk:
    if (in.op == Opcode::kMbarrier) return Ev::kMbarWait;
    return write_[i] >= 0 ? Ev::kCheck : Ev::kNone;
  case Cls::kWgmma:
    if (in.op == Opcode::kWgmma)
      return has(in, Mod::kCommitGroup) ? Ev::kCommit
             : has(in, Mod::kWaitGroup) ? Ev::kWait
                                        : Ev::kNone;
    return Ev::kAccumulator;
  case Cls::kProxy:
    if (in.op == Opcode::kFence) return Ev::kWaitAll;
    // async_reads_ is in instruction order (classify's loop).
    return std::binary_search(async_reads_.begin(), async_reads_.end(), i) ? Ev::kCheck : Ev::kNone;
  }
  return Ev::kNone;
}

// What instruction e means to site s.
Ev Checker::event_of(const Site& s, const Event& e) const {
  if (e.inst == s.inst) return Ev::kIssue;
  if (e.ev != Ev::kAccumulator) return e.ev;
  for (const Mention* m = a_.ir.mentions_begin(e.inst); m != a_.ir.mentions_end(e.inst); ++m)
    if (std::binary_search(s.acc.begin(), s.acc.end(), m->reg)) return Ev::kCheck;
  return Ev::kNone;
}

void Checker::apply(const Site& s, const Event& e, State& st) const {
  const Ev ev = event_of(s, e);
  if (ev == Ev::kNone || ev == Ev::kCheck) return;
  State next = st;
  switch (ev) {
  case Ev::kIssue:
    next = State{true, true, false, false, 0, 0};
    break;
  case Ev::kCommit:
    if (next.pending) {
      next.lo = static_cast<std::uint8_t>(std::min(next.lo + 1, 31));
      next.hi = static_cast<std::uint8_t>(std::min(next.hi + 1, 31));
    }
    break;
  case Ev::kWait: {
    // wait_group N covers the groups older than the newest N (distance > N), never the open one.
    const Instruction& in = a_.ir.inst(e.inst);
    std::int64_t keep = 0;
    if (!in.operands.empty() && in.operands[0].kind == OperandKind::kImmInt)
      keep = in.operands[0].int_value();
    else if (!in.operands.empty())
      keep = 31; // a count in a register: assume the least it could cover... nothing definite
    if (!next.pending) break;
    next.waited = true;
    if (next.hi > keep) next.clear = true;
    if (next.lo > keep) {
      next.pending = false;
    } else {
      next.hi = static_cast<std::uint8_t>(std::min<std::int64_t>(next.hi, keep));
    }
    if (!in.operands.empty() && in.operands[0].kind != OperandKind::kImmInt) next.clear = true;
    break;
  }
  case Ev::kWaitAll:
    next.pending = false;
    next.clear = true;
    break;
  case Ev::kMbarArrive:
    if (next.pending) next.clear = true;
    break;
  case Ev::kMbarWait: {
    auto same = same_mbarrier(s, e.inst);
    if (!next.pending || (same && !*same)) break;
    next.waited = true;
    if (same) {
      next.pending = false;
      next.clear = true;
    } else {
      next.clear = true; // perhaps the same object
    }
    break;
  }
  default:
    break;
  }
  // A guarded event may not happen: both outcomes.
  st = a_.ir.info(e.inst).guard != kNoId ? join(st, next) : next;
}

void Checker::solve(const Site& s) {
  const Cfg& cfg = a_.cfg;
  const auto& ev = events_[static_cast<int>(s.cls)];
  std::vector<State> in(cfg.size()), out(cfg.size());
  in[cfg.entry()] = State{true, false, true, false, 0, 0};
  const BlockId home = cfg.block_of(s.inst);
  auto transfer = [&](BlockId b, State st, bool report) {
    for (const Event& e : ev[b]) {
      if (report && event_of(s, e) == Ev::kCheck) check(s, e.inst, st);
      apply(s, e, st);
    }
    return st;
  };
  bool changed = true;
  for (int round = 0; changed && round < 64; ++round) {
    changed = false;
    for (BlockId b : cfg.rpo()) {
      State st = b == cfg.entry() ? in[b] : State{};
      for (BlockId p : cfg.block(b).preds)
        if (cfg.reachable(p)) st = join(st, out[p]);
      if (!st.reached) continue;
      in[b] = st;
      // Nothing in flight and no issue of the site here: no event can put one in flight (only
      // the issue does), and states with nothing in flight differ only in fields a join or a
      // check reads under `pending` (they all have `clear`): skip the walk.
      State o = (!st.pending && b != home) ? st : transfer(b, st, false);
      if (!(o == out[b])) {
        out[b] = o;
        changed = true;
      }
    }
  }
  for (BlockId b : cfg.rpo())
    if (in[b].reached && (in[b].pending || b == home)) transfer(b, in[b], true);
}

void Checker::note(InstId at, Cls c, Finding f) {
  auto key = std::make_pair(at, static_cast<int>(c));
  auto it = found_.find(key);
  if (it == found_.end() || (f.sev == Severity::kError && it->second.sev != Severity::kError))
    found_[key] = std::move(f);
}

void Checker::check(const Site& s, InstId at, const State& st) {
  if (!st.pending) return;
  const bool must = !st.clear;
  const std::string line = std::to_string(a_.ir.inst(s.inst).loc.line);
  const std::string why_some = "; some paths reach it with the operation complete (a loop's "
                               "first iteration, a guarded or unrelated wait), so it is not "
                               "certain";
  switch (s.cls) {
  case Cls::kCpAsync:
  case Cls::kBulk: {
    const Overlap o = overlap(s.region, access_[at], s.inst);
    if (o == Overlap::kDisjoint) return;
    const bool write = write_[at] == 1;
    const bool cp = s.cls == Cls::kCpAsync;
    std::string what = std::string(write ? "overwritten" : "read") + " here while the " +
                       (cp ? "cp.async" : "bulk copy") + " at line " + line +
                       " that writes it is still in flight: ";
    std::string cover = cp ? "no cp.async.wait_group/wait_all covers its commit group"
                           : "no mbarrier.try_wait/test_wait on its mbarrier has completed";
    if (o == Overlap::kDefinite && must) {
      note(at, s.cls,
           {s.inst, Severity::kError, "shared memory " + what + cover + " on any path", true});
    } else if (o == Overlap::kDefinite) {
      note(at, s.cls,
           {s.inst, Severity::kWarning,
            "shared memory " + what + cover + " on some paths" + why_some, false});
    } else if (must && !st.waited) {
      undecided(s.cls, s.inst, at,
                "shared memory that may be the destination is " + what + cover +
                    " on any path, and no wait ran since the copy; the addresses are not "
                    "comparable (computed offsets, or another thread's part), so the overlap is "
                    "undecided");
    }
    return;
  }
  case Cls::kWgmma: {
    bool reads = false, writes = false;
    std::string reg;
    for (const Mention* m = a_.ir.mentions_begin(at); m != a_.ir.mentions_end(at); ++m)
      if (std::binary_search(s.acc.begin(), s.acc.end(), m->reg)) {
        (m->is_def ? writes : reads) = true;
        if (reg.empty()) reg = a_.ir.reg_name(m->reg);
      }
    std::string msg = "accumulator " + reg + " of the wgmma.mma_async at line " + line + " is " +
                      (reads ? "read" : "written") +
                      " before a wgmma.wait_group covers its group (wgmma.commit_group / "
                      "wait_group N leave the newest N groups in flight)";
    // nvcc -G spills every wgmma result to the stack straight away and leaves the wait to ptxas,
    // which injects one (its C7517 advisory) and serializes the pipeline: a warning in debug
    // builds, an error in optimized code.
    const bool debug = std::find(ctx_.module().targets.begin(), ctx_.module().targets.end(),
                                 "debug") != ctx_.module().targets.end();
    if (must && debug)
      note(at, s.cls,
           {s.inst, Severity::kWarning,
            msg + " on any path (a debug build: ptxas injects the wait and serializes)", false});
    else if (must)
      note(at, s.cls, {s.inst, Severity::kError, msg + " on any path", true});
    else
      note(at, s.cls, {s.inst, Severity::kWarning, msg + " on some paths" + why_some, false});
    (void)writes;
    return;
  }
  case Cls::kProxy: {
    const Instruction& in = a_.ir.inst(at);
    Overlap o = Overlap::kMay;
    if (in.op == Opcode::kCp) {
      std::vector<std::uint32_t> addr;
      for (std::uint32_t k = 0; k < in.operands.size(); ++k)
        if (in.operands[k].kind == OperandKind::kAddress) addr.push_back(k);
      std::uint32_t w = 0;
      if (!has(in, Mod::kTensor) && addr.size() >= 2 && in.operands.size() > addr[1] + 1 &&
          in.operands[addr[1] + 1].kind == OperandKind::kImmInt)
        w = static_cast<std::uint32_t>(in.operands[addr[1] + 1].int_value());
      Region src = region_of(at, addr[1], w);
      src.shared = true;
      o = overlap(s.region, src, s.inst);
      if (o == Overlap::kDisjoint) return;
    }
    std::string msg = "shared memory the generic proxy wrote at line " + line +
                      " is read here by the async proxy without a fence.proxy.async in between";
    if (o == Overlap::kDefinite && must)
      note(at, s.cls, {s.inst, Severity::kError, msg + " on any path", true});
    else if (o == Overlap::kDefinite)
      note(at, s.cls, {s.inst, Severity::kWarning, msg + " on some paths" + why_some, false});
    else if (must)
      undecided(s.cls, s.inst, at,
                msg + " on any path; the addresses are not comparable (a descriptor, computed "
                      "offsets or another thread's part), so the overlap is undecided");
    return;
  }
  }
}

void Checker::run() {
  classify();
  ctx_.add_sites(static_cast<std::uint32_t>(sites_.size()));
  for (const Site& s : sites_)
    solve(s);
  for (const auto& [c, entry] : undecided_) {
    const auto& [site, u] = entry;
    if (found_.count({u.at, c})) continue;
    std::string msg = u.msg;
    if (u.count > 1)
      msg += " (" + std::to_string(u.count - 1) + " more such pairs in this function)";
    ctx_.report(u.at, msg, Severity::kWarning)
        .relate(site, static_cast<Cls>(c) == Cls::kProxy ? "the generic-proxy store"
                                                         : "the copy that writes it");
  }
  for (const auto& [key, f] : found_) {
    auto r = ctx_.report(key.first, f.msg, f.sev);
    const Cls c = static_cast<Cls>(key.second);
    r.relate(f.site, c == Cls::kProxy   ? "the generic-proxy store"
                     : c == Cls::kWgmma ? "the asynchronous wgmma that writes the accumulator"
                     : c == Cls::kBulk  ? "the bulk copy that writes it (completes on an mbarrier)"
                                        : "the cp.async that writes it");
  }
}

class AsyncCopyProtocolRule final : public Rule {
public:
  std::string_view summary() const override {
    return "data of cp.async, a bulk/TMA copy or wgmma used before the wait that covers it, or "
           "generic stores read by the async proxy without fence.proxy.async";
  }
  void check(RuleContext& ctx) const override { Checker(ctx).run(); }
};

} // namespace

std::unique_ptr<Rule> make_async_copy_protocol_rule() {
  return std::make_unique<AsyncCopyProtocolRule>();
}

} // namespace ptxkit::verifier
