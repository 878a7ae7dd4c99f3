// device_check.h: one kernel instance on the device, checked against its CPU reference.
//
// What every device test does: prepare (verify, cache, contract), upload the inputs with a guard
// band of NaN words after every buffer, poison the outputs with NaN, launch, compare each output
// with the reference under the kernel's tolerance, check no guard band was written, then run it
// again on the same inputs and require bit-identical outputs (a moving result is a race).
#pragma once

#include <ptxkit/kernels/kernel.h>
#include <string>

namespace ptxkit::device_tests {

// Adds gtest failures for every mismatch; returns the device outputs (empty on a hard failure).
kernels::HostTensors expect_matches_reference(const kernels::Kernel& kernel,
                                              const kernels::ConfigValues& values,
                                              const kernels::HostTensors& inputs,
                                              const std::string& label);

const kernels::Kernel& kernel_named(const std::string& name);

// Reference config `tag` of `kernel` with FIELD=VALUE assignments applied (asserts they apply).
kernels::ConfigValues config_of(const kernels::Kernel& kernel, const std::string& tag,
                                const std::vector<std::string>& sets = {});

} // namespace ptxkit::device_tests
