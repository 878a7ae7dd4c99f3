// assign.cpp: parsing of FIELD=VALUE assignments against a kernel's reflected fields.
#include "error_p.h"

#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/nearest_name.h>

namespace ptxkit::kernels {

std::string describe_fields(const Kernel& kernel) {
  std::string out;
  for (const auto& f : kernel.fields()) {
    if (!out.empty()) out += ", ";
    out += f.name + " (" + std::string(field_type_name(f.type)) + ", " + describe_limits(f) + ")";
  }
  return out;
}

ptxkit::Expected<void> apply_assignment(const Kernel& kernel, ConfigValues& values,
                                        std::string_view assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    // Appended, not `"'" + std::string(..)`: that trips a g++ 12 -O3 -Wrestrict false positive.
    std::string message = "'";
    message.append(assignment).append("' is not FIELD=VALUE; fields of '");
    message.append(kernel.name()).append("': ").append(describe_fields(kernel));
    return fail(std::move(message));
  }
  std::string_view name = assignment.substr(0, eq);
  std::string_view text = assignment.substr(eq + 1);
  int index = kernel.field_index(name);
  if (index < 0) {
    std::vector<std::string> names;
    for (const FieldInfo& f : kernel.fields())
      names.push_back(f.name);
    return fail("kernel '" + std::string(kernel.name()) + "' has no field '" + std::string(name) +
                "'" + did_you_mean(name, names) + "; valid fields: " + describe_fields(kernel));
  }
  const FieldInfo& field = kernel.fields()[static_cast<std::size_t>(index)];
  auto value = parse_value(field, text);
  if (!value) return value.error();
  PTXKIT_TRY(check_limits(field, *value));
  values[static_cast<std::size_t>(index)] = *value;
  return {};
}

ptxkit::Expected<ConfigValues>
config_from_assignments(const Kernel& kernel, const std::vector<std::string>& assignments) {
  ConfigValues values = kernel.defaults();
  for (const auto& a : assignments)
    PTXKIT_TRY(apply_assignment(kernel, values, a));
  PTXKIT_TRY(kernel.validate(values));
  return values;
}

} // namespace ptxkit::kernels
