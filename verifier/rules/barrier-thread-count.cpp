// barrier-thread-count.cpp: rule `barrier-thread-count`: a named barrier whose thread count or
// barrier number is a constant that can never be right.
//
// What it proves: for every `bar.sync`/`bar.arrive`/`bar.red`/`barrier.sync`/`barrier.arrive`/
// `barrier.red` whose barrier number a or thread count b is a constant (an immediate, or a
// register set by `mov` of one), that a is one of the 16 barriers (0..15), that b is a positive
// multiple of the warp size (the PTX ISA requires it: barriers count whole warps), at most 1024
// (a CTA's threads), and, when the kernel declares its block shape (`.reqntid`) or its size
// (`.maxntid`), at most that many threads: more never arrive, and every thread that waits hangs.
// Barriers with neither operand constant are not sites; a kernel without counted or numbered
// constant barriers is not-applicable.
//
// Severity: error (each case hangs or is undefined behaviour; ptxas accepts a register count).
//
// How: each barrier's operands are read through constant_operand (divergence_cause.h) and
// compared with the limits above.
#include "ptxkit/verifier/analysis/divergence_cause.h"
#include "ptxkit/verifier/rule.h"

#include <string>

namespace ptxkit::verifier {

namespace {

using namespace analysis;

constexpr std::int64_t kBarriers = 16; // bar 0..15
constexpr std::int64_t kMaxCtaThreads = 1024;

class BarrierThreadCountRule final : public Rule {
public:
  std::string_view summary() const override {
    return "a named barrier's constant thread count or number that no launch can satisfy";
  }
  void check(RuleContext& ctx) const override;
};

// The operands of a named barrier: a (its number) and b (the thread count), or nullopt for an
// instruction that is none (bar.warp.sync counts no threads).
struct BarrierOperands {
  std::uint32_t number = 0;
  std::optional<std::uint32_t> count;
};
std::optional<BarrierOperands> barrier_operands(const Instruction& inst) {
  if (inst.op != Opcode::kBar && inst.op != Opcode::kBarrier) return std::nullopt;
  if (inst.has_modifier("warp") || inst.has_modifier("cluster")) return std::nullopt;
  // bar.red.op d, a{, b}, c: the destination comes first and the predicate last.
  const bool red = inst.has_modifier("red");
  const std::uint32_t first = red ? 1 : 0;
  const std::uint32_t n = static_cast<std::uint32_t>(inst.operands.size());
  if (n <= first) return std::nullopt;
  BarrierOperands ops;
  ops.number = first;
  if (n > first + (red ? 2u : 1u)) ops.count = first + 1;
  return ops;
}

// Why a constant thread count can never be right (empty when it can).
std::string count_problem(std::int64_t count, std::optional<std::int64_t> block_threads) {
  if (count <= 0 || count % 32 != 0)
    return " is not a positive multiple of the warp size (32): barriers count whole warps";
  if (count > kMaxCtaThreads)
    return " exceeds the 1024 threads a CTA can have: the barrier never completes";
  if (block_threads && count > *block_threads)
    return " exceeds the " + std::to_string(*block_threads) +
           " threads the kernel's launch bound allows: the barrier never completes";
  return {};
}

void BarrierThreadCountRule::check(RuleContext& ctx) const {
  const FunctionAnalysis& a = ctx.analysis();
  const Function& fn = a.ir.function();
  std::optional<std::int64_t> block_threads;
  if (auto req = fn.reqntid())
    block_threads = std::int64_t{(*req)[0]} * (*req)[1] * (*req)[2];
  else if (auto max = fn.maxntid())
    block_threads = std::int64_t{(*max)[0]} * (*max)[1] * (*max)[2];
  for (InstId i = 0; i < a.ir.size(); ++i) {
    if (!a.cfg.reachable(a.cfg.block_of(i))) continue;
    const std::optional<BarrierOperands> ops = barrier_operands(a.ir.inst(i));
    if (!ops) continue;
    // Plain integers, not optionals: g++ 12 sees an optional's value as maybe uninitialized.
    std::int64_t number = 0, count = 0;
    bool has_number = false, has_count = false;
    if (auto v = constant_operand(a, i, ops->number)) number = *v, has_number = true;
    if (ops->count)
      if (auto v = constant_operand(a, i, *ops->count)) count = *v, has_count = true;
    if (!has_number && !has_count) continue;
    ctx.add_sites();
    if (has_number && (number < 0 || number >= kBarriers)) {
      ctx.report(i, "barrier number " + std::to_string(number) +
                        " does not exist: a CTA has barriers 0..15");
      continue;
    }
    if (!has_count) continue;
    if (std::string why = count_problem(count, block_threads); !why.empty())
      ctx.report(i, "barrier thread count " + std::to_string(count) + why);
  }
}

} // namespace

std::unique_ptr<Rule> make_barrier_thread_count_rule() {
  return std::make_unique<BarrierThreadCountRule>();
}

} // namespace ptxkit::verifier
