// replay_split.cpp: replaying two threads that disagree on reaching a collective
// (replay_split.h).
#include "ptxkit/verifier/interp/replay_split.h"

#include <algorithm>

namespace ptxkit::verifier::interp {

namespace {

std::uint64_t block_threads(const ThreadLaunch& l) {
  return std::uint64_t{l.ntid[0]} * l.ntid[1] * l.ntid[2];
}

// The launch of the thread with linear id `lin` (x fastest; a 1-D block when the shape is
// unknown).
ThreadLaunch thread_at(const ThreadLaunch& base, std::uint64_t lin) {
  ThreadLaunch l = base;
  if (!base.block_known) {
    l.tid = {static_cast<std::uint32_t>(lin), 0, 0};
    return l;
  }
  const std::uint64_t nx = base.ntid[0], ny = base.ntid[1];
  l.tid = {static_cast<std::uint32_t>(lin % nx), static_cast<std::uint32_t>(lin / nx % ny),
           static_cast<std::uint32_t>(lin / (nx * ny))};
  return l;
}

std::string line_of(const Interpreter& in, InstId i) {
  return std::to_string(in.analysis().ir.inst(i).loc.line);
}

std::string ordinal(std::uint32_t k) {
  const char* suffix = k % 10 == 1 && k % 100 != 11   ? "st"
                       : k % 10 == 2 && k % 100 != 12 ? "nd"
                       : k % 10 == 3 && k % 100 != 13 ? "rd"
                                                      : "th";
  return std::to_string(k) + suffix;
}

// The executions of `inst` a run saw, and whether that is all of them (the thread stopped
// short of another: it exited or can no longer reach it).
struct Count {
  std::uint32_t n = 0;
  bool exact = false;
};

Count count_of(const RunResult& r, InstId inst) {
  Count c;
  c.n = static_cast<std::uint32_t>(std::count(r.events.begin(), r.events.end(), inst));
  if (r.stop == Stop::kReached) ++c.n; // the target's last execution stops the run first
  c.exact = r.stop == Stop::kExited || r.stop == Stop::kMissed;
  return c;
}

// The unstated scalar parameter whose load made a run undecided, or "".
std::string unstated_parameter(const Interpreter& in, const ThreadLaunch& l, InstId from) {
  if (from == kNoId || from >= in.analysis().ir.size()) return "";
  const Instruction& inst = in.analysis().ir.inst(from);
  if (inst.op != isa::Opcode::kLd || !inst.has_modifier("param") || inst.operands.size() != 2)
    return "";
  const Operand& dst = inst.operands[0];
  const Operand& src = inst.operands[1];
  if (dst.kind == OperandKind::kVector || src.kind != OperandKind::kAddress ||
      src.address_offset() != 0)
    return "";
  const std::string name(src.text());
  // Only the function's own parameters (not a callee's `retval0` read back after a call).
  bool own = false;
  for (const VarDecl& p : in.analysis().ir.function().params)
    own = own || p.name == name;
  return !own || l.params.contains(name) ? "" : name;
}

// The barrier id a watched bar/barrier instruction arrives at (operand 1 of `.red`, else 0),
// nullopt when it is not an immediate (it then matches any id).
std::optional<std::uint64_t> barrier_id(const Interpreter& in, InstId i) {
  const Instruction& inst = in.analysis().ir.inst(i);
  const std::size_t k = inst.has_modifier("red") ? 1 : 0;
  if (k >= inst.operands.size() || inst.operands[k].kind != OperandKind::kImmInt)
    return std::nullopt;
  return inst.operands[k].bits;
}

struct Search {
  const Interpreter& in;
  bool cta_wide;
  InstId inst;
  const SplitOptions& opt;
  std::uint32_t runs_left;
  bool steer = false; // the last resort: undecided branches taken toward the collective

