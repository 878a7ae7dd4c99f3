// cmd_key.cpp: `ptxkit key KERNEL [--set FIELD=VALUE]... [--target sm_XX] [--explain]`: the cache
// key of one kernel instance, derived from every baked field (key.h gives the scheme).
#include "command_registry.h"
#include "diagnostics.h"
#include "kernel_args.h"

#include <iostream>
#include <memory>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>
#include <string>
#include <vector>

namespace ptxkit::cli {
namespace {

struct KeyOptions {
  std::string kernel;
  std::vector<std::string> sets;
  std::string target = kDefaultTarget;
  bool explain = false;
};

int run_key(const KeyOptions& o) {
  auto kernel = find_kernel(o.kernel);
  if (!kernel) return usage_error(kernel.error().to_string());
  auto values = config_from_cli(**kernel, o.sets);
  if (!values) return usage_error(values.error().to_string());
  auto target = target_from_cli(o.target);
  if (!target) return usage_error(target.error().to_string());
  std::string tname(target->name());
  std::cout << kernels::cache_key(**kernel, *values, tname) << "\n";
  if (o.explain) {
    std::cout << "# key material (FNV-1a 64 of these lines):\n";
    std::cout << kernels::key_material(**kernel, *values, tname);
    for (const auto& f : (*kernel)->fields())
      if (!f.spec.baked)
        std::cout << "# not in the key: " << f.name << ": " << f.spec.exempt_reason << "\n";
  }
  return kExitOk;
}

const CommandRegistration reg{
    "key", [](CLI::App& app, CommandResult& result) {
      auto o = std::make_shared<KeyOptions>();
      auto* sub = app.add_subcommand(
          "key", "Print the cache key of a kernel instance: NAME-<16 hex>, a hash of every baked "
                 "field, the target and the generator version");
      const std::string tool(program_name());
      sub->add_option("KERNEL", o->kernel, "Kernel name (see `" + tool + " list`)")->required();
      sub->add_option("--set", o->sets, "Set a config field, FIELD=VALUE (repeatable)")
          ->type_name("FIELD=VALUE")
          ->expected(1)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      sub->add_option("--target", o->target,
                      std::string("Target GPU (default ") + kDefaultTarget + ")")
          ->type_name("sm_XX");
      sub->add_flag("--explain", o->explain,
                    "Also print the hashed key material and each field left out with its reason");
      // Examples and messages name the tool as it was run (a kernel tool has its own name).
      const std::string key = "\n  " + tool + " key ";
      sub->footer("Examples:" + key + "rmsnorm --set eps=1e-6         # Qwen2.5 eps" + key +
                  "rmsnorm --set eps=1e-5         # a different key: eps is baked" + key +
                  "rmsnorm --set rows=64          # the same key: rows is launch shape only" + key +
                  "batched_incremental_attention --explain\n\n" +
                  "Exit codes: 0 key printed, 2 bad usage, unknown kernel or field, bad value or "
                  "target.");
      sub->callback([o, &result] { result.exit_code = run_key(*o); });
    }};

} // namespace
} // namespace ptxkit::cli
