// kernel.cpp: the config-generic parts of Kernel: defaults, lookup, validation, generation.
//
// Validation always runs before a build, so no builder ever sees a config outside its limits.
#include "error_p.h"

#include <ptxkit/kernels/kernel.h>

namespace ptxkit::kernels {

ConfigValues Kernel::defaults() const {
  ConfigValues out;
  for (const auto& f : fields())
    out.push_back(f.default_value);
  return out;
}

int Kernel::field_index(std::string_view name) const {
  const auto& fs = fields();
  for (std::size_t i = 0; i < fs.size(); ++i)
    if (fs[i].name == name) return static_cast<int>(i);
  return -1;
}

const ReferenceConfig* Kernel::reference_config(std::string_view tag) const {
  for (const auto& r : reference_configs())
    if (r.tag == tag) return &r;
  return nullptr;
}

ptxkit::Expected<void> Kernel::validate(const ConfigValues& values) const {
  const auto& fs = fields();
  if (values.size() != fs.size())
    return fail("kernel '" + std::string(name()) + "': " + std::to_string(values.size()) +
                " config values for " + std::to_string(fs.size()) + " fields");
  for (std::size_t i = 0; i < fs.size(); ++i) {
    auto ok = check_limits(fs[i], values[i]);
    if (!ok) return fail("kernel '" + std::string(name()) + "': " + ok.error().message);
  }
  auto ok = validate_rules(values);
  if (!ok) return fail("kernel '" + std::string(name()) + "': " + ok.error().message);
  return {};
}

ptxkit::Expected<GeneratedPtx> Kernel::generate(const ConfigValues& values,
                                                const ptxgen::Target& target,
                                                const GenOptions& options) const {
  PTXKIT_TRY(validate(values));
  return build(values, target, options);
}

} // namespace ptxkit::kernels
