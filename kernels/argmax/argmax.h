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
// Stage 1: grid (blocks, rows), 256 threads; the row is read in units (.v4 when vocab % 4 == 0,
// scalar otherwise) with a grid-stride loop over units guarded by `unit < units`. blocks =
// min(ceil(units / 256), 1024), so every block owns at least one unit (a partial is never empty).
// Each block writes partial_value[row, block] (f32, canonical: NaN as 0x7fffffff, -0.0 as +0.0)
// and partial_index[row, block] (u32).
// Stage 2: grid (rows), 256 threads; loops over the row's num_partials partials and writes
// max_value[row] and index[row].
// Measured on an H200 (2026-11-30): stage 1 reads 3.97 TB/s over 3e8 floats; at one Qwen row
// (151936) each stage is ~6.5 us, launch-bound. Both stages match the references bit for bit
// (values on a 1/8 grid, so ties are frequent), and pass compute-sanitizer memcheck/racecheck.
#pragma once

#include "common/config_fields.h"

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

inline constexpr std::uint32_t kArgmaxThreads = 256;
inline constexpr std::uint32_t kArgmaxMaxBlocks = 1024;

// Stage 1's block count (= stage 2's num_partials) for a vocabulary size.
[[nodiscard]] std::uint32_t argmax_partial_blocks(std::uint32_t vocab);

struct ArgmaxPartialConfig {
  std::uint32_t vocab = 151936;
  std::uint32_t rows = 1;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("vocab", c.vocab,
            FieldSpec{.doc = "elements per row (any; .v4 when a multiple of 4)",
                      .min = 1.0,
                      .max = 1073741824.0});
    v.field("rows", c.rows,
            common::launch_shape_field("rows per launch (grid.y)", common::kGridYZMax,
                                       "launch shape only: grid.y = rows and each block reads its "
                                       "row from %ctaid.y, so no PTX depends on it"));
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
      "argmax stage 1: per-block (max, index) partials over a vocabulary row (grid-stride .v4 "
      "loads, packed u64 max: ties to the lowest index, NaN greatest)";
  static constexpr std::string_view kLimits =
      "vocab in [1, 2^30] (.v4 when a multiple of 4, scalar otherwise); rows in [1, 65535] "
      "(grid.y); blocks = min(ceil(units / 256), 1024) partials per row";

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
// Stage 1: partials of each row as the kernel's blocks own them (grid-stride over units).
[[nodiscard]] ArgmaxResult argmax_partial_reference(const std::vector<float>& x, std::uint32_t rows,
                                                    std::uint32_t vocab);
// Stage 2: the best of each row's num_partials partials.
[[nodiscard]] ArgmaxResult argmax_final_reference(const ArgmaxResult& partials, std::uint32_t rows,
                                                  std::uint32_t num_partials);
// Both stages at once: the argmax of each row.
[[nodiscard]] ArgmaxResult argmax_reference(const std::vector<float>& x, std::uint32_t rows,
                                            std::uint32_t vocab);

} // namespace ptxkit::kernels