  // A run to the `occurrence`-th execution of the collective (stopping where it can no longer
  // reach it), or to the thread's exit (`to_exit`).
  RunResult run(const ThreadLaunch& l, std::uint32_t occurrence, bool to_exit) {
    if (runs_left > 0) --runs_left;
    RunOptions o;
    o.target = to_exit ? kNoId : inst;
    o.occurrence = occurrence;
    o.max_steps = opt.max_steps;
    o.stop_when_missed = !to_exit;
    o.steer = steer && !to_exit;
    o.watch = opt.watch;
    if (std::find(o.watch.begin(), o.watch.end(), inst) == o.watch.end()) o.watch.push_back(inst);
    return in.run(l, o);
  }

  // Why run `r` of thread `l` decided nothing, for a message.
  std::string undecided(const ThreadLaunch& l, const RunResult& r) const {
    if (r.stop == Stop::kStepLimit)
      return thread_name(l) + " did not get there within " + std::to_string(opt.max_steps) +
             " instructions";
    return "the way of " + thread_name(l) + " at line " + line_of(in, r.unknown_at) +
           " depends on " + in.describe_unknown(r.unknown_from);
  }

  // Threads of different warps: the barrier ids they arrive at disagree (a position where both
  // arrive at provably different ids, or one exited with fewer arrivals than the other made).
  bool ids_disagree(const RunResult& a, const RunResult& b) const {
    const std::size_t n = std::min(a.events.size(), b.events.size());
    for (std::size_t p = 0; p < n; ++p) {
      auto x = barrier_id(in, a.events[p]), y = barrier_id(in, b.events[p]);
      if (x && y && *x != *y) return true;
    }
    return (b.stop == Stop::kExited && a.events.size() > n) ||
           (a.stop == Stop::kExited && b.events.size() > n);
  }

  struct Seen {
    const ThreadLaunch* l;
    RunResult r;
    Count c;
  };

  // The pair of `seen` that disagrees soonest: lanes of one warp by the executions of the
  // collective, threads of different warps by their barrier ids; (arrives, skips).
  std::optional<std::pair<const Seen*, const Seen*>> pair_of(const std::vector<Seen>& seen,
                                                             bool across) const {
    std::optional<std::pair<const Seen*, const Seen*>> best;
    for (const Seen& b : seen) {
      if (!b.c.exact || (best && b.c.n >= best->second->c.n)) continue;
      for (const Seen& a : seen)
        if (a.c.n > b.c.n && (!across || ids_disagree(a.r, b.r))) {
          best.emplace(&a, &b);
          break;
        }
    }
    return best;
  }

  // Lanes of one warp that reach the same dynamic instance of a branch (its k-th execution in
  // both) and decide it differently (neither steered there), after which `a` executes the
  // collective by branches it decides, before the branch's reconvergence point (its immediate
  // post-dominator), and `b` reaches that point without executing it: at that branch one lane
  // arrives and the other does not (what the counts miss when `b` keeps looping round a barrier
  // it always skips). The branch is the last one `a` decides on its way. On success `b_at` /
  // `b_join`: the branch and the position in b's path of its first instruction at the join.
  bool splits_at_branch(const RunResult& a, const RunResult& b, InstId& b_at,
                        std::size_t& b_join) const {
    if (a.stop != Stop::kReached || a.path.size() < 2 || a.path.back() != inst) return false;
    const auto& fa = in.analysis();
    auto control = [&](InstId i) { return fa.ir.info(i).control != analysis::ControlKind::kNone; };
    auto steered = [](const RunResult& r, InstId i) {
      return std::find(r.steered.begin(), r.steered.end(), i) != r.steered.end();
    };
    // The last control instruction on a's way, and a's way after it free of steered ones.
    std::size_t q = a.path.size() - 1;
    while (q > 0 && !control(a.path[q - 1]))
      --q;
    if (q == 0) return false;
    const InstId d = a.path[q - 1];
    if (steered(a, d) || steered(b, d)) return false;
    const auto nth = std::count(a.path.begin(), a.path.begin() + static_cast<std::ptrdiff_t>(q), d);
    const auto kind = fa.ir.info(d).control;
    if (kind == analysis::ControlKind::kReturn || kind == analysis::ControlKind::kExit) {
      // A guarded exit: `a` went on past it, `b` left the function there (its last step).
      if (b.stop != Stop::kExited || b.path.empty() || b.path.back() != d ||
          std::count(b.path.begin(), b.path.end(), d) != nth)
        return false;
      b_at = d;
      b_join = b.path.size() - 1;
      return true;
    }
    const analysis::BlockId from = fa.cfg.block_of(d);
    if (!fa.pdom.in_tree(from)) return false;
    const std::uint32_t join = fa.pdom.idom(from);
    auto at_join = [&](InstId i) { return join < fa.cfg.size() && fa.cfg.block_of(i) == join; };
    for (std::size_t k = q; k < a.path.size(); ++k)
      if (at_join(a.path[k])) return false;
    // b at the same execution of d.
    std::ptrdiff_t seen = 0;
    std::size_t qb = 0;
    for (; qb < b.path.size(); ++qb)
      if (b.path[qb] == d && ++seen == nth) break;
    if (qb >= b.path.size()) return false;
    b_at = d;
    if (qb + 1 == b.path.size() && b.stop == Stop::kMissed) // it left for code that cannot reach it
      return b_join = qb, true;
    if (qb + 1 >= b.path.size() || b.path[qb + 1] == a.path[q]) return false;
    for (std::size_t k = qb + 1; k < b.path.size(); ++k) {
      if (b.path[k] == inst) return false;
      if (at_join(b.path[k])) return b_join = k, true;
    }
    b_join = b.path.size() - 1;
    return join >= fa.cfg.size() && b.stop == Stop::kExited; // the join is the function's exit
  }

