// softmax_rows.h: row softmax, any row length, one launch (config, launch contract, reference).
//
//   out[r, j] = exp(x[r, j] - max_k x[r, k]) / sum_k exp(x[r, k] - max_k x[r, k])
//
// x and out are in `dtype` (f32, f16 or bf16); the arithmetic is f32 and each output is rounded
// once. One block per row (row = %ctaid.x, so up to 2^31 - 1 rows). A row is read in "units" of
// unit_elems elements, as wide as row_len allows every row to start aligned: f32 .v4 chunks when
// row_len % 4 == 0, single floats otherwise; halves 8 at a time (one .v4.b32) when
// row_len % 8 == 0, else 4, 2 or 1.
// The block has threads = clamp(round_up32(ceil(units / 4)), 32, 1024) threads. Three modes
// (softmax_geometry picks one from row_len, dtype and smem_kib):
//   "registers": units <= 4 * threads (rows up to 16384 floats with .v4, 32768 halves): the row
//     is read exactly once into registers and written once.
//   "on chip": longer rows that fit in registers plus shared memory: each of the 1024 threads
//     holds reg_units units as raw 32-bit words (a pair of halves per word, widened when used;
//     at most 24 words), and the rest of the row is copied into dynamic shared memory by
//     cp.async (up to smem_kib KiB per block with the static arrays; the launch asks for it and
//     the runtime opts in past 48 KiB). The row is read from DRAM once and written once. A bf16
//     vocabulary row of 151936 (297 KiB) is 5 units of 8 halves per thread in registers (80 KiB)
//     plus 13872 units in shared memory (217 KiB); halves fit up to 165240 per row, f32 up to
//     82620. A 151936-float row (594 KiB) does not fit one SM (228 KiB of shared memory, 256 KiB
//     of registers, of which a thread may hold 64 words at 1024 threads): f32 vocabularies loop.
//     Units narrower than 4 bytes (a row of an odd number of halves) have no cp.async: they loop.
//   "loop": the rest: the row is read twice (an online (max, sum), then the write, which walks
//     the row backwards so that its first reads hit L2).
// Nothing past the row is read. The algorithm: softmax_rows_builder.cpp.
// Measured on an H200 (2026-11-30): 4.04 TB/s at 65536 rows of 2048 and 4.06 TB/s at 65536 x 896
// (registers mode, read + write); 26 us for 4 vocabulary rows of 151936 (one block per row caps
// it at 4 SMs); special values (-inf, all -inf, NaN, +inf rows) match the reference. Loop mode at
// 1024 x 151936 (2026-12-02): 65.6% of copy bandwidth in f32 and 64.2% in bf16 (it moves three
// row-sizes for a copy's two).
// Shared memory: on-chip rows need smem_kib KiB per block, which sm_90 and sm_100 (H100, H200,
// B200: 227 KiB per block) have; on a GPU with less (sm_80/sm_87: 163, sm_86/sm_89/sm_120: 99)
// set smem_kib to its size (or 0: never on chip), or the launch of such a row is refused.
// Special values (as PyTorch): a row holding NaN or +inf gives NaN everywhere in that row; a row
// that is entirely -inf gives NaN; -inf elements of other rows give 0.
// Plain ld.global and cp.async (not .nc): each thread writes only elements it read itself, after
// its own copies completed and the block reduced, so out may alias x (in-place softmax of
// attention scores).
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct SoftmaxRowsConfig {
  std::uint32_t row_len = 151936;
  std::uint32_t rows = 4;
  DType dtype = DType::kF32;
  std::uint32_t smem_kib = 227; // sm_90/sm_100's opt-in maximum per block

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("row_len", c.row_len,
            FieldSpec{.doc = "elements per row (any; vector units when a multiple of 4, or of 2 "
                             "for halves)",
                      .min = 1.0,
                      .max = 16777216.0});
    v.field("rows", c.rows, common::rows_on_grid_x_field());
    v.field("dtype", c.dtype,
            common::dtype_field("element type of x and out (f32, f16, bf16); arithmetic in f32"));
    v.field("smem_kib", c.smem_kib,
            FieldSpec{.doc = "shared memory per block (KiB) that holds a row too long for "
                             "registers on chip: 227 on sm_90/sm_100, 163 on sm_80/sm_87, 99 on "
                             "sm_86/sm_89/sm_120; 0: such rows loop",
                      .min = 0.0,
                      .max = 227.0});
  }
};

