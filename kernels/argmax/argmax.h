// argmax.h: argmax over a vocabulary in two stages, as two kernels (config, launch contracts,
// references): argmax_partial (per-block (max, index) partials) and argmax_final (one block per row
// reduces the partials). Two kernels rather than one with a stage field, because the stages have
// different launch shapes, parameters and references, and each is generated, keyed, golden-tested
// and benchmarked on its own.
//
// Order (the same in both stages and in the references): values compare as floats with
//  - ties to the LOWEST index;
//  - NaN greater than every number (as torch.argmax: the first NaN wins);
//  - -0.0 equal to +0.0 (the first zero wins, and the value reported is +0.0).
// The kernels implement it with one integer maximum: key(v) maps the float order onto u32
// (0xffffffff for every NaN; -0.0 mapped as +0.0), and the pair is packed as
// (key << 32) | ~index, so max.u64 picks the greatest value and, among equals, the lowest index.
//
// Stage 1: grid (blocks, rows), 256 threads; the row (f32, f16 or bf16 logits: `dtype`, compared
// after an exact widening to f32) is read in units (common/row_units.h: f32 .v4 when
// vocab % 4 == 0, halves 8 at a time when vocab % 8 == 0, ...; scalar otherwise) with a
// grid-stride loop over units guarded by `unit < units`, 4 units per thread per iteration with
// their loads issued together. blocks = min(ceil(units / (256 * 4)), 1024), so every block owns at
// least one unit (a partial is never empty) and a thread has ~4 units in flight: with one unit per
// thread (the earlier geometry) each 4 KB block spent more time in its reduction than in its
// loads, 58% of copy bandwidth.
// f32 (and single halves) fold every element: its key, a compare, a max and a select. Halves in
// words fold a group (the units loaded together: 32 bf16 at vocab % 8 == 0) at once: the group's
// maximum m by packed max.NaN (one per word, a NaN anywhere makes m the NaN), m's key against
// the thread's best, and only when m beats it the index of m's first element, by a descent over
// the max tree (4 steps for 16 words: which half of the candidate words holds m) and the word's
// low or high half. Halves other than zeros and NaNs are equal exactly when their bits are, so
// the descent compares bits; a group whose m is a zero (+0.0 == -0.0) or a NaN (the first NaN,
// whatever its sign and payload) folds element by element as f32 does, rarely (real logits
// seldom have a maximum of exactly 0 and only broken ones hold NaNs). On an sm_90 ptxas the
// bf16 group's common path is ~75 SASS instructions for 32 elements (2.3 each, 3-input
// VHMNMX for the tree) where folding every element took ~300 (9.4 each).
// Each block writes partial_value[row, block] (f32, canonical: NaN as 0x7fffffff, -0.0 as +0.0)
// and partial_index[row, block] (u32).
// Stage 2: grid (rows), 256 threads; loops over the row's num_partials partials and writes
// max_value[row] and index[row].
// Measured on an H200 (2026-11-30, one unit per thread): stage 1 reads 3.97 TB/s over 3e8
// floats; at one Qwen row (151936) each stage is ~6.5 us, launch-bound. Both stages match the
// references bit for bit (values on a 1/8 grid, so ties are frequent), and pass compute-sanitizer
// memcheck/racecheck. With 4 units per thread and the 5-operation key (2026-12-02, 1024 x 151936):
// f32 141 us (105% of copy bandwidth, up from 258 us / 57%), bf16 91 us (82%: the 8 elements of
// a 16-byte load cost ~9 integer operations each, so bf16 was ALU-bound: hence the group fold,
// not yet measured); NaNs of either sign and any payload win at their first index.
// The inputs plant, per row, the cases the group fold treats apart, each in a block of its own
// (argmax_reference.cpp: plant_cases), so the reference configs check them on the device.
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

inline constexpr std::uint32_t kArgmaxThreads = 256;
inline constexpr std::uint32_t kArgmaxMaxBlocks = 1024;
inline constexpr std::uint32_t kArgmaxUnitsPerThread = 4; // per loop iteration, loads together

// Stage 1's block count (= stage 2's num_partials) for a vocabulary size and logit type.
[[nodiscard]] std::uint32_t argmax_partial_blocks(std::uint32_t vocab, DType dtype = DType::kF32);

