// device_check.cpp: run-and-compare for the device tests (device_check.h says what it checks).
#include "device_check.h"

#include "device_env.h"

#include <cassert>
#include <cstring>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::device_tests {

namespace dev = cli::device;

const kernels::Kernel& kernel_named(const std::string& name) {
  const auto* k = kernels::KernelRegistry::find(name);
  EXPECT_NE(k, nullptr) << "no kernel " << name;
  assert(k != nullptr);
  return *k;
}

kernels::ConfigValues config_of(const kernels::Kernel& kernel, const std::string& tag,
                                const std::vector<std::string>& sets) {
  const auto* rc = kernel.reference_config(tag);
  EXPECT_NE(rc, nullptr) << kernel.name() << " has no reference config " << tag;
  kernels::ConfigValues v = rc != nullptr ? rc->values : kernel.defaults();
  for (const auto& s : sets) {
    auto r = kernels::apply_assignment(kernel, v, s);
    EXPECT_TRUE(r.has_value()) << s << ": " << (r ? "" : r.error().to_string());
  }
  auto ok = kernel.validate(v);
  EXPECT_TRUE(ok.has_value()) << (ok ? "" : ok.error().to_string());
  return v;
}

namespace {

bool same_bits(const kernels::HostTensors& a, const kernels::HostTensors& b) {
  if (a.u32 != b.u32 || a.f32.size() != b.f32.size()) return false;
  for (const auto& [name, v] : a.f32) {
    auto it = b.f32.find(name);
    if (it == b.f32.end() || it->second.size() != v.size()) return false;
    if (std::memcmp(v.data(), it->second.data(), v.size() * sizeof(float)) != 0) return false;
  }
  return true;
}

} // namespace

kernels::HostTensors expect_matches_reference(const kernels::Kernel& kernel,
                                              const kernels::ConfigValues& values,
                                              const kernels::HostTensors& inputs,
                                              const std::string& label) {
  dev::Session* s = DeviceEnv::session();
  auto prep = dev::prepare(*s, kernel, values);
  if (!prep) {
    ADD_FAILURE() << label << ": prepare failed: " << prep.error().message << "\n"
                  << prep.error().jit_log;
    return {};
  }
  dev::InstanceOptions opt;
  opt.guard_elems = 256;
  auto inst = dev::Instance::create(*s, *prep, inputs, opt);
  if (!inst) {
    ADD_FAILURE() << label << ": buffers: " << inst.error().message;
    return {};
  }
  auto launched = inst->launch(*s);
  if (!launched) {
    ADD_FAILURE() << label << ": launch: " << launched.error().message;
    return {};
  }
  auto got = inst->outputs();
  if (!got) {
    ADD_FAILURE() << label << ": download: " << got.error().message;
    return {};
  }
  auto checks = dev::compare_outputs(*prep, inputs, *got);
  if (!checks) {
    ADD_FAILURE() << label << ": reference: " << checks.error().message;
    return {};
  }
  EXPECT_FALSE(checks->empty()) << label << ": the kernel has no outputs to compare";
  for (const auto& c : *checks) {
    EXPECT_TRUE(c.comparison.ok())
        << label << ": output '" << c.buffer << "' (tolerance abs " << c.tolerance.abs << " rel "
        << c.tolerance.rel << "): " << c.comparison.summary();
    EXPECT_EQ(c.comparison.nan_count, 0u) << label << ": '" << c.buffer << "' left unwritten";
    std::printf("[check] %s %s: max abs err %.3g, max rel err %.3g over %zu elements\n",
                label.c_str(), c.buffer.c_str(), c.comparison.max_abs_error,
                c.comparison.max_rel_error, c.comparison.elements);
  }
  auto guards = inst->changed_guards();
  if (!guards) {
    ADD_FAILURE() << label << ": guard download: " << guards.error().message;
    return *got;
  }
  for (const auto& g : *guards)
    ADD_FAILURE() << label << ": the guard band after '" << g << "' was written";

  // Again on the same inputs: identical bits, or something races.
  auto reset = inst->reset(inputs);
  auto again = reset ? inst->launch(*s) : reset;
  if (!again) {
    ADD_FAILURE() << label << ": second launch: " << again.error().message;
    return *got;
  }
  auto got2 = inst->outputs();
  if (got2) {
    EXPECT_TRUE(same_bits(*got, *got2)) << label << ": a second run gave other bits";
  } else {
    ADD_FAILURE() << label << ": second download: " << got2.error().message;
  }
  return *got;
}

} // namespace ptxkit::device_tests
