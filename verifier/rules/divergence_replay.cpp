// divergence_replay.cpp: replaying a divergence error's witness (divergence_replay_p.h).
#include "divergence_replay_p.h"
#include "ptxkit/verifier/interp/replay_split.h"

namespace ptxkit::verifier {

namespace {

// The CTA barriers a thread may pass (bar/barrier but bar.warp.sync): logged on the way.
std::vector<analysis::InstId> cta_barriers(const analysis::FunctionAnalysis& a) {
  std::vector<analysis::InstId> out;
  for (analysis::InstId i = 0; i < a.ir.size(); ++i) {
    const Instruction& inst = a.ir.inst(i);
    if ((inst.op == Opcode::kBar || inst.op == Opcode::kBarrier) && !inst.has_modifier("warp"))
      out.push_back(i);
  }
  return out;
}

} // namespace

void replay_divergence(RuleContext& ctx, RuleContext::Reported& f, analysis::InstId i,
                       bool cta_wide) {
  if (f.severity() != Severity::kError) return;
  const interp::Interpreter in(ctx.module(), ctx.analysis());
  const interp::ThreadLaunch base =
      interp::stated_launch(ctx.function(), ctx.contract(), {0, 0, 0}, {0, 0, 0});
  interp::SplitOptions opt;
  opt.watch = cta_barriers(ctx.analysis());
  const interp::SplitReplay r = interp::replay_split(in, base, cta_wide, i, opt);
  if (r.verdict != interp::Verdict::kConfirmed) {
    f.assuming("the threads really take different ways here, which the interpreter could not "
               "replay: " +
                   r.why,
               "state the launch and the parameters with --contract or --block-dim (or .reqntid)");
    return;
  }
  Witness w;
  if (r.launch.block_known) w.block_dim = r.launch.ntid;
  for (const interp::ThreadRun* t : {&*r.arrives, &*r.skips})
    w.threads.push_back(
        {t->launch.tid, t->launch.ctaid, interp::arrival_text(in, *t, i, r.occurrence)});
  for (const auto& [name, value] : r.chosen)
    w.values.emplace_back(name, value);
  if (r.shape_chosen && !base.grid_known)
    for (int k = 0; k < 3; ++k)
      w.values.emplace_back(std::string("gridDim.") + "xyz"[k],
                            static_cast<std::int64_t>(r.launch.nctaid[k]));
  for (analysis::InstId s : interp::witness_path(r.arrives->run))
    w.path.push_back(f.step(s));
  f.witness(std::move(w));
}

} // namespace ptxkit::verifier
