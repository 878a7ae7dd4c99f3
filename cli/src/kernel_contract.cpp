// kernel_contract.cpp: see kernel_contract.h.
#include "kernel_contract.h"

#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/verify.h"

namespace ptxkit::cli {

verifier::KernelContract kernel_contract(const kernels::Kernel& kernel,
                                         const kernels::ConfigValues& values,
                                         std::string_view entry) {
  verifier::KernelContract c;
  c.kernel = std::string(entry);
  for (const kernels::ParamSpec& p : kernel.params(values)) {
    std::uint64_t elem = kernels::elem_bytes(p.elem);
    if (p.kind == kernels::ParamKind::kPointerArray)
      c.pointer_arrays.push_back({p.name, p.count, p.elems * elem, p.stride_elems * elem});
    else
      c.buffers.push_back({p.name, p.elems * elem});
  }
  kernels::LaunchDims d = kernel.launch(values);
  c.grid = std::array<std::uint32_t, 3>{d.grid[0], d.grid[1], d.grid[2]};
  c.block = std::array<std::uint32_t, 3>{d.block[0], d.block[1], d.block[2]};
  return c;
}

verifier::FileReport check_global_bounds(const kernels::Kernel& kernel,
                                         const kernels::ConfigValues& values,
                                         const std::string& ptx, const std::string& path) {
  verifier::ParseResult parsed = verifier::parse(ptx, path);
  if (!parsed) {
    verifier::FileReport r;
    r.path = path;
    verifier::Finding f;
    f.rule = "global-bounds";
    f.kernel = std::string(kernel.name());
    f.location = {path, parsed.error().loc.line, parsed.error().loc.col};
    f.message = "generated PTX does not parse: " + parsed.error().message;
    r.findings.push_back(std::move(f));
    return r;
  }
  verifier::VerifyOptions options;
  options.rules = {"global-bounds"};
  options.read_source_lines = false;
  for (const verifier::Function* fn : parsed.value().functions())
    if (fn->has_body && fn->kind == verifier::FunctionKind::kEntry)
      options.contracts.push_back(kernel_contract(kernel, values, fn->name));
  return verifier::verify_module(parsed.value(), options);
}

} // namespace ptxkit::cli
