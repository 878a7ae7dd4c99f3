// function_analysis.h: every analysis of one function, built once and shared by all rules.
//
// Why: rules must not rebuild the CFG or SSA each; and the order of construction (IR -> CFG ->
// dominators -> loops -> liveness -> values -> uniformity) is a dependency chain best kept in
// one place.
#pragma once

#include "ptxkit/verifier/analysis/cfg.h"
#include "ptxkit/verifier/analysis/dominators.h"
#include "ptxkit/verifier/analysis/flat_lists.h"
#include "ptxkit/verifier/analysis/function_ir.h"
#include "ptxkit/verifier/analysis/liveness.h"
#include "ptxkit/verifier/analysis/loops.h"
#include "ptxkit/verifier/analysis/uniformity.h"
#include "ptxkit/verifier/analysis/value_numbering.h"

#include <memory>
#include <optional>

namespace ptxkit::verifier::analysis {

class AddressProvenance;
class WarpDivergence;

struct FunctionAnalysis {
  explicit FunctionAnalysis(const Function& fn);
  FunctionAnalysis(const FunctionAnalysis&) = delete;
  FunctionAnalysis& operator=(const FunctionAnalysis&) = delete;
  ~FunctionAnalysis();

  // The address provenance and value ranges of this function (address_provenance.h), built on
  // the first request and shared by every rule and analysis that asks: it is the costliest
  // fixpoint, and several rules need it.
  const AddressProvenance& provenance(const Module& m) const;
  // The warp divergence (divergence_cause.h) at warp level or, `thread_level`, for CTA-wide
  // barriers, without extra assumptions: built on first request and shared by the rules.
  const WarpDivergence& divergence(const Module& m, bool thread_level) const;
  // The same for warpgroups (wgmma's 128 threads), built on first request.
  const WarpDivergence& warpgroup_divergence(const Module& m) const;
  // The def-use graphs the divergence analyses walk (what reads each value), built on first
  // request and shared by the warp-, CTA- and warpgroup-level analyses: on a function of a
  // million values each build costs as much as a round of the analysis itself.
  const FlatLists<std::uint32_t>& divergence_users() const; // WarpDivergence's
  const FlatLists<std::uint32_t>& warp_bit_users() const;   // WarpBits'

  FunctionIR ir;
  Cfg cfg;
  DominatorTree dom;
  DominatorTree pdom; // node cfg.size() is the virtual exit
  // (Register liveness is built only to place SSA phis, and dropped after.)
  LoopInfo loops;
  ValueNumbering values;
  Uniformity uniformity;       // across the lanes of a warp (shuffles, votes, warp collectives)
  Uniformity block_uniformity; // across the threads of a CTA (bar.sync and CTA barriers)

private:
  mutable std::unique_ptr<AddressProvenance> provenance_;
  mutable std::unique_ptr<WarpDivergence> warp_divergence_, thread_divergence_,
      warpgroup_divergence_;
  mutable std::unique_ptr<FlatLists<std::uint32_t>> divergence_users_, warp_bit_users_;
};

// The predicate the conditional edge from -> to tests (the guard of from's terminator: a branch
// with one target, or a guarded ret/exit whose fall-through is `to`) and whether it holds on that
// edge; nullopt when the edge is not decided by a predicate.
std::optional<std::pair<ValueId, bool>> edge_guard(const FunctionAnalysis& a, BlockId from,
                                                   BlockId to);

} // namespace ptxkit::verifier::analysis