// How a block holds its row (see the header comment).
enum class SoftmaxMode : std::uint8_t { kRegisters, kOnChip, kLoop };

// The row geometry a config implies (shared by the builder, the launch contract and the tests).
struct SoftmaxGeometry {
  std::uint32_t unit_elems = 1; // elements per unit: f32 4 or 1; halves 8, 4, 2 or 1
  std::uint32_t unit_bytes = 4; // bytes per unit: 16, 8, 4 or 2
  std::uint32_t units = 0;      // units per row
  std::uint32_t threads = 0;    // block size
  std::uint32_t per_thread = 0; // ceil(units / threads)
  SoftmaxMode mode = SoftmaxMode::kLoop;
  // On chip: units j * threads + tid (j < reg_units) stay in registers; the other smem_units
  // (row units from reg_units * threads on) go to shared memory, slot i holding unit
  // reg_units * threads + i, so thread tid stages slots tid, tid + threads, ... (stage_units of
  // them, the last one partial unless threads divides smem_units).
  std::uint32_t reg_units = 0;
  std::uint32_t smem_units = 0;
  std::uint32_t stage_units = 0; // ceil(smem_units / threads)
  std::uint32_t smem_bytes = 0;  // the launch's dynamic shared memory (0 off chip)
};
[[nodiscard]] SoftmaxGeometry softmax_geometry(const SoftmaxRowsConfig& c);

// The static shared memory of a block of `threads`: warp_max and warp_sum, warps + 1 floats each,
// rounded up to the 16 bytes at which the dynamic shared memory that follows starts.
constexpr std::uint32_t softmax_static_smem_bytes(std::uint32_t threads) {
  return (2 * (threads / 32 + 1) * 4 + 15) / 16 * 16;
}

struct SoftmaxRows {
  PTXKIT_KERNEL_FUNCTIONS(SoftmaxRowsConfig);
  static constexpr std::string_view kName = "softmax_rows";
  static constexpr std::string_view kSummary =
      "row softmax, any row length, one block per row (rows up to 16384 floats held in "
      "registers, rows up to 82620 floats or 165240 halves in registers plus shared memory, "
      "longer rows looped with an online max/sum), ex2-based";
  static constexpr std::string_view kLimits =
      "row_len in [1, 2^24] (f32 .v4 when a multiple of 4, halves 8/4/2 per access when a "
      "multiple of 8/4/2, scalar otherwise); rows in [1, 2^31 - 1] (grid.x); rows * row_len "
      "elements addressed in 64 bits; out may alias x; NaN or +inf in a row, or a row of only "
      "-inf, gives a NaN row; dtype f32, f16 or bf16; rows held on chip need smem_kib KiB of "
      "shared memory per block (227: sm_90/sm_100; set it lower on other GPUs)";
  static constexpr std::uint32_t kMaxThreads = 1024;

  static Tolerance tolerance(const Config& c, const HostTensors&) {
    switch (c.dtype) {
    case DType::kBF16:
      return {1e-9, 2e-5 + 2 * unit_roundoff(c.dtype),
              "ex2.approx per element and an f32 sum over the row, plus one rounding boundary "
              "of the bf16 output (rel 2^-7)"};
    case DType::kF16:
      // Probabilities below 2^-14 are f16 subnormals, spaced 2^-24 apart: abs covers one step.
      return {0x1p-24, 2e-5 + 2 * unit_roundoff(c.dtype),
              "ex2.approx per element and an f32 sum over the row, plus one rounding boundary "
              "of the f16 output (rel 2^-10; abs 2^-24, one step of the f16 subnormals)"};
    case DType::kF32:
      break;
    }
    return {1e-9, 2e-5, "ex2.approx per element and an f32 sum over the row (probabilities ~1e-5)"};
  }
  static std::vector<BenchCase> bench_cases();
};

// The reference in double (two passes: max, then sum), x is rows * row_len; each output is
// rounded to `dtype`.
std::vector<float> softmax_reference(const std::vector<float>& x, std::uint32_t rows,
                                     std::uint32_t row_len, DType dtype = DType::kF32);

} // namespace ptxkit::kernels
