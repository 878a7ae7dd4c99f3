// build_support.h: what every kernel builder does at its end: finish the ptxgen kernel and print
// it, keeping the baked-immediate report.
#pragma once

#include <ptxkit/kernels/kernel.h>
#include <ptxkit/ptxgen/builder.h>

namespace ptxkit::kernels {

// b.finish(), then the module printer (with .loc lines when options.loc); the builder's first
// recorded error otherwise.
[[nodiscard]] ptxkit::Expected<GeneratedPtx> finish_and_print(ptxgen::KernelBuilder& b,
                                                              const GenOptions& options);

} // namespace ptxkit::kernels
