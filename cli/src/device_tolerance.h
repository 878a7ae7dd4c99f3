// device_tolerance.h: how close each kernel's device output must be to its CPU reference.
//
// Stated per kernel (and per output where they differ), with the reason, so a device result is
// judged the same way by `ptxkit run`, the device tests and the docs (docs/device-results.md
// reprints this table). An element passes when |got - want| <= abs + rel * |want|; a NaN where
// the reference is finite never passes (outputs are poisoned with NaN before the launch).
#pragma once

#include <ptxkit/kernels/kernel.h>
#include <ptxkit/ptxgen/expected.h>
#include <ptxkit/runtime/compare.h>
#include <string>
#include <string_view>

namespace ptxkit::cli::device {

// The tolerance of output `buffer` of `kernel` at `values` for `inputs` (some depend on the
// inputs: RoPE on the largest position). An error for a kernel with no stated tolerance.
ptxkit::Expected<runtime::Tolerance> tolerance_for(const kernels::Kernel& kernel,
                                                   const kernels::ConfigValues& values,
                                                   const kernels::HostTensors& inputs,
                                                   const std::string& buffer);

// One line of prose per kernel: the tolerance and why (for --help, docs and test output).
std::string_view tolerance_rationale(std::string_view kernel);

} // namespace ptxkit::cli::device
