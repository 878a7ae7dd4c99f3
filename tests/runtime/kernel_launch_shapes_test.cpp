// kernel_launch_shapes_test.cpp: every library kernel's launch, at each of its reference configs
// and bench cases, passes the runtime's launch checks against the signature of the PTX that
// config generates, with no GPU: the parameters the launch passes against the .entry's, the block
// against .reqntid/.maxntid, grid and block against an H200's limits.
//
// The builder and Kernel::launch compute the block shape separately (the PTX bakes it, the launch
// states it), so a launch that leaves out a field the builder reads (say, a block size that
// depends on the element type) would otherwise surface only as a refused launch on the device.
#include "ptxkit/runtime/launch.h"
#include "ptxkit/runtime/module.h"
#include "ptxkit/verifier/verified_ptx.h"

#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/target.h>
#include <string>
#include <vector>

namespace ptxkit::runtime {
namespace {

// The limits cuDeviceGetAttribute reports on an H200 (sm_90).
DeviceInfo h200() {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.cc = {9, 0};
  d.max_threads_per_block = 1024;
  d.max_block = {1024, 1024, 64};
  d.max_grid = {2147483647u, 65535, 65535};
  d.max_shared_per_block = 48 * 1024;
  d.max_shared_per_block_optin = 227 * 1024;
  d.warp_size = 32;
  d.multiprocessors = 132;
  return d;
}

// The launch check of one kernel instance; a message naming what failed, or "".
std::string check_instance(const kernels::Kernel& k, const kernels::ConfigValues& values) {
  const auto target = ptxgen::Target::parse("sm_90");
  if (!target) return "no sm_90 target";
  auto ptx = k.generate(values, *target);
  if (!ptx) return "generate: " + ptx.error().to_string();
  auto verified = verifier::verify_for_load(std::move(ptx->text), std::string(k.name()));
  if (!verified.ok()) return "verify_for_load: " + verified.error().message;
  const auto entries = verified.value().module().entries();
  if (entries.size() != 1) return std::to_string(entries.size()) + " .entry functions, not 1";
  const KernelSignature sig = signature_of(*entries.front());

  // Every library parameter is a 64-bit pointer (a buffer or an array of buffer pointers), in
  // the order of Kernel::params.
  const std::vector<kernels::ParamSpec> params = k.params(values);
  std::vector<std::uint32_t> sizes(params.size(), 8);
  for (std::size_t i = 0; i < params.size() && i < sig.params.size(); ++i)
    if (params[i].name != sig.params[i].name)
      return "parameter " + std::to_string(i) + " is '" + params[i].name +
             "' in Kernel::params but '" + sig.params[i].name + "' in the .entry";

  const kernels::LaunchDims d = k.launch(values);
  LaunchDims dims;
  dims.grid = {d.grid[0], d.grid[1], d.grid[2]};
  dims.block = {d.block[0], d.block[1], d.block[2]};
  dims.dynamic_smem_bytes = d.dynamic_smem_bytes;
  auto ok = check_launch(sig, h200(), FunctionLimits{}, nullptr, dims, sizes);
  return ok ? std::string() : ok.error().message;
}

TEST(KernelLaunchShapes, EveryReferenceConfigAndBenchCaseLaunchesAsItsPtxDeclares) {
  std::size_t checked = 0;
  for (const kernels::Kernel* k : kernels::KernelRegistry::all()) {
    for (const auto& rc : k->reference_configs()) {
      EXPECT_EQ(check_instance(*k, rc.values), "") << k->name() << " [" << rc.tag << "]";
      ++checked;
    }
    for (const kernels::BenchCase& c : k->bench_cases()) {
      kernels::ConfigValues values = k->defaults();
      if (const auto* rc = k->reference_config(c.config)) values = rc->values;
      for (const auto& set : c.sets)
        ASSERT_TRUE(kernels::apply_assignment(*k, values, set)) << c.name << ": " << set;
      EXPECT_EQ(check_instance(*k, values), "") << k->name() << " bench case " << c.name;
      ++checked;
    }
  }
  // Every kernel has reference configs; fewer instances than kernels means the loop saw nothing.
  EXPECT_GT(checked, kernels::KernelRegistry::all().size());
}

// The check above can fail: a launch one warp wider than the PTX's .reqntid is refused.
TEST(KernelLaunchShapes, ABlockThatDiffersFromReqntidIsRefused) {
  const kernels::Kernel* k = kernels::KernelRegistry::find("softmax_rows");
  ASSERT_NE(k, nullptr);
  const auto& rc = k->reference_configs().front();
  const auto target = ptxgen::Target::parse("sm_90");
  ASSERT_TRUE(target);
  auto ptx = k->generate(rc.values, *target);
  ASSERT_TRUE(ptx);
  auto verified = verifier::verify_for_load(std::move(ptx->text), "softmax_rows");
  ASSERT_TRUE(verified.ok());
  const KernelSignature sig = signature_of(*verified.value().module().entries().front());
  ASSERT_TRUE(sig.reqntid);
  const kernels::LaunchDims d = k->launch(rc.values);
  LaunchDims dims;
  dims.grid = {d.grid[0], d.grid[1], d.grid[2]};
  dims.block = {d.block[0] + 32, d.block[1], d.block[2]};
  std::vector<std::uint32_t> sizes(sig.params.size(), 8);
  auto refused = check_launch(sig, h200(), FunctionLimits{}, nullptr, dims, sizes);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("does not match .reqntid"), std::string::npos)
      << refused.error().message;
}

} // namespace
} // namespace ptxkit::runtime
