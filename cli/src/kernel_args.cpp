// kernel_args.cpp: kernel, --set and --target resolution for the generation commands.
#include "kernel_args.h"

#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/nearest_name.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::cli {

ptxkit::Expected<const kernels::Kernel*> find_kernel(const std::string& name) {
  if (const kernels::Kernel* k = kernels::KernelRegistry::find(name)) return k;
  std::vector<std::string> names;
  for (const kernels::Kernel* k : kernels::KernelRegistry::all())
    names.emplace_back(k->name());
  return make_error("unknown kernel '" + name + "'" + kernels::did_you_mean(name, names) +
                    "; valid kernels: " + kernels::KernelRegistry::names());
}

ptxkit::Expected<kernels::ConfigValues>
config_from_cli(const kernels::Kernel& kernel, const std::vector<std::string>& assignments) {
  return kernels::config_from_assignments(kernel, assignments);
}

ptxkit::Expected<ptxgen::Target> target_from_cli(const std::string& name) {
  return ptxgen::Target::parse(name);
}

std::string target_name(const ptxgen::Target& target) {
  return std::string(target.name());
}

std::vector<ptxgen::Target> all_targets() {
  return ptxgen::Target::all_supported();
}

} // namespace ptxkit::cli
