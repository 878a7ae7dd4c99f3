// liveness.h: live registers at block boundaries (a dense backward analysis on solver.h).
//
// Why: SSA construction only places a phi for a register where it is live (pruned SSA), which
// keeps the value graph small on big kernels and keeps dead merges out of the rules' way.
//
// Lattice: sets of RegIds, join = union. Transfer of a block, backward:
//   in = uses-before-def(b) ∪ (out − kills(b))
// where kills(b) are the registers written by an unguarded instruction of b. A guarded write
// (`@p mov %r1, ...`) is a may-def: it does not kill, since on the false path the old value
// survives. Boundary (after ret/exit): nothing is live.
#pragma once

#include "ptxkit/verifier/analysis/bitset.h"
#include "ptxkit/verifier/analysis/cfg.h"
#include "ptxkit/verifier/analysis/solver.h"

#include <vector>

namespace ptxkit::verifier::analysis {

class Liveness {
public:
  explicit Liveness(const Cfg& cfg);
  const DenseBitset& live_in(BlockId b) const { return result_.in[b].bits; }
  const DenseBitset& live_out(BlockId b) const { return result_.out[b].bits; }

  // The analysis as the solver sees it.
  struct Analysis {
    using State = UnionBitset;
    std::uint32_t num_regs;
    std::vector<DenseBitset> gen, kill;
    State boundary() const { return {DenseBitset(num_regs)}; }
    State bottom() const { return {DenseBitset(num_regs)}; }
    void transfer(BlockId b, const State& out, State& in) const {
      in.bits = out.bits;
      in.bits.subtract(kill[b]);
      in.bits.union_with(gen[b]);
    }
  };

private:
  DenseResult<UnionBitset> result_;
};

} // namespace ptxkit::verifier::analysis
