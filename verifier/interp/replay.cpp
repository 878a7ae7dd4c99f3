// replay.cpp: replaying witnesses with the interpreter (replay.h).
#include "ptxkit/verifier/interp/replay.h"

#include <algorithm>
#include <unordered_set>

namespace ptxkit::verifier::interp {

ThreadLaunch stated_launch(const Function& fn, const KernelContract* contract,
                           std::array<std::uint32_t, 3> tid, std::array<std::uint32_t, 3> ctaid) {
  ThreadLaunch l;
  l.tid = tid;
  l.ctaid = ctaid;
  std::optional<std::array<std::uint32_t, 3>> block = contract ? contract->block : std::nullopt;
  if (!block) block = fn.reqntid();
  l.block_known = block.has_value();
  if (block) l.ntid = *block;
  l.grid_known = contract && contract->grid;
  if (l.grid_known) l.nctaid = *contract->grid;
  if (contract)
    for (const ScalarContract& s : contract->scalars)
      l.params[s.param] = s.value;
  return l;
}

std::int64_t offset_into(const Interpreter& in, const EffectiveAddress& ea, const VarDecl& var) {
  const std::uint64_t start = in.shared_offset(&var).value_or(0);
  if (ea.space == StateSpace::kShared) // a 32-bit window: wrap-around below 0 is negative
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(ea.shared_offset - start));
  return static_cast<std::int64_t>(ea.address - kSharedWindow - start);
}

namespace {

std::string line_of(const Interpreter& in, InstId i) {
  return "line " + std::to_string(in.analysis().ir.inst(i).loc.line);
}

std::string bytes_text(std::int64_t off, std::uint32_t width) {
  return "bytes " + std::to_string(off) + ".." + std::to_string(off + width - 1);
}

} // namespace

Replay replay_shared_out_of_bounds(const Interpreter& in, const ThreadLaunch& launch, InstId inst,
                                   const VarDecl& var) {
  Replay out;
  RunOptions opt;
  opt.target = inst;
  opt.steer = true;
  out.run = in.run(launch, opt);
  const RunResult& r = out.run;
  switch (r.stop) {
  case Stop::kExited:
  case Stop::kMissed: // not asked for (RunOptions::stop_when_missed)
    out.verdict = Verdict::kContradicted;
    out.why = "the thread exits without executing the access";
    return out;
  case Stop::kStepLimit:
    out.why = "the thread did not reach the access within " +
              std::to_string(RunOptions{}.max_steps) + " instructions";
    return out;
  case Stop::kInconclusive:
    out.why = (r.unknown_at == inst
                   ? "its address depends on "
                   : "the way to the access at " + line_of(in, r.unknown_at) + " depends on ") +
              in.describe_unknown(r.unknown_from);
    return out;
  case Stop::kReached:
    break;
  }
  if (!r.access || !r.access->known) {
    out.why = "the access has no address the interpreter can compute";
    return out;
  }
  const std::int64_t off = offset_into(in, *r.access, var);
  const auto size = static_cast<std::int64_t>(var.size_in_bytes());
  const bool outside = off < 0 || off + static_cast<std::int64_t>(r.access->width) > size;
  out.verdict = outside ? Verdict::kConfirmed : Verdict::kContradicted;
  if (!outside)
    out.why = "the interpreter puts the access at " + bytes_text(off, r.access->width) + " of " +
              std::string(var.name) + ", inside it";
  return out;
}

Replay replay_undefined_read(const Interpreter& in, const ThreadLaunch& launch, InstId inst,
                             analysis::RegId reg) {
  Replay out;
  RunOptions opt;
  opt.target = inst;
  opt.steer = true;
  out.run = in.run(launch, opt);
  const RunResult& r = out.run;
  const auto& ir = in.analysis().ir;
  switch (r.stop) {
  case Stop::kExited:
  case Stop::kMissed:
    out.verdict = Verdict::kContradicted;
    out.why = "the thread exits without executing the read";
    return out;
  case Stop::kStepLimit:
    out.why = "the thread did not reach the read within " + std::to_string(RunOptions{}.max_steps) +
              " instructions";
    return out;
  case Stop::kInconclusive:
    // At the read itself, an address the interpreter cannot compute (the undefined register
    // may be it): the read is reached, which is all this replay needs.
    if (r.unknown_at == inst && r.access) break;
    out.why = "the way to the read at " + line_of(in, r.unknown_at) + " depends on " +
              in.describe_unknown(r.unknown_from);
    return out;
  case Stop::kReached:
    break;
  }
  const Written w = reg < r.written.size() ? r.written[reg] : Written::kYes;
  if (w == Written::kNever) {
    out.verdict = Verdict::kConfirmed;
    return out;
  }
  // The last instruction on the path that names the register as a destination.
  InstId writer = kNoId;
  for (InstId i : r.path)
    for (const analysis::Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
      if (m->is_def && m->reg == reg && i != inst) writer = i;
  const std::string where = writer == kNoId ? "" : " at " + line_of(in, writer);
  if (w == Written::kMaybe) {
    out.why = "a write of " + ir.reg_name(reg) + where + " on its path has an undecided guard";
    return out;
  }
  out.verdict = Verdict::kContradicted;
  out.why = "the interpreter's path writes " + ir.reg_name(reg) + where + " before the read";
  return out;
}

std::vector<InstId> witness_path(const RunResult& run, std::size_t max) {
  std::vector<InstId> out;
  std::unordered_set<InstId> seen;
  for (InstId i : run.path)
    if (seen.insert(i).second) out.push_back(i);
  if (!run.path.empty() && out.back() != run.path.back()) out.push_back(run.path.back());
  if (out.size() > max) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(max));
  return out;
}

std::string steered_text(const Interpreter& in, const RunResult& run) {
  if (run.steered.empty()) return "";
  std::string lines;
  for (InstId i : run.steered)
    lines += (lines.empty() ? "" : ", ") + std::to_string(in.analysis().ir.inst(i).loc.line);
  return "undecided branches at line " + lines + " taken toward the access";
}

} // namespace ptxkit::verifier::interp
