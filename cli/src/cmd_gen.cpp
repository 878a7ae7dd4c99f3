// cmd_gen.cpp: `ptxkit gen`: PTX of one kernel instance, or of every reference instance.
//
//   ptxkit gen KERNEL [--set FIELD=VALUE]... [--target sm_XX] [--loc] [-o FILE]
//   ptxkit gen --all [--target sm_XX]... --out-dir DIR [--loc]
//
// Output files are written atomically (output_file.h). Bad kernel, field, value or target: exit 2
// with the valid choices. Every instance generated is checked by the verifier rule
// `global-bounds` against the kernel's launch contract (params() and launch(): buffer sizes,
// grid, block): its findings go to stderr, and an error finding (an access that can reach past a
// buffer's logical end) makes the exit code 1, after the PTX is written.
#include "command_registry.h"
#include "diagnostics.h"
#include "kernel_args.h"
#include "kernel_contract.h"
#include "output_file.h"
#include "ptxkit/verifier/report.h"
#include "reference_set.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <ptxkit/kernels/registry.h>
#include <string>
#include <vector>

namespace ptxkit::cli {
namespace {

struct GenArgs {
  std::string kernel;
  std::vector<std::string> sets;
  std::vector<std::string> targets;
  bool loc = false;
  bool all = false;
  std::optional<std::string> output; // absent: standard output
  std::string out_dir;
};

// global-bounds over one generated instance: findings to stderr; true when it found no error.
struct BoundsTally {
  std::size_t instances = 0, sites = 0, errors = 0, warnings = 0;
};
bool check_bounds(const kernels::Kernel& kernel, const kernels::ConfigValues& values,
                  const std::string& ptx, const std::string& path, BoundsTally& tally) {
  verifier::FileReport r = check_global_bounds(kernel, values, ptx, path);
  ++tally.instances;
  for (const auto& st : r.rules)
    tally.sites += st.sites;
  tally.errors += r.error_count();
  tally.warnings += r.warning_count();
  if (!r.findings.empty()) std::cerr << verifier::format_text({r}, false);
  return r.error_count() == 0;
}

int run_one(const GenArgs& o) {
  if (o.targets.size() > 1) return usage_error("gen KERNEL takes at most one --target");
  auto kernel = find_kernel(o.kernel);
  if (!kernel) return usage_error(kernel.error().to_string());
  auto values = config_from_cli(**kernel, o.sets);
  if (!values) return usage_error(values.error().to_string());
  auto target = target_from_cli(o.targets.empty() ? kDefaultTarget : o.targets.front());
  if (!target) return usage_error(target.error().to_string());
  auto ptx = (*kernel)->generate(*values, *target, kernels::GenOptions{.loc = o.loc});
  if (!ptx) return usage_error(ptx.error().to_string());
  BoundsTally tally;
  bool bounded =
      check_bounds(**kernel, *values, ptx->text,
                   o.output ? *o.output : std::string((*kernel)->name()) + ".ptx", tally);
  if (!o.output) {
    std::cout << ptx->text;
    std::cout.flush();
    if (!std::cout) return usage_error("cannot write PTX to stdout");
    return bounded ? kExitOk : kExitFindings;
  }
  std::string error;
  if (!write_file_atomically(*o.output, ptx->text, error)) return usage_error(error);
  return bounded ? kExitOk : kExitFindings;
}

int run_all(const GenArgs& o) {
  if (!o.kernel.empty()) return usage_error("gen --all takes no KERNEL (it generates every one)");
  if (!o.sets.empty()) return usage_error("gen --all takes no --set (it uses reference configs)");
  if (o.output) return usage_error("gen --all writes files to --out-dir, not -o");
  if (o.out_dir.empty()) return usage_error("gen --all needs --out-dir DIR");
  std::vector<ptxgen::Target> targets;
  for (const auto& name : o.targets) {
    auto t = target_from_cli(name);
    if (!t) return usage_error(t.error().to_string());
    targets.push_back(*t);
  }
  if (targets.empty()) targets = all_targets();
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec) return usage_error("cannot create '" + o.out_dir + "': " + ec.message());
  BoundsTally tally;
  std::size_t refused = 0;
  for (const auto& inst : reference_instances(targets)) {
    auto ptx =
        inst.kernel->generate(inst.config->values, inst.target, kernels::GenOptions{.loc = o.loc});
    if (!ptx) return usage_error(inst.file_name + ": " + ptx.error().to_string());
    std::string path = (std::filesystem::path(o.out_dir) / inst.file_name).string();
    std::string error;
    if (!write_file_atomically(path, ptx->text, error)) return usage_error(error);
    std::cout << path << "\n";
    if (!check_bounds(*inst.kernel, inst.config->values, ptx->text, path, tally)) ++refused;
  }
  std::cerr << "global-bounds: " << tally.instances << " instances, " << tally.sites
            << " sites checked: " << tally.errors << " errors, " << tally.warnings << " warnings\n";
  return refused == 0 ? kExitOk : kExitFindings;
}

const CommandRegistration reg{
    "gen", [](CLI::App& app, CommandResult& result) {
      auto o = std::make_shared<GenArgs>();
      auto* sub = app.add_subcommand(
          "gen", "Generate the PTX of a kernel (or, with --all, of every kernel at each of its "
                 "reference configs)");
      const std::string tool(program_name());
      sub->add_option("KERNEL", o->kernel, "Kernel name (see `" + tool + " list`)");
      sub->add_option("--set", o->sets,
                      "Set a config field, FIELD=VALUE (repeatable); floats in any strtof form")
          ->type_name("FIELD=VALUE")
          ->expected(1)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      sub->add_option("--target", o->targets,
                      std::string("Target GPU, e.g. sm_90 (default ") + kDefaultTarget +
                          "); repeatable with --all (default: every supported target)")
          ->type_name("sm_XX")
          ->expected(1)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      sub->add_flag("--loc", o->loc,
                    "Emit .file/.loc lines pointing at the generator's C++ source");
      sub->add_option("-o,--output", o->output,
                      "Write the PTX to FILE (atomically) instead of stdout")
          ->type_name("FILE");
      sub->add_flag("--all", o->all, "Generate every kernel x reference config x target");
      sub->add_option(
             "--out-dir", o->out_dir,
             "With --all: directory for KERNEL.CONFIGTAG.sm_XX.ptx files (created if missing)")
          ->type_name("DIR");
      const std::string gen = "\n  " + tool + " gen ";
      sub->footer("Examples:" + gen + "rmsnorm --set eps=1e-5 --target sm_80" + gen +
                  "--all --target sm_80 --target sm_90 --out-dir out/\n\n" +
                  "Every instance is checked by the rule global-bounds against the kernel's launch "
                  "contract\n(buffer sizes, grid, block); its findings go to stderr.\n\n" +
                  "Exit codes: 0 PTX written, 1 PTX written but global-bounds found an access "
                  "that can reach\npast a buffer's logical end, 2 bad usage, unknown kernel or "
                  "field, bad value or target,\nor an output that cannot be written.");
      sub->callback([o, &result] {
        if (o->all) {
          result.exit_code = run_all(*o);
        } else if (o->kernel.empty()) {
          result.exit_code = usage_error("gen needs a KERNEL or --all; kernels: " +
                                         std::string(kernels::KernelRegistry::names()));
        } else {
          if (!o->out_dir.empty()) {
            result.exit_code = usage_error("--out-dir is for gen --all; use -o FILE");
            return;
          }
          result.exit_code = run_one(*o);
        }
      });
    }};

} // namespace
} // namespace ptxkit::cli
