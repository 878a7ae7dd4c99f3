// cmd_lint_keys.cpp: `ptxkit lint-keys [KERNEL...]`: proves, per kernel, that the cache key covers
// every config field that can change the PTX (provenance, differential, golden; key_lint.h).
//
// Kernels are linted on a few threads (each kernel's proof is independent and generation is
// pure), and the reports are printed in registry order afterwards, so output is deterministic.
// Then every reference config of each kernel is generated at each target and checked by the
// verifier rule `global-bounds` against the kernel's launch contract (kernel_contract.h): an
// access that can reach past a buffer's logical end is a violation too.
// Exit codes follow docs/cli.md: 0 clean (warnings allowed), 1 violations, 2 unknown kernel or
// target.
#include "command_registry.h"
#include "diagnostics.h"
#include "kernel_args.h"
#include "kernel_contract.h"
#include "parallel_for.h"
#include "ptxkit/verifier/report.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <iostream>
#include <memory>
#include <ptxkit/kernels/key_lint.h>
#include <ptxkit/kernels/registry.h>
#include <string>
#include <thread>
#include <vector>

namespace ptxkit::cli {
namespace {

struct LintKeysOptions {
  std::vector<std::string> kernels;
  std::vector<std::string> targets;
  std::string golden_dir = "golden";
  bool golden_dir_given = false;
  bool every_target = false;
  bool quiet = false;
  unsigned jobs = 0;
};

const char* severity_name(kernels::KeyFinding::Severity s) {
  return s == kernels::KeyFinding::Severity::kViolation ? "violation" : "warning";
}

void print_report(const kernels::KernelKeyReport& r, bool quiet) {
  std::cout << r.kernel << ": " << r.fields_checked << " fields checked (" << r.fields_in_key
            << " in the key), " << r.immediates_checked << " immediates checked, "
            << r.configs_tried << " configs tried (" << r.configs_refused
            << " refused by validation), " << r.instances << " PTX instances; " << r.violations()
            << " violations, " << r.warnings() << " warnings\n";
  if (!quiet) {
    std::cout << "  provenance at " << r.provenance_config << " (" << r.provenance.size()
              << " baked immediates):\n";
    for (const auto& line : r.provenance)
      std::cout << "    " << line << "\n";
  }
  for (const auto& f : r.findings)
    std::cout << "  " << r.kernel << ": " << severity_name(f.severity) << ": [" << f.proof << "] "
              << f.message << "\n";
}

int run_lint_keys(const LintKeysOptions& o) {
  std::vector<const kernels::Kernel*> selected;
  if (o.kernels.empty()) {
    selected = kernels::KernelRegistry::all();
  } else {
    for (const auto& name : o.kernels) {
      auto k = find_kernel(name);
      if (!k) return usage_error(k.error().to_string());
      if (std::find(selected.begin(), selected.end(), *k) == selected.end()) selected.push_back(*k);
    }
  }
  kernels::KeyLintOptions lint;
  lint.every_target = o.every_target;
  if (o.targets.empty()) {
    // The default target first: it sees every perturbation; the others take turns.
    auto def = target_from_cli(kDefaultTarget);
    if (def) lint.targets.push_back(*def);
    for (const auto& t : all_targets())
      if (!def || !(t == *def)) lint.targets.push_back(t);
  } else {
    for (const auto& name : o.targets) {
      auto t = target_from_cli(name);
      if (!t) return usage_error(t.error().to_string());
      lint.targets.push_back(*t);
    }
  }

  std::vector<ptxkit::Expected<kernels::KernelKeyReport>> reports(
      selected.size(), ptxkit::Error{"not linted", {}, 0, 0});
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < selected.size(); i = next++)
      reports[i] = kernels::lint_kernel_keys(*selected[i], lint);
  };
  unsigned jobs =
      o.jobs != 0 ? o.jobs : std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(std::max<std::size_t>(1, selected.size())));
  std::vector<std::thread> threads;
  for (unsigned j = 1; j < jobs; ++j)
    threads.emplace_back(worker);
  worker();
  for (auto& t : threads)
    t.join();

  std::size_t violations = 0, warnings = 0, fields = 0, immediates = 0, configs = 0, refused = 0,
              instances = 0;
  for (const auto& r : reports) {
    if (!r) {
      std::cerr << program_name() << ": error: " << r.error().to_string() << "\n";
      ++violations;
      continue;
    }
    print_report(*r, o.quiet);
    violations += r->violations();
    warnings += r->warnings();
    fields += r->fields_checked;
    immediates += r->immediates_checked;
    configs += r->configs_tried;
    refused += r->configs_refused;
    instances += r->instances;
  }

  std::vector<std::string> names;
  if (!o.kernels.empty())
    for (const auto* k : selected)
      names.emplace_back(k->name());
  std::error_code ec;
  if (o.golden_dir_given || std::filesystem::is_directory(o.golden_dir, ec)) {
    auto golden = kernels::lint_golden_keys(o.golden_dir, names);
    if (!golden) return usage_error(golden.error().to_string());
    // "golden directory 'golden'", never "golden golden": the default directory's name is the
    // word itself.
    std::cout << "golden directory '" << o.golden_dir << "': " << golden->files << " files, "
              << golden->keys << " distinct keys, " << golden->shared_key_sets
              << " keys shared by several files (compared byte for byte)\n";
    for (const auto& f : golden->findings)
      std::cout << "  golden: " << severity_name(f.severity) << ": [golden] " << f.message << "\n";
    violations += golden->findings.size();
  } else {
    std::cout << "golden: no directory '" << o.golden_dir
              << "' here: the golden proof did not run (pass --golden-dir)\n";
  }

  auto count = [](std::size_t n, std::string_view noun) {
    return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
  };

  // global-bounds over every reference config of every selected kernel at every target.
  struct Instance {
    const kernels::Kernel* kernel;
    const kernels::ReferenceConfig* config;
    const ptxgen::Target* target;
  };
  std::vector<Instance> instances_to_check;
  for (const auto* k : selected)
    for (const auto& rc : k->reference_configs())
      for (const auto& t : lint.targets)
        instances_to_check.push_back({k, &rc, &t});
  std::vector<verifier::FileReport> bounds(instances_to_check.size());
  parallel_for(instances_to_check.size(), jobs, [&](std::size_t i) {
    const Instance& in = instances_to_check[i];
    std::string name = std::string(in.kernel->name()) + "." + in.config->tag + "." +
                       std::string(in.target->name()) + ".ptx";
    auto ptx = in.kernel->generate(in.config->values, *in.target);
    if (!ptx) {
      bounds[i].path = name;
      verifier::Finding f;
      f.rule = "global-bounds";
      f.kernel = std::string(in.kernel->name());
      f.location.path = name;
      f.message = "generation failed: " + ptx.error().to_string();
      bounds[i].findings.push_back(std::move(f));
      return;
    }
    bounds[i] = check_global_bounds(*in.kernel, in.config->values, ptx->text, name);
  });
  std::size_t bound_sites = 0, bound_errors = 0, bound_warnings = 0, bound_configs = 0;
  for (const auto* k : selected)
    bound_configs += k->reference_configs().size();
  for (const auto& r : bounds) {
    for (const auto& st : r.rules)
      bound_sites += st.sites;
    bound_errors += r.error_count();
    bound_warnings += r.warning_count();
    if (!r.findings.empty()) std::cout << verifier::format_text({r}, false);
  }
  violations += bound_errors;
  warnings += bound_warnings;
  std::cout << "global-bounds: " << count(bound_configs, "reference config") << " of "
            << count(selected.size(), "kernel") << " at " << count(lint.targets.size(), "target")
            << " (" << count(bounds.size(), "PTX instance") << "), "
            << count(bound_sites, "access site")
            << " checked against the launch contracts: " << count(bound_errors, "error") << ", "
            << count(bound_warnings, "warning") << "\n";
  std::cout << "lint-keys: " << count(selected.size(), "kernel") << ", "
            << count(lint.targets.size(), "target") << ", " << count(fields, "field") << ", "
            << count(immediates, "immediate") << ", " << count(configs, "config") << " tried ("
            << refused << " refused), " << count(instances, "PTX instance") << ": "
            << count(violations, "violation") << ", " << count(warnings, "warning") << "\n";
  return violations == 0 ? kExitOk : kExitFindings;
}

