// function_analysis.cpp: builds a function's analyses in dependency order, and the address
// provenance on first request (function_analysis.h).
#include "ptxkit/verifier/analysis/function_analysis.h"

#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/divergence_cause.h"
#include "ptxkit/verifier/analysis/warp_bits.h"

namespace ptxkit::verifier::analysis {

FunctionAnalysis::FunctionAnalysis(const Function& fn)
    : ir(fn), cfg(ir), dom(dominators(cfg)), pdom(post_dominators(cfg)), loops(cfg, dom),
      values(cfg, dom, Liveness(cfg)), uniformity(values, pdom, loops),
      block_uniformity(values, pdom, loops, UniformityScope::kBlock) {}

FunctionAnalysis::~FunctionAnalysis() = default;

const AddressProvenance& FunctionAnalysis::provenance(const Module& m) const {
  if (!provenance_) provenance_ = std::make_unique<AddressProvenance>(m, *this);
  return *provenance_;
}

const WarpDivergence& FunctionAnalysis::divergence(const Module& m, bool thread_level) const {
  auto& slot = thread_level ? thread_divergence_ : warp_divergence_;
  if (!slot) slot = std::make_unique<WarpDivergence>(m, *this, thread_level);
  return *slot;
}

const WarpDivergence& FunctionAnalysis::warpgroup_divergence(const Module& m) const {
  if (!warpgroup_divergence_)
    warpgroup_divergence_ =
        std::make_unique<WarpDivergence>(m, *this, WarpDivergence::WarpgroupScope{});
  return *warpgroup_divergence_;
}

const FlatLists<std::uint32_t>& FunctionAnalysis::divergence_users() const {
  if (!divergence_users_)
    divergence_users_ =
        std::make_unique<FlatLists<std::uint32_t>>(WarpDivergence::build_users(*this));
  return *divergence_users_;
}

const FlatLists<std::uint32_t>& FunctionAnalysis::warp_bit_users() const {
  if (!warp_bit_users_)
    warp_bit_users_ = std::make_unique<FlatLists<std::uint32_t>>(WarpBits::build_users(*this));
  return *warp_bit_users_;
}

std::optional<std::pair<ValueId, bool>> edge_guard(const FunctionAnalysis& a, BlockId from,
                                                   BlockId to) {
  const Cfg& cfg = a.cfg;
  const FunctionIR& ir = a.ir;
  const InstId t = cfg.terminator(from);
  if (t == kNoId) return std::nullopt;
  const InstInfo& ti = ir.info(t);
  if (ti.guard == kNoId) return std::nullopt;
  const BlockId fall = t + 1 < ir.size() ? cfg.block_of(t + 1) : kNoId;
  bool holds = false;
  if (ti.control == ControlKind::kBranch && ti.target_end == ti.target_begin + 1) {
    const InstId tgt = *ir.targets_begin(t);
    const BlockId tb = tgt < ir.size() ? cfg.block_of(tgt) : kNoId;
    if (tb == fall || (to != tb && to != fall)) return std::nullopt;
    holds = (to == tb) != ti.guard_negated;
  } else if ((ti.control == ControlKind::kReturn || ti.control == ControlKind::kExit) &&
             to == fall) {
    holds = ti.guard_negated;
  } else {
    return std::nullopt;
  }
  return std::make_pair(a.values.guard_value(t), holds);
}

} // namespace ptxkit::verifier::analysis
