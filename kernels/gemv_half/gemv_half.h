// gemv_half.h: y = W x with half weights, W row-major [n, k] in bf16 or f16, x and y in f32, f16
// or bf16, accumulated in f32 (config, launch contract, reference).
//
// Decode-time GEMV is a stream over the weights, so the kernel is shaped to keep DRAM busy:
// a row is read in "units" of V halves, V the largest of 8, 4, 2, 1 dividing k (every row then
// starts V * 2 bytes aligned): 16-byte loads when k % 8 == 0. Lane l takes units l, l + 32, ...
// ("steps" of 32 units: every warp-wide access is 512 consecutive bytes). A warp computes R rows
// (rows_per_warp()) and loads each x unit once for all of them; it issues U steps of loads
// (unroll()) for x and its R rows before any arithmetic, so R * U 16-byte weight loads per lane
// are in flight: the halves stay packed in their loaded words until the fma that uses them, each
// row sums into two accumulators (even and odd fmas: two dependency chains), and .minnctapersm
// lets ptxas spend the registers to keep the loads ahead of the fmas (kMinBlocksPerSm). The steps
// in which all 32 lanes have a unit run as a loop of U steps; what is left (fewer than U full steps
// and the final partial step) is one straight-line batch, its partial step's lanes past the row
// reading the row's last unit (in bounds) and zeroing both factors. Rows past n in the last warp
// read row n - 1 and are not stored. Each row's lane sums meet in a shfl.bfly tree and lane 0
// stores y, rounded once to y_dtype. W and x are read with ld.global.nc (read-only for the launch);
// y must not alias them.
//
// Batched (batch = M > 1; x is [M, k], y is [M, n], each vector contiguous): a decoder stepping M
// sequences multiplies each weight matrix by M vectors, so each W word is loaded and widened once
// and multiplied into M vectors' accumulators (2 M fmas per word of W; M launches would read W M
// times). A warp takes 2 rows (rows_per_warp()), so each x load and widening serves 2 rows. Each
// group of U steps issues its 2 U loads of W first (the DRAM stream), then step by step the M x
// units (x is M * k elements, read by every warp: L1 and L2 hits) and the fmas; U (unroll())
// keeps a group's loads beside the 4 M accumulators within the 128 registers kMinBlocksPerSm
// allows (bf16 x: U = 4 at M <= 4, 8 W loads per lane in flight; 2 at M = 8), so ptxas starts
// them ahead of the fmas without spilling. Each vector keeps batch 1's two accumulators per row
// and meets them in batch 1's order, so for even k vector m's y is bitwise what a batch-1 launch
// computes from x[m]. At M = 4 a step's 2 W and 4 x loads take 24 L1 cycles per 1 KB of weights,
// which an SM's share of DRAM takes about 56 cycles to deliver.
#pragma once

