// thread_terms.h: comparisons whose thread-dependent terms cancel.
//
// Why: `for (t = lo + tid; t < hi + tid; t += C)` (ggml's per-channel token loops) compares two
// values that both differ between threads, yet their difference does not: every thread runs the
// loop the same number of times, and a barrier in its body is reached by the whole block. Both
// uniformity analyses (the lane-level one of uniformity.h and the thread-level divergence of CTA
// barriers in divergence_cause.h) read this one fact, so that they agree.
#pragma once

#include "ptxkit/verifier/analysis/function_ir.h"
#include "ptxkit/verifier/analysis/loops.h"
#include "ptxkit/verifier/analysis/value_numbering.h"

namespace ptxkit::verifier::analysis {

// Instruction i is a signed setp/set of a and b with a = T + U1 and b = T + U2, where T is the
// same thread-dependent term and U1, U2 are computed only from the kernel's parameters,
// immediates, block-uniform special registers (%ctaid, %ntid, ...) and variable addresses, by
// unguarded integer arithmetic: the outcome is that of U1 vs U2, the same in every thread of the
// block. Terms are followed through add, sub of a uniform value, mad.lo by uniform factors,
// copies, and induction phis p = phi(init, p + U) with one uniform step (every thread starts at
// init and adds the same step each iteration, so p's term is init's).
// Signed only: nvcc emits `setp.s` for C++ signed comparisons, whose arithmetic cannot overflow
// (that is undefined behaviour); unsigned arithmetic wraps, and the difference with it.
bool thread_terms_cancel(const FunctionIR& ir, const ValueNumbering& vn, const LoopInfo& loops,
                         InstId i);

} // namespace ptxkit::verifier::analysis
