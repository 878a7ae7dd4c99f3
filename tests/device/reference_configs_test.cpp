// reference_configs_test.cpp: every library kernel at each of its reference configs on the GPU,
// on fresh random inputs, against its CPU reference (device_check.h: NaN-poisoned outputs, guard
// bands, a repeat run for bit-identity). One test per kernel x config, so a new kernel or config
// is covered without editing this file.
#include "device_check.h"
#include "device_env.h"

#include <gtest/gtest.h>
#include <ptxkit/kernels/registry.h>
#include <string>
#include <vector>

namespace ptxkit::device_tests {
namespace {

struct Instance {
  std::string kernel;
  std::string tag;
};

std::vector<Instance> all_instances() {
  std::vector<Instance> v;
  for (const auto* k : kernels::KernelRegistry::all())
    for (const auto& rc : k->reference_configs())
      v.push_back({std::string(k->name()), rc.tag});
  return v;
}

class ReferenceConfig : public ::testing::TestWithParam<Instance> {};

TEST_P(ReferenceConfig, MatchesCpuReference) {
  PTXKIT_REQUIRE_DEVICE();
  const auto& kernel = kernel_named(GetParam().kernel);
  const auto values = config_of(kernel, GetParam().tag);
  const auto seed = test_seed();
  const auto inputs = kernel.make_inputs(values, seed);
  const auto out = expect_matches_reference(kernel, values, inputs,
                                            GetParam().kernel + "[" + GetParam().tag + "]");
  EXPECT_FALSE(out.f32.empty() && out.u32.empty());
}

INSTANTIATE_TEST_SUITE_P(Device, ReferenceConfig, ::testing::ValuesIn(all_instances()),
                         [](const ::testing::TestParamInfo<Instance>& info) {
                           return info.param.kernel + "_" + info.param.tag;
                         });

TEST(ReferenceConfigList, CoversEveryKernel) {
  // Runs without a GPU: the parameter list above is built from the registry, all 20 entries.
  std::size_t kernels_seen = 0;
  for (const auto* k : kernels::KernelRegistry::all()) {
    EXPECT_FALSE(k->reference_configs().empty()) << k->name() << " has no reference config";
    ++kernels_seen;
  }
  EXPECT_GE(kernels_seen, 19u);
  EXPECT_GE(all_instances().size(), kernels_seen);
}

} // namespace
} // namespace ptxkit::device_tests