  SplitReplay search(const ThreadLaunch& launch, int depth) {
    SplitReplay out;
    out.launch = launch;
    std::string param; // the first unstated parameter that left a thread undecided
    for (const SplitGroup& group : split_candidates(launch, cta_wide)) {
      std::vector<Seen> seen;
      for (const ThreadLaunch& l : group.threads) {
        if (runs_left == 0) {
          if (out.why.empty()) out.why = "the replay ran out of its budget of thread runs";
          return out;
        }
        RunResult r = run(l, opt.max_occurrence, group.across_warps);
        Count c = count_of(r, inst);
        if (group.across_warps) c.exact = r.stop == Stop::kExited;
        if (!c.exact && r.stop != Stop::kReached) {
          if (out.why.empty()) out.why = undecided(l, r);
          if (param.empty() && r.stop == Stop::kInconclusive)
            param = unstated_parameter(in, l, r.unknown_from);
        }
        seen.push_back({&l, std::move(r), c});
      }
      // Steered runs are compared only where they split: by counts, the arriving thread's way
      // could be the steered one.
      auto p = steer ? std::nullopt : pair_of(seen, group.across_warps);
      if (!p && !group.across_warps) {
        // The first execution of each lane that reached it, against the others' runs.
        InstId at = kNoId;
        std::size_t join = 0;
        for (const Seen& a : seen) {
          if (a.c.n == 0) continue;
          RunResult first = run(*a.l, 1, false);
          for (const Seen& b : seen)
            if (&b != &a && b.c.n < opt.max_occurrence && splits_at_branch(first, b.r, at, join)) {
              out.verdict = Verdict::kConfirmed;
              out.occurrence = 1;
              out.arrives = ThreadRun{*a.l, Arrival::kArrives, std::move(first)};
              ThreadRun skip{*b.l, Arrival::kSkips, b.r};
              skip.run.path.resize(join + 1); // up to the join
              skip.split_at = at;
              skip.rejoins = skip.run.path.back();
              out.skips = std::move(skip);
              out.why.clear();
              return out;
            }
          break; // one arriving lane is enough to compare with
        }
      }
      if (!p) continue;
      out.verdict = Verdict::kConfirmed;
      out.across_warps = group.across_warps;
      out.occurrence = p->second->c.n + 1;
      // The arriving thread's path up to that execution; the other's as it ran.
      out.arrives =
          ThreadRun{*p->first->l, Arrival::kArrives, run(*p->first->l, out.occurrence, false)};
      out.skips = ThreadRun{*p->second->l, Arrival::kSkips, p->second->r};
      out.why.clear();
      return out;
    }
    if (!param.empty() && depth < 3) {
      std::string first_why; // with the first value tried: what stopped the replay further on
      for (std::int64_t v : {1, 32, 0, 1000}) {
        ThreadLaunch l = launch;
        l.params[param] = v;
        SplitReplay r = search(l, depth + 1);
        if (r.verdict == Verdict::kConfirmed) {
          r.chosen.insert(r.chosen.begin(), {param, v});
          return r;
        }
        if (first_why.empty())
          first_why = r.why + " (with parameter " + param + " = " + std::to_string(v) + ")";
        if (runs_left == 0) break;
      }
      out.why = first_why;
    }
    if (out.why.empty()) out.why = "no two of the threads replayed disagree on reaching it";
    return out;
  }
};

} // namespace

std::vector<SplitGroup> split_candidates(const ThreadLaunch& base, bool cta_wide) {
  std::vector<SplitGroup> groups;
  const std::uint64_t n = base.block_known ? block_threads(base) : 1024;
  auto lanes = [&](std::uint64_t first) {
    SplitGroup g;
    for (std::uint64_t l = first; l < std::min(first + 32, n); ++l)
      g.threads.push_back(thread_at(base, l));
    return g;
  };
  // The first 8 warps (a split on a warp boundary other than 32: `tid < 48`) and the last.
  const std::uint64_t last_warp = (n - 1) / 32 * 32;
  for (std::uint64_t w = 0; w < 8 && w * 32 <= last_warp; ++w)
    groups.push_back(lanes(w * 32));
  if (base.block_known && last_warp >= 8 * 32) groups.push_back(lanes(last_warp));
  if (cta_wide && n > 32) {
    // The first and last lane of each warp (at most 32 warps), and the block's last thread.
    SplitGroup g;
    g.across_warps = true;
    for (std::uint64_t w = 0; w * 32 < n && w < 32; ++w) {
      g.threads.push_back(thread_at(base, w * 32));
      if (w * 32 + 31 < n) g.threads.push_back(thread_at(base, w * 32 + 31));
    }
    if (base.block_known && n > 32 * 32) g.threads.push_back(thread_at(base, n - 1));
    groups.push_back(std::move(g));
  }
  return groups;
}

namespace {

// The launch shape undeclared: a 1-D block of whole warps (within .maxntid) and one block.
ThreadLaunch shaped_launch(const Interpreter& in, const ThreadLaunch& base) {
  ThreadLaunch shaped = base;
  if (!base.block_known) {
    std::uint64_t threads = 128;
    if (auto m = in.analysis().ir.function().maxntid())
      threads = std::min<std::uint64_t>(threads, std::uint64_t{(*m)[0]} * (*m)[1] * (*m)[2]);
    if (threads > 32) threads = threads / 32 * 32;
    shaped.ntid = {static_cast<std::uint32_t>(std::max<std::uint64_t>(threads, 1)), 1, 1};
    shaped.block_known = true;
  }
  if (!base.grid_known) {
    shaped.nctaid = {1, 1, 1};
    shaped.grid_known = true;
  }
  return shaped;
}

SplitReplay replay_split_stated(const Interpreter& in, const ThreadLaunch& base, bool cta_wide,
                                InstId inst, const SplitOptions& opt) {
  Search s{in, cta_wide, inst, opt, opt.max_runs};
  SplitReplay r = s.search(base, 0);
  if (r.verdict == Verdict::kConfirmed || (base.block_known && base.grid_known)) return r;
  const ThreadLaunch shaped = shaped_launch(in, base);
  SplitReplay r2 = s.search(shaped, 0);
  if (r2.verdict == Verdict::kConfirmed) r2.shape_chosen = true;
  return r2.verdict == Verdict::kConfirmed || r2.why.empty() ? r2 : r;
}

// The launch as stated (a chosen shape where it is not), then with the undecided branches
// steered toward the collective (interpreter.h): the threads' way to it may cross branches on
// loaded values (a sequence length read from memory); the thread that skips it leaves by a
// branch the replay decides, since steering never takes a thread away from a target it can
// still reach.
SplitReplay replay_split_steered(const Interpreter& in, const ThreadLaunch& base, bool cta_wide,
                                 InstId inst, const SplitOptions& opt) {
  SplitReplay r = replay_split_stated(in, base, cta_wide, inst, opt);
  if (r.verdict == Verdict::kConfirmed) return r;
  std::string steered_why;
  for (bool shape : {false, true}) {
    if (shape && base.block_known && base.grid_known) break;
    ThreadLaunch l = shape ? shaped_launch(in, base) : base;
    Search s{in, cta_wide, inst, opt, opt.max_runs, /*steer=*/true};
    SplitReplay st = s.search(l, 0);
    if (st.verdict != Verdict::kConfirmed) {
      steered_why = st.why;
      continue;
    }
    st.shape_chosen = shape;
    st.steered = true;
    return st;
  }
  if (!steered_why.empty() && steered_why != r.why)
    r.why += "; with the undecided branches steered toward it, " + steered_why;
  return r;
}

} // namespace

SplitReplay replay_split(const Interpreter& in, const ThreadLaunch& base, bool cta_wide,
                         InstId inst, const SplitOptions& opt) {
  return replay_split_steered(in, base, cta_wide, inst, opt);
}

std::string thread_name(const ThreadLaunch& l) {
  return "thread (" + std::to_string(l.tid[0]) + "," + std::to_string(l.tid[1]) + "," +
         std::to_string(l.tid[2]) + ")";
}

std::string arrival_text(const Interpreter& in, const ThreadRun& t, InstId inst,
                         std::uint32_t occurrence) {
  const auto& ir = in.analysis().ir;
  std::string out;
  const RunResult& r = t.run;
  const std::uint32_t before = occurrence - 1; // executions both threads share
  if (t.arrival == Arrival::kArrives) {
    out = "executes " + ir.inst(inst).full_opcode() + " at line " + line_of(in, inst);
    if (occurrence > 1) out += " for the " + ordinal(occurrence) + " time";
  } else if (t.rejoins != kNoId && t.rejoins == t.split_at) {
    out =
        t.run.stop == Stop::kExited
            ? "exits at line " + line_of(in, t.split_at) + " without executing it"
            : "branches away at line " + line_of(in, t.split_at) + " for code that cannot reach it";
  } else if (t.rejoins != kNoId) {
    out = "branches away at line " + line_of(in, t.split_at) + " and reaches line " +
          line_of(in, t.rejoins) + ", where the ways meet again, without executing it";
  } else {
    const InstId last = r.path.empty() ? inst : r.path.back();
    out = r.stop == Stop::kExited
              ? "exits at line " + line_of(in, last)
              : "leaves at line " + line_of(in, last) + " for code that cannot reach it";
    out += before == 0 ? " without executing it"
                       : " after executing it " + std::to_string(before) +
                             (before == 1 ? " time" : " times");
  }
  // The steered branches on the path shown (once each).
  std::string steered;
  std::vector<InstId> named;
  for (InstId b : r.steered) {
    if (std::find(named.begin(), named.end(), b) != named.end()) continue;
    if (std::find(r.path.begin(), r.path.end(), b) == r.path.end()) continue;
    named.push_back(b);
    steered += (steered.empty() ? "" : ", ") + line_of(in, b);
  }
  if (!steered.empty()) out += " (undecided branches at line " + steered + " taken toward it)";
  std::string lines;
  for (InstId e : r.events)
    if (e != inst &&
        (t.rejoins == kNoId || std::find(r.path.begin(), r.path.end(), e) != r.path.end()))
      lines += (lines.empty() ? "" : ", ") + line_of(in, e);
  if (!lines.empty()) out += " (other barriers passed: line " + lines + ")";
  return out;
}

} // namespace ptxkit::verifier::interp