const CommandRegistration reg{
    "lint-keys", [](CLI::App& app, CommandResult& result) {
      auto o = std::make_shared<LintKeysOptions>();
      auto* sub = app.add_subcommand(
          "lint-keys", "Prove that each kernel's cache key covers every config field that can "
                       "change its PTX (provenance, differential and golden proofs), and that no "
                       "reference config reads past a buffer of its launch contract "
                       "(global-bounds)");
      sub->add_option("KERNEL", o->kernels, "Kernels to check (default: the whole library)");
      sub->add_option("--target", o->targets,
                      "Targets to generate at (repeatable; default: every supported target)")
          ->type_name("sm_XX")
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      sub->add_flag("--every-target", o->every_target,
                    "Generate every perturbation at every target (default: the first target "
                    "plus one that rotates through the others)");
      auto* golden = sub->add_option("--golden-dir", o->golden_dir,
                                     "Golden directory for the golden proof (default: golden)")
                         ->type_name("DIR");
      sub->add_flag("--quiet", o->quiet, "Leave out the per-kernel list of baked immediates");
      sub->add_option("-j,--jobs", o->jobs, "Kernels linted in parallel (default: up to 4)")
          ->type_name("N");
      const std::string tool(program_name());
      const std::string lint = "\n  " + tool + " lint-keys";
      sub->footer("Examples:" + lint + "                      # the whole library" + lint +
                  " rmsnorm rope_neox    # two kernels" + lint +
                  " --every-target --golden-dir golden\n\n" +
                  "Exit codes: 0 every key covers all that changes its PTX and every access is in "
                  "bounds (warnings\ndo not fail), 1 violations or global-bounds errors, 2 bad "
                  "usage, unknown kernel or target, or a golden directory "
                  "that cannot be read.");
      sub->callback([o, golden, &result] {
        o->golden_dir_given = golden->count() > 0;
        result.exit_code = run_lint_keys(*o);
      });
    }};

} // namespace
} // namespace ptxkit::cli
