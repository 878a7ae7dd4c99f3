// liveness.cpp: per-block gen/kill sets from FunctionIR's mentions, then solve_backward.
#include "ptxkit/verifier/analysis/liveness.h"

namespace ptxkit::verifier::analysis {

Liveness::Liveness(const Cfg& cfg) {
  const FunctionIR& ir = cfg.ir();
  Analysis a;
  a.num_regs = ir.num_regs();
  a.gen.assign(cfg.size(), DenseBitset(a.num_regs));
  a.kill.assign(cfg.size(), DenseBitset(a.num_regs));
  for (BlockId b = 0; b < cfg.size(); ++b) {
    const BasicBlock& bb = cfg.block(b);
    for (InstId i = bb.begin; i < bb.end; ++i) {
      const InstInfo& info = ir.info(i);
      if (info.guard != kNoId && !a.kill[b].test(info.guard)) a.gen[b].set(info.guard);
      // A guarded write reads the old value too: on the false path it is what remains.
      for (const Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
        if ((!m->is_def || info.guard != kNoId) && !a.kill[b].test(m->reg)) a.gen[b].set(m->reg);
      if (info.guard != kNoId) continue;
      for (const Mention* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
        if (m->is_def) a.kill[b].set(m->reg);
    }
  }
  result_ = solve_backward(cfg, a);
}

} // namespace ptxkit::verifier::analysis
