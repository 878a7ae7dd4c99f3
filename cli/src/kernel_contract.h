// kernel_contract.h: a library kernel's launch contract (params() and launch() of its definition)
// in the verifier's terms, and the `global-bounds` check of one generated instance against it.
//
// Why here: the kernels library knows nothing of the verifier and the verifier nothing of the
// kernels; `ptxkit gen` and `ptxkit lint-keys` (and the test that runs the rule over every
// reference config) join the two.
#pragma once

#include "ptxkit/verifier/contract.h"
#include "ptxkit/verifier/finding.h"

#include <ptxkit/kernels/kernel.h>
#include <string>
#include <string_view>

namespace ptxkit::cli {

// The contract of `kernel` at `values` for the .entry called `entry`: each kInput/kOutput
// parameter's buffer is `elems` elements of its type, each kPointerArray parameter `count`
// pointers `stride_elems` apart into one buffer of `elems` elements; grid and block from
// launch().
[[nodiscard]] verifier::KernelContract kernel_contract(const kernels::Kernel& kernel,
                                                       const kernels::ConfigValues& values,
                                                       std::string_view entry);

// Runs `global-bounds` over `ptx` (the kernel's generated text, named `path` in findings) with the
// contract of every .entry in it. A parse error is reported as an error finding.
[[nodiscard]] verifier::FileReport check_global_bounds(const kernels::Kernel& kernel,
                                                       const kernels::ConfigValues& values,
                                                       const std::string& ptx,
                                                       const std::string& path);

} // namespace ptxkit::cli
