// q4k_test.cpp: Q4_K GEMV with K not a multiple of 256 and guard bands of NaN words after the
// activations x, the weights and y (device_check.h): a kernel that reads x at or past `cols`
// (the padding bug) gets NaN into y, one that writes past y changes the guard.
#include "device_check.h"
#include "device_env.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <utility>

namespace ptxkit::device_tests {
namespace {

TEST(Q4kGemv, ColsNotAMultipleOf256WithGuardBands) {
  PTXKIT_REQUIRE_DEVICE();
  const auto& k = kernel_named("q4k_gemv");
  // 1348 = 5 * 256 + 68; 260 = 256 + 4; 4 = the smallest; 896 = 3.5 super-blocks (Qwen).
  for (const auto& [rows, cols] : {std::pair{1000u, 1348u}, std::pair{333u, 260u},
                                   std::pair{64u, 4u}, std::pair{4864u, 896u}}) {
    const auto values =
        config_of(k, "qwen05b", {"rows=" + std::to_string(rows), "cols=" + std::to_string(cols)});
    const auto in = k.make_inputs(values, test_seed());
    expect_matches_reference(k, values, in,
                             "q4k_gemv[" + std::to_string(rows) + "x" + std::to_string(cols) + "]");
  }
}

// Every launch shape the tuning fields can pick (split-K over 1..8 warps, 1..8 rows per warp),
// at ragged shapes: 21 super-blocks per row (5 whole steps and a guarded tail step, split
// unevenly) and rows not a multiple of any batch.
TEST(Q4kGemv, EveryLaunchShapeOfTheTuningFields) {
  PTXKIT_REQUIRE_DEVICE();
  const auto& k = kernel_named("q4k_gemv");
  for (const auto& [rows, cols] : {std::pair{77u, 5124u}, std::pair{1000u, 1348u}})
    for (std::uint32_t split : {1u, 2u, 4u, 8u})
      for (std::uint32_t per_warp : {1u, 2u, 4u, 8u}) {
        const auto values = config_of(
            k, "qwen05b",
            {"rows=" + std::to_string(rows), "cols=" + std::to_string(cols),
             "split=" + std::to_string(split), "rows_per_warp=" + std::to_string(per_warp)});
        const auto in = k.make_inputs(values, test_seed());
        expect_matches_reference(k, values, in,
                                 "q4k_gemv[" + std::to_string(rows) + "x" + std::to_string(cols) +
                                     ", split " + std::to_string(split) + ", " +
                                     std::to_string(per_warp) + " rows per warp]");
      }
}

TEST(GemvF32, TailColumnsWithGuardBands) {
  PTXKIT_REQUIRE_DEVICE();
  const auto& k = kernel_named("gemv_f32");
  for (const auto& [n, kk] : {std::pair{37u, 1031u}, std::pair{4096u, 4096u}}) {
    const auto values =
        config_of(k, "llama", {"n=" + std::to_string(n), "k=" + std::to_string(kk)});
    expect_matches_reference(k, values, k.make_inputs(values, test_seed()),
                             "gemv_f32[" + std::to_string(n) + "x" + std::to_string(kk) + "]");
  }
}

} // namespace
} // namespace ptxkit::device_tests