struct ArgmaxPartialConfig {
  std::uint32_t vocab = 151936;
  std::uint32_t rows = 1;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("vocab", c.vocab,
            FieldSpec{.doc = "elements per row (any; vector units when a multiple of 4, or of 2 "
                             "for halves)",
                      .min = 1.0,
                      .max = 1073741824.0});
    v.field("rows", c.rows,
            common::launch_shape_field("rows per launch (grid.y)", common::kGridYZMax,
                                       "launch shape only: grid.y = rows and each block reads its "
                                       "row from %ctaid.y, so no PTX depends on it"));
    v.field("dtype", c.dtype,
            common::dtype_field("element type of the logits x (f32, f16, bf16); the partials "
                                "stay f32/u32"));
  }
};

struct ArgmaxFinalConfig {
  std::uint32_t num_partials = 149;
  std::uint32_t rows = 1;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("num_partials", c.num_partials,
            FieldSpec{.doc = "partials per row: argmax_partial's block count for the vocabulary",
                      .min = 1.0,
                      .max = static_cast<double>(kArgmaxMaxBlocks)});
    v.field("rows", c.rows,
            common::launch_shape_field("rows per launch (grid.x)", common::kGridXMax,
                                       "launch shape only: grid.x = rows and each block reads its "
                                       "row from %ctaid.x, so no PTX depends on it"));
  }
};

struct ArgmaxPartial {
  PTXKIT_KERNEL_FUNCTIONS(ArgmaxPartialConfig);
  static constexpr std::string_view kName = "argmax_partial";
  static constexpr std::string_view kSummary =
      "argmax stage 1: per-block (max, index) partials over a vocabulary row of f32, f16 or bf16 "
      "logits (grid-stride 16-byte loads, 4 per thread in flight; halves folded per group by "
      "packed max.NaN, searched only when the group beats the best; ties to the lowest index, "
      "NaN greatest)";
  static constexpr std::string_view kLimits =
      "vocab in [1, 2^30] (f32 .v4 when a multiple of 4, halves 8/4/2 per access when a "
      "multiple of 8/4/2, scalar otherwise); rows in [1, 65535] (grid.y); blocks = "
      "min(ceil(units / 1024), 1024) partials per row";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0, 0, "a selection: values and indices bit-exact"};
  }
  static std::vector<BenchCase> bench_cases();
};

struct ArgmaxFinal {
  PTXKIT_KERNEL_FUNCTIONS(ArgmaxFinalConfig);
  static constexpr std::string_view kName = "argmax_final";
  static constexpr std::string_view kSummary =
      "argmax stage 2: one block per row reduces argmax_partial's (max, index) partials to the "
      "row's max value and index";
  static constexpr std::string_view kLimits =
      "num_partials in [1, 1024] (= argmax_partial's blocks for the vocabulary); rows in "
      "[1, 2^31 - 1] (grid.x)";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0, 0, "a selection: values and indices bit-exact"};
  }
};

// The order above as a total order on (value, index): true when (a, ia) beats (b, ib).
[[nodiscard]] bool argmax_beats(float a, std::uint32_t ia, float b, std::uint32_t ib);
// The canonical value an argmax reports for v (NaN -> the NaN 0x7fffffff, -0.0 -> +0.0).
[[nodiscard]] float argmax_canonical(float v);

// The references: the first best element by a plain scan with argmax_beats.
struct ArgmaxResult {
  std::vector<float> value;
  std::vector<std::uint32_t> index;
};
// Stage 1: partials of each row as the kernel's blocks own them (grid-stride over units of
// `dtype`'s width, common/row_units.h).
[[nodiscard]] ArgmaxResult argmax_partial_reference(const std::vector<float>& x, std::uint32_t rows,
                                                    std::uint32_t vocab, DType dtype = DType::kF32);
// Stage 2: the best of each row's num_partials partials.
[[nodiscard]] ArgmaxResult argmax_final_reference(const ArgmaxResult& partials, std::uint32_t rows,
                                                  std::uint32_t num_partials);
// Both stages at once: the argmax of each row.
[[nodiscard]] ArgmaxResult argmax_reference(const std::vector<float>& x, std::uint32_t rows,
                                            std::uint32_t vocab);

} // namespace ptxkit::kernels
