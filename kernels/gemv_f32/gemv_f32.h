// gemv_f32.h: y = W x in f32, W row-major [n, k] (config, launch contract, reference).
//
// One warp per output row, 4 warps (128 threads) per block, grid.x = ceil(n / 4). A row is read
// in "units": .v4 chunks when k % 4 == 0 (every row then starts 16-byte aligned), single floats
// otherwise (a row of W would start misaligned for .v4). Lane l reads units l, l+32, ...: each
// warp-wide access is 512 (or 128) consecutive bytes, fully coalesced. The loop takes U units per
// lane per iteration while all U exist (U independent loads in flight: 8 on rows of 512 units or
// more, else 4, unroll_for()), then one unit at a time
// for the tail; both loops are guarded by `unit < units`, so nothing past a row of W or past x is
// read. The lane partial sums are reduced with a shfl.bfly tree (every lane then holds the row's
// sum) and lane 0 stores y[row]. Warps whose row is >= n exit before the reduction (a whole warp
// at a time, so no shuffle loses a participant). W and x are read with ld.global.nc (read-only
// for the kernel's lifetime); y must not alias them.
// Measured on an H200 (2026-11-30, CUDA events, median): 4.03 TB/s of weight bytes at
// 16384 x 4096 and 4.29 TB/s at 151936 x 896 (an lm_head; reads only, so above the 4.15 TB/s
// read+write copy figure); 2.9 TB/s at 4096 x 4096 (64 MiB: 23 us, of which ~5 us is launch
// and event overhead). |y - ref| <= 2e-5 at k = 4864 for inputs in [-1, 1].
//
// Batched (batch = M > 1; x is [M, k], y is [M, n], each vector contiguous): a decoder stepping M
// sequences multiplies each weight matrix by M vectors, so each W unit is loaded once and
// multiplied into M accumulators (M fmas per weight element; M launches would read W M times).
// A warp then computes 2 rows (rows_per_warp(); grid.x = ceil(n / 8); a row past n in the last
// warp re-reads row n - 1 and is not stored), so each x load serves 2 rows of W. An iteration
// issues its 2 U loads of W first (the DRAM stream), then per unit the M units of x (x is
// M * k * 4 bytes, read by every warp: L1 and L2 hits) and the fmas; U (batched_unroll()) keeps
// the iteration's loads and the 2 M accumulators within the registers .minnctapersm 4 allows,
// so ptxas issues every load of an iteration before its first fma. Each vector's accumulator
// sees its products in batch 1's order and goes through the same shfl.bfly tree, so vector m's
// y is bitwise the y of a batch-1 launch on x[m]; lane 0 stores y[m * n + row] for every m.
// Per unit pair a warp issues 2 loads of W and M of x: at M = 4, 24 L1 cycles for the 1 KB of
// weights that an SM's share of DRAM takes about 56 cycles to deliver.
#pragma once

#include "common/gemv_batch.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct GemvF32Config {
  std::uint32_t n = 896;
  std::uint32_t k = 896;
  std::uint32_t batch = 1;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("n", c.n,
            FieldSpec{.doc = "output rows (rows of W); warps past n exit",
                      .min = 1.0,
                      .max = 2147483647.0});
    v.field("k", c.k,
            FieldSpec{.doc = "row length of W and length of x (any; .v4 when a multiple of 4)",
                      .min = 1.0,
                      .max = 16777216.0});
    v.field("batch", c.batch, common::gemv_batch_field());
  }
};

struct GemvF32 {
  PTXKIT_KERNEL_FUNCTIONS(GemvF32Config);
  static constexpr std::string_view kName = "gemv_f32";
  static constexpr std::string_view kSummary =
      "f32 GEMV y = W x, W row-major [n, k]: a warp per row, coalesced .v4 loads (scalar when "
      "k % 4 != 0), 4-8 loads in flight per lane, shfl.bfly reduction; batch 1-8 vectors per "
      "launch, each weight read once";
  static constexpr std::string_view kLimits =
      "n in [1, 2^31 - 1], k in [1, 2^24] (any; .v4 when k % 4 == 0); n * 4 warps per block "
      "need ceil(n / 4) <= 2^31 - 1 blocks; batch in [1, 8] (2 rows per warp when batch > 1); "
      "y must not alias W or x";
  static constexpr std::uint32_t kWarps = 4;
  static constexpr std::uint32_t kThreads = kWarps * 32;
  // Units per lane per main-loop iteration (loads in flight): 8 on long rows (>= 16 units per
  // lane), which halves the iterations and doubles the bytes a warp has in flight when the
  // launch ramps up; 4 on short rows, where 8 would leave most of a row to the one-unit tail.
  static constexpr std::uint32_t unroll_for(std::uint32_t units) { return units >= 512 ? 8 : 4; }
  // Batched, a warp computes 2 rows (each x load then serves 2 rows of W) and a unit of each
  // comes with batch units of x, so an iteration's loads hold U * (2 + batch) units of
  // registers: U is halved until they fit beside the 2 * batch accumulators in
  // kBatchedRegisters (ptxas then issues them all ahead of the fmas, without spilling).
  static constexpr std::uint32_t rows_per_warp(std::uint32_t batch) { return batch > 1 ? 2 : 1; }
  static constexpr std::uint32_t kBatchedRegisters = 112;
  static constexpr std::uint32_t batched_unroll(std::uint32_t units, bool vec4,
                                                std::uint32_t batch) {
    const std::uint32_t rows = rows_per_warp(batch);
    const std::uint32_t unit_registers = (vec4 ? 4 : 1) * (rows + batch);
    std::uint32_t u = unroll_for(units);
    while (u > 1 && u * unit_registers > kBatchedRegisters - rows * batch)
      u /= 2;
    return u;
  }
  // The occupancy bound given to ptxas (.minnctapersm) when batch > 1: see build().
  static constexpr std::uint32_t kBatchedMinBlocksPerSm = 4;

  // The error of a dot product grows with its length: abs 4e-7 per term. Every vector of a batch
  // is its own dot product of k terms, so the bound does not depend on batch.
  static Tolerance tolerance(const Config& c, const HostTensors&) {
    return {4e-7 * c.k, 2e-5, "abs 4e-7 * k: f32 dot products of k terms in [-1, 1]"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The naive reference: a double-precision loop per row and vector. w is n * k, x is batch * k
// (vector m at m * k), the result batch * n (vector m's y at m * n).
std::vector<float> gemv_reference(const std::vector<float>& w, const std::vector<float>& x,
                                  std::uint32_t n, std::uint32_t k, std::uint32_t batch = 1);

} // namespace ptxkit::kernels