#include "common/gemv_batch.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct GemvHalfConfig {
  std::uint32_t n = 896;
  std::uint32_t k = 896;
  DType weight_dtype = DType::kBF16;
  DType x_dtype = DType::kBF16;
  DType y_dtype = DType::kBF16;
  std::uint32_t batch = 1;
  // Tuning overrides (0 = automatic, from the shape: rows_per_warp() and unroll()).
  std::uint32_t rows_per_warp_override = 0;
  std::uint32_t unroll_override = 0;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("n", c.n,
            FieldSpec{.doc = "output rows (rows of W); warps past n exit",
                      .min = 1.0,
                      .max = 2147483647.0});
    v.field("k", c.k,
            FieldSpec{.doc = "row length of W and length of x (any; 16-byte loads of W when a "
                             "multiple of 8)",
                      .min = 1.0,
                      .max = 16777216.0});
    v.field("weight_dtype", c.weight_dtype,
            FieldSpec{.doc = "element type of W: f16 or bf16 (f32 weights: gemv_f32)"});
    v.field("x_dtype", c.x_dtype, FieldSpec{.doc = "element type of x: f32, f16 or bf16"});
    v.field("y_dtype", c.y_dtype,
            FieldSpec{.doc = "element type of y: f32, f16 or bf16 (rounded once, to nearest "
                             "even, from the f32 sum)"});
    v.field("batch", c.batch, common::gemv_batch_field());
    v.field("rows_per_warp", c.rows_per_warp_override,
            FieldSpec{.doc = "rows a warp computes sharing each x load: 1, 2 or 4; 0 = chosen "
                             "from the shape (rows_per_warp())",
                      .min = 0.0,
                      .max = 4.0});
    v.field("unroll", c.unroll_override,
            FieldSpec{.doc = "steps of 32 units loaded before any arithmetic: 1, 2, 4 or 8; 0 = "
                             "chosen from the shape (unroll())",
                      .min = 0.0,
                      .max = 8.0});
  }

  // Halves per unit: one .v4.b32 (16 bytes) when k % 8 == 0, else the widest access that keeps
  // every row aligned.
  [[nodiscard]] std::uint32_t unit_width() const {
    return k % 8 == 0 ? 8 : k % 4 == 0 ? 4 : k % 2 == 0 ? 2 : 1;
  }
  [[nodiscard]] std::uint32_t units() const { return k / unit_width(); }
  // Steps of 32 units along a row, the last one possibly partial.
  [[nodiscard]] std::uint32_t steps() const { return (units() + 31) / 32; }
  // Short rows (a few steps) leave a warp little to have in flight, so it takes several rows:
  // 4 when a row is one step (k <= 256), 2 up to 4 steps (k <= 1024, e.g. an lm_head's 896),
  // else 1 (a long row alone keeps 8 loads in flight per lane). Batched, 2: each x load and
  // widening then serves 2 rows, and 2 rows' accumulators (4 per vector) still fit.
  [[nodiscard]] std::uint32_t rows_per_warp() const {
    if (rows_per_warp_override != 0) return rows_per_warp_override;
    if (batch > 1) return 2;
    return steps() <= 1 ? 4 : steps() <= 4 ? 2 : 1;
  }
  // Registers one step's loads hold per lane: a word per two halves of each row's W unit, and
  // each vector's x unit (a word per two halves, a register per f32).
  [[nodiscard]] std::uint32_t step_registers() const {
    const std::uint32_t half_regs = (unit_width() + 1) / 2;
    const std::uint32_t x_regs = x_dtype == DType::kF32 ? unit_width() : half_regs;
    return rows_per_warp() * half_regs + batch * x_regs;
  }
  // The registers a batched group of steps may hold in loads: what is left of 112 (128, the
  // kMinBlocksPerSm bound, less addresses and counters) beside the 2 * rows * batch accumulators.
  [[nodiscard]] std::uint32_t batched_load_registers() const {
    return 112 - 2 * rows_per_warp() * batch;
  }
  // Steps per group: 8 weight loads per lane in flight over the warp's rows, no more than the
  // row has. Batched, each step also loads batch x units: the group is halved until its loads
  // fit in batched_load_registers(), so ptxas issues them all ahead of the fmas without spilling.
  [[nodiscard]] std::uint32_t unroll() const {
    std::uint32_t u = unroll_override != 0 ? unroll_override : 8 / rows_per_warp();
    if (unroll_override == 0 && batch > 1)
      while (u > 1 && u * step_registers() > batched_load_registers())
        u /= 2;
    return u < steps() ? u : steps();
  }
};

struct GemvHalf {
  PTXKIT_KERNEL_FUNCTIONS(GemvHalfConfig);
  static constexpr std::string_view kName = "gemv_half";
  static constexpr std::string_view kSummary =
      "half-weight GEMV y = W x, W [n, k] bf16/f16, x and y f32/f16/bf16, f32 accumulation: "
      "16-byte weight loads, 1-4 rows per warp sharing x, 8 loads in flight per lane, "
      "shfl.bfly reduction; batch 1-8 vectors per launch, each weight read once";
  static constexpr std::string_view kLimits =
      "n in [1, 2^31 - 1], k in [1, 2^24] (any; 16-byte loads when k % 8 == 0); weight_dtype "
      "f16 or bf16; batch in [1, 8]; rows_per_warp 0, 1, 2 or 4; unroll 0, 1, 2, 4 or 8 (with "
      "batch > 4, rows_per_warp 4 or a large unroll may spill); y must not alias W or x";
  static constexpr std::uint32_t kWarps = 4;
  static constexpr std::uint32_t kThreads = kWarps * 32;
  // The occupancy bound given to ptxas (.minnctapersm): see build().
  static constexpr std::uint32_t kMinBlocksPerSm = 4;

  // gemv_f32's f32 dot-product bound (abs 4e-7 per term for inputs in [-1, 1]) plus, for a half
  // y, one rounding boundary of its format crossed (the reference rounds the double sum). Every
  // vector of a batch is its own dot product of k terms: the bound does not depend on batch.
  static Tolerance tolerance(const Config& c, const HostTensors&) {
    const double abs = 4e-7 * c.k;
    if (c.y_dtype == DType::kBF16)
      return {abs, 2e-5 + 2 * unit_roundoff(DType::kBF16),
              "abs 4e-7 * k: f32 dot products of k terms, y rounded to bf16"};
    if (c.y_dtype == DType::kF16)
      return {abs, 2e-5 + 2 * unit_roundoff(DType::kF16),
              "abs 4e-7 * k: f32 dot products of k terms, y rounded to f16"};
    return {abs, 2e-5, "abs 4e-7 * k: f32 dot products of k terms, y in f32"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The reference: a double-precision loop per row and vector over the exactly representable inputs,
// each sum rounded to y_dtype with round_to. w is n * k, x is batch * k (vector m at m * k), the
// result batch * n (vector m's y at m * n).
std::vector<float> gemv_half_reference(const GemvHalfConfig& c, const std::vector<float>& w,
                                       const std::vector<float>& x);

} // namespace ptxkit::kernels
