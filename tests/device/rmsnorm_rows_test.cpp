// rmsnorm_rows_test.cpp: RMSNorm launches beyond the reference configs' shapes, against the CPU
// reference with NaN guard bands (device_check.h).
#include "device_check.h"
#include "device_env.h"

#include <gtest/gtest.h>
#include <string>
#include <utility>

namespace ptxkit::device_tests {
namespace {

// RMSNorm with more rows than grid.y could take, and blocks sized to ragged rows (hidden 900:
// 225 chunks on 256 threads, one partial chunk; hidden 36: 9 chunks on one warp).
TEST(RmsNorm, MoreRowsThanGridYAndRaggedBlocks) {
  PTXKIT_REQUIRE_DEVICE();
  const auto& k = kernel_named("rmsnorm");
  for (const auto& [rows, hidden] :
       {std::pair{70000u, 896u}, std::pair{300u, 900u}, std::pair{129u, 36u}}) {
    const auto values = config_of(
        k, "qwen05b", {"rows=" + std::to_string(rows), "hidden=" + std::to_string(hidden)});
    expect_matches_reference(k, values, k.make_inputs(values, test_seed()),
                             "rmsnorm[" + std::to_string(rows) + "x" + std::to_string(hidden) +
                                 "]");
  }
}

} // namespace
} // namespace ptxkit::device_tests
