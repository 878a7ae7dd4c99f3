// thread_index.h: what the PTX says about %tid.x, for the uniformity analyses.
//
// One place for the facts that both the warp-level uniformity (uniformity.cpp) and the
// thread-level divergence of CTA barriers (divergence_cause.cpp) use: which values are exactly
// %tid.x, the largest %tid.x the declared launch bounds allow, and the comparisons of %tid.x with
// a constant that those bounds decide (the same outcome in every thread).
#pragma once

#include "ptxkit/verifier/analysis/function_ir.h"
#include "ptxkit/verifier/analysis/value_numbering.h"

#include <cstdint>
#include <optional>

namespace ptxkit::verifier::analysis {

// v is exactly %tid.x: a mov or cvt of the special register, or a cvt (widening) of such a value.
bool is_tid_x(const FunctionIR& ir, const ValueNumbering& vn, ValueId v);

// v is the thread's linear index in its block, (tid.z * ntid.y + tid.y) * ntid.x + tid.x, as
// cooperative groups' thread_rank() computes it (mad.lo, or mul and add, in either operand
// order; copies and widening cvt followed). Warps are runs of 32 consecutive linear indices
// whatever the block's shape, so its warp-boundary functions are warp-uniform without any
// assumption about the launch. A function whose launch bound makes ntid.z 1 may leave the tid.z
// term out; one whose bound makes the block 1-D is covered by is_tid_x.
bool is_linear_tid(const FunctionIR& ir, const ValueNumbering& vn, ValueId v);

// The function reads %tid.y or %tid.z (directly or as `%tid`'s y/z element): evidence that it
// is launched with a 2-D or 3-D block, whose warps need not lie in one row of tid.x.
bool reads_tid_yz(const FunctionIR& ir);

// Warps are runs of 32 consecutive %tid.x (so tid.x & 31 is the lane id and tid.x / 32 a warp
// index): with .reqntid, when the block is 1-D or ntid.x a multiple of 32; without it, assumed
// only when the function never reads %tid.y/%tid.z (a 1-D block, as nearly every such kernel
// is launched). A kernel that reads tid.y without a declared shape may have ntid.x < 32, and a
// warp then spans several tid.y rows: nothing about lanes follows from tid.x alone.
// (.maxntid bounds the thread count, not the shape.)
bool warps_are_tid_x_runs(const FunctionIR& ir);

// The largest %tid.x a launch of `fn` can have: .reqntid gives ntid.x exactly; .maxntid bounds
// the block's thread count (the product of its extents), and tid.x < ntid.x <= that count.
// nullopt when the function declares neither.
std::optional<std::int64_t> max_tid_x(const Function& fn);

// Instruction i is a setp/set comparing %tid.x with an immediate whose outcome the launch bound
// fixes for every thread (`if (threadIdx.x < 256)` under __launch_bounds__(256) compiles to
// `setp.gt.u32 %p, %tid, 255`: always false): its result is the same in every thread of the block.
bool tid_x_compare_is_constant(const FunctionIR& ir, const ValueNumbering& vn, InstId i);

// Instruction i is a 32-bit integer setp/set comparing %tid.x, or %tid.x plus or minus an
// immediate (nvcc's range check `(unsigned)(tid - lo) < n`, and `tid < 32` compiled as
// `tid + 31 <= 62`), with an immediate, and its outcome is the same for every run of 32
// consecutive %tid.x values below 1024: uniform in each warp wherever warps are tid.x runs
// (warps_are_tid_x_runs). Decided by evaluating all 1024 values.
bool tid_x_compare_is_warp_uniform(const FunctionIR& ir, const ValueNumbering& vn, InstId i);

} // namespace ptxkit::verifier::analysis
