// build_support.cpp: finishing and printing a kernel built with ptxgen.
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/ptxgen/module.h>

namespace ptxkit::kernels {

ptxkit::Expected<GeneratedPtx> finish_and_print(ptxgen::KernelBuilder& b,
                                                const GenOptions& options) {
  auto kernel = b.finish();
  if (!kernel) return kernel.error();
  ptxgen::PrintOptions print_options;
  print_options.loc = options.loc;
  ptxgen::PrintedPtx printed = ptxgen::print(*kernel, print_options);
  GeneratedPtx result;
  result.text = std::move(printed.text);
  for (auto& line : printed.baked)
    result.baked.push_back({line.ptx_line, line.instruction, line.field, line.value});
  return result;
}

} // namespace ptxkit::kernels
