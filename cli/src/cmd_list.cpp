// cmd_list.cpp: `ptxkit list [--json | --targets]`: every kernel of the library, its fields and
// reference configs (or the supported targets).
//
// The JSON shape is fixed by docs/cli.md; everything comes from the kernels' reflected fields, so
// the listing cannot disagree with what `gen --set` accepts or what the key covers.
#include "command_registry.h"
#include "kernel_json.h"

#include <iostream>
#include <memory>
#include <ptxkit/kernels/field.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/target.h>

namespace ptxkit::cli {
namespace {

void print_text(std::ostream& os) {
  for (const kernels::Kernel* k : kernels::KernelRegistry::all()) {
    os << k->name() << "\n  " << k->summary() << "\n  limits: " << k->limits() << "\n  fields:\n";
    for (const auto& f : k->fields()) {
      os << "    " << f.name << " (" << kernels::field_type_name(f.type) << ") default "
         << kernels::format_value(f, f.default_value) << ", "
         << (f.spec.baked ? "baked" : "not baked") << ", valid " << kernels::describe_limits(f)
         << ": " << f.spec.doc << "\n";
      if (!f.spec.baked) os << "      not in the key: " << f.spec.exempt_reason << "\n";
    }
    os << "  reference configs:\n";
    for (const auto& r : k->reference_configs()) {
      os << "    " << r.tag << ": " << r.description << " (";
      for (std::size_t i = 0; i < r.values.size(); ++i)
        os << (i ? ", " : "") << k->fields()[i].name << "="
           << kernels::format_value(k->fields()[i], r.values[i]);
      os << ")\n";
    }
  }
}

const CommandRegistration reg{
    "list", [](CLI::App& app, CommandResult& result) {
      auto json = std::make_shared<bool>(false);
      auto targets = std::make_shared<bool>(false);
      auto* sub = app.add_subcommand("list", "List every kernel of the library with its config "
                                             "fields and reference configs");
      sub->add_flag("--json", *json,
                    "Print a JSON array: [{name, summary, fields: [{name, type, default, baked}], "
                    "reference_configs: [{field: value, ...}]}]");
      sub->add_flag("--targets", *targets,
                    "Print the supported targets instead, one per line (what `gen --all` covers); "
                    "with --json, a JSON array of their names");
      sub->footer("Exit codes: 0 listed, 2 bad usage.");
      sub->callback([json, targets, &result] {
        if (*targets && *json) {
          nlohmann::json names = nlohmann::json::array();
          for (const auto& t : ptxgen::Target::all_supported())
            names.push_back(t.name());
          std::cout << names.dump(2) << "\n";
        } else if (*targets) {
          for (const auto& t : ptxgen::Target::all_supported())
            std::cout << t.name() << "\n";
        } else if (*json) {
          std::cout << kernels_json().dump(2) << "\n";
        } else {
          print_text(std::cout);
        }
        result.exit_code = kExitOk;
      });
    }};

} // namespace
} // namespace ptxkit::cli
