// reference_set.cpp: enumeration and generation of the reference instances (gen --all, golden).
#include "reference_set.h"

#include "kernel_args.h"

#include <algorithm>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::cli {

std::vector<ptxgen::Target> golden_targets() {
  std::vector<ptxgen::Target> out;
  for (const char* name : {"sm_80", "sm_90"}) {
    auto t = ptxgen::Target::parse(name);
    if (t) out.push_back(*t);
  }
  return out;
}

std::vector<ReferenceInstance> reference_instances(const std::vector<ptxgen::Target>& targets) {
  std::vector<ReferenceInstance> out;
  for (const kernels::Kernel* k : kernels::KernelRegistry::all()) {
    for (const auto& rc : k->reference_configs()) {
      for (const auto& t : targets) {
        std::string tname(t.name());
        out.push_back({k, &rc, t, std::string(k->name()) + "." + rc.tag + "." + tname + ".ptx",
                       kernels::cache_key(*k, rc.values, tname)});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const ReferenceInstance& a, const ReferenceInstance& b) {
    return a.file_name < b.file_name;
  });
  return out;
}

ptxkit::Expected<std::string> generate_instance(const ReferenceInstance& instance) {
  auto ptx = instance.kernel->generate(instance.config->values, instance.target);
  if (!ptx)
    return make_error(std::string(instance.kernel->name()) + " (" + instance.config->tag + ", " +
                      std::string(instance.target.name()) + "): " + ptx.error().to_string());
  return std::move(ptx->text);
}

std::string golden_header(const ReferenceInstance& instance) {
  return "// ptxkit golden: generator=" + std::string(kernels::generator_version()) +
         " kernel=" + std::string(instance.kernel->name()) + " config=" + instance.config->tag +
         " target=" + std::string(instance.target.name()) + " key=" + instance.key + "\n";
}

ptxkit::Expected<std::string> golden_content(const ReferenceInstance& instance) {
  auto ptx = generate_instance(instance);
  if (!ptx) return ptx.error();
  return golden_header(instance) + *ptx;
}

} // namespace ptxkit::cli
