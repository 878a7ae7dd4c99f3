// solver.h: the dataflow framework: lattice requirements and worklist solvers, apart from any
// particular analysis (in the manner of MLIR's DataFlowSolver).
//
// Why separate: each analysis then only states its lattice and transfer function; iteration
// order, termination and the monotonicity check live here once.
//
// A lattice value L must offer
//   bool join(const L& other);      // this = this ⊔ other; returns whether this changed
//   bool operator==(const L&) const;
//   void print(std::ostream&) const;
// A dense (per-block) analysis A offers
//   using State = L;
//   State boundary() const;                       // state at the entry (forward) / exit (backward)
//   State bottom() const;                         // the least element, start of every block
//   void transfer(BlockId b, const State& in, State& out) const;  // in -> out along b's direction
// Joins are asserted monotone in debug builds: a block's new state must be ⊒ its previous one.
//
// A sparse (per-value) analysis, such as lane uniformity, propagates along def-use edges with
// SparseWorklist below.
#pragma once

#include "ptxkit/verifier/analysis/bitset.h"
#include "ptxkit/verifier/analysis/cfg.h"

#include <cassert>
#include <cstdint>
#include <deque>
#include <ostream>
#include <vector>

namespace ptxkit::verifier::analysis {

// Set-of-ids lattice ordered by inclusion (join = union): liveness, may-reach.
struct UnionBitset {
  DenseBitset bits;
  bool join(const UnionBitset& o) { return bits.union_with(o.bits); }
  bool operator==(const UnionBitset& o) const { return bits == o.bits; }
  void print(std::ostream& os) const { bits.print(os); }
};

// Set-of-ids lattice ordered by reverse inclusion (join = intersection): must-facts. Its bottom
// is the full set.
struct IntersectBitset {
  DenseBitset bits;
  bool join(const IntersectBitset& o) { return bits.intersect_with(o.bits); }
  bool operator==(const IntersectBitset& o) const { return bits == o.bits; }
  void print(std::ostream& os) const { bits.print(os); }
};

template <class State>
struct DenseResult {
  std::vector<State> in;  // at block entry
  std::vector<State> out; // at block exit
};

namespace detail {
template <class State>
void assert_monotone([[maybe_unused]] const State& before, [[maybe_unused]] const State& after) {
#ifndef NDEBUG
  State joined = after;
  assert(!joined.join(before) && "dataflow transfer is not monotone");
#endif
}
} // namespace detail

// Forward: in[b] = boundary (entry) or ⊔ out[p]; out[b] = transfer(in[b]).
template <class A>
DenseResult<typename A::State> solve_forward(const Cfg& cfg, const A& analysis) {
  using State = typename A::State;
  DenseResult<State> r;
  r.in.assign(cfg.size(), analysis.bottom());
  r.out.assign(cfg.size(), analysis.bottom());
  std::vector<char> queued(cfg.size(), 0);
  std::deque<BlockId> work;
  for (BlockId b : cfg.rpo()) {
    work.push_back(b);
    queued[b] = 1;
  }
  while (!work.empty()) {
    BlockId b = work.front();
    work.pop_front();
    queued[b] = 0;
    State in = b == cfg.entry() ? analysis.boundary() : analysis.bottom();
    for (BlockId p : cfg.block(b).preds)
      if (cfg.reachable(p)) in.join(r.out[p]);
    State out = analysis.bottom();
    analysis.transfer(b, in, out);
    r.in[b] = std::move(in);
    if (out == r.out[b]) continue;
    detail::assert_monotone(r.out[b], out);
    r.out[b] = std::move(out);
    for (BlockId s : cfg.block(b).succs)
      if (!queued[s]) {
        queued[s] = 1;
        work.push_back(s);
      }
  }
  return r;
}

// Backward: out[b] = boundary (exit blocks) ⊔ in[s]; in[b] = transfer(out[b]).
template <class A>
DenseResult<typename A::State> solve_backward(const Cfg& cfg, const A& analysis) {
  using State = typename A::State;
  DenseResult<State> r;
  r.in.assign(cfg.size(), analysis.bottom());
  r.out.assign(cfg.size(), analysis.bottom());
  std::vector<char> queued(cfg.size(), 0);
  std::deque<BlockId> work;
  for (auto it = cfg.rpo().rbegin(); it != cfg.rpo().rend(); ++it) {
    work.push_back(*it);
    queued[*it] = 1;
  }
  while (!work.empty()) {
    BlockId b = work.front();
    work.pop_front();
    queued[b] = 0;
    State out = analysis.bottom();
    if (cfg.block(b).exits) out.join(analysis.boundary());
    for (BlockId s : cfg.block(b).succs)
      out.join(r.in[s]);
    State in = analysis.bottom();
    analysis.transfer(b, out, in);
    r.out[b] = std::move(out);
    if (in == r.in[b]) continue;
    detail::assert_monotone(r.in[b], in);
    r.in[b] = std::move(in);
    for (BlockId p : cfg.block(b).preds)
      if (!queued[p] && cfg.reachable(p)) {
        queued[p] = 1;
        work.push_back(p);
      }
  }
  return r;
}

// Worklist for sparse analyses: each id is queued at most once at a time.
class SparseWorklist {
public:
  explicit SparseWorklist(std::uint32_t n) : queued_(n, 0) {}
  void push(std::uint32_t id) {
    if (!queued_[id]) {
      queued_[id] = 1;
      work_.push_back(id);
    }
  }
  bool empty() const { return work_.empty(); }
  std::uint32_t pop() {
    std::uint32_t id = work_.back();
    work_.pop_back();
    queued_[id] = 0;
    return id;
  }

private:
  std::vector<char> queued_;
  std::vector<std::uint32_t> work_;
};

} // namespace ptxkit::verifier::analysis
