// kernel_json.cpp: JSON rendering of kernels for `ptxkit list --json` (shape fixed by docs/cli.md).
#include "kernel_json.h"

#include <cstdlib>
#include <ptxkit/kernels/registry.h>
#include <string>

namespace ptxkit::cli {

nlohmann::ordered_json field_value_json(const kernels::FieldInfo& field,
                                        const kernels::FieldValue& value) {
  switch (kernels::type_of(value)) {
  case kernels::FieldType::kU32:
    return std::get<std::uint32_t>(value);
  case kernels::FieldType::kI32:
    return std::get<std::int32_t>(value);
  case kernels::FieldType::kF32: {
    // Through the shortest decimal form, so 1e-6f prints as 1e-06, not 9.99999997e-07.
    std::string text = kernels::format_value(field, value);
    return std::strtod(text.c_str(), nullptr);
  }
  case kernels::FieldType::kBool:
    return std::get<bool>(value);
  case kernels::FieldType::kEnum:
    return kernels::format_value(field, value);
  }
  return nullptr;
}

nlohmann::ordered_json kernel_json(const kernels::Kernel& kernel) {
  nlohmann::ordered_json k = nlohmann::ordered_json::object();
  k["name"] = std::string(kernel.name());
  k["summary"] = std::string(kernel.summary());
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const auto& f : kernel.fields()) {
    nlohmann::ordered_json jf = nlohmann::ordered_json::object();
    jf["name"] = f.name;
    jf["type"] = std::string(kernels::field_type_name(f.type));
    jf["default"] = field_value_json(f, f.default_value);
    jf["baked"] = f.spec.baked;
    fields.push_back(std::move(jf));
  }
  k["fields"] = std::move(fields);
  nlohmann::ordered_json refs = nlohmann::ordered_json::array();
  for (const auto& r : kernel.reference_configs()) {
    nlohmann::ordered_json jr = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < r.values.size(); ++i)
      jr[kernel.fields()[i].name] = field_value_json(kernel.fields()[i], r.values[i]);
    refs.push_back(std::move(jr));
  }
  k["reference_configs"] = std::move(refs);
  return k;
}

nlohmann::ordered_json kernels_json() {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const kernels::Kernel* k : kernels::KernelRegistry::all())
    all.push_back(kernel_json(*k));
  return all;
}

} // namespace ptxkit::cli
