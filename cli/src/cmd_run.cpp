// cmd_run.cpp: `ptxkit run KERNEL [--config TAG] [--set FIELD=VALUE]... [--seed N] | --all`.
//
// Proves a kernel on the device: loads it through the runtime (verify_for_load -> kernel cache ->
// checked launch with the kernel's launch contract), runs it on random inputs at a reference shape
// (a fresh seed each run, printed so `--seed` repeats it), with every output poisoned with NaN
// and a guard band after every buffer, and compares with the CPU reference under the tolerance the
// kernel's definition states. Exit 0 all within tolerance, 1 some out of tolerance (or a guard
// band written), 2 bad usage, 3 no CUDA driver or device.
#include "command_registry.h"
#include "device_harness.h"
#include "diagnostics.h"
#include "kernel_args.h"

#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <memory>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/runtime/timing.h>
#include <string>
#include <vector>

namespace ptxkit::cli {
namespace {

namespace rt = ptxkit::runtime;

struct RunOptions {
  std::string kernel;
  bool all = false;
  std::string config;
  std::vector<std::string> sets;
  std::string seed;
};

struct Job {
  const kernels::Kernel* kernel;
  std::string tag; // reference config tag, "custom" when --set changed it
  kernels::ConfigValues values;
};

int device_error(const rt::Error& e) {
  std::cerr << program_name()
            << ": error: " << (e.is_unavailable() ? "no usable CUDA device: " : "") << e.message
            << "\n";
  if (e.is_unavailable()) return kExitNoDevice;
  return e.kind == rt::ErrorKind::kBadArgument ? kExitBadInput : kExitFindings;
}

// Kernel/config/--set resolution, all before the device is touched (bad usage is exit 2 even
// on a machine without a GPU).
ptxkit::Expected<std::vector<Job>> resolve_jobs(const RunOptions& o) {
  std::vector<Job> jobs;
  if (o.all) {
    if (!o.kernel.empty() || !o.sets.empty() || !o.config.empty())
      return make_error("--all takes no KERNEL, --config or --set");
    for (const auto* k : kernels::KernelRegistry::all())
      for (const auto& rc : k->reference_configs())
        jobs.push_back({k, rc.tag, rc.values});
    return jobs;
  }
  if (o.kernel.empty())
    return make_error("give a KERNEL or --all (see `" + std::string(program_name()) + " list`)");
  auto kernel = find_kernel(o.kernel);
  if (!kernel) return kernel.error();
  const auto& refs = (*kernel)->reference_configs();
  Job job{*kernel, "defaults", (*kernel)->defaults()};
  if (!o.config.empty()) {
    const auto* rc = (*kernel)->reference_config(o.config);
    if (rc == nullptr) {
      std::string tags;
      for (const auto& r : refs)
        tags += (tags.empty() ? "" : ", ") + r.tag;
      return make_error("kernel '" + o.kernel + "' has no reference config '" + o.config +
                        "'; its reference configs: " + tags);
    }
    job.tag = rc->tag;
    job.values = rc->values;
  } else if (!refs.empty()) {
    job.tag = refs.front().tag;
    job.values = refs.front().values;
  }
  for (const auto& s : o.sets) {
    auto applied = kernels::apply_assignment(**kernel, job.values, s);
    if (!applied) return applied.error();
    job.tag += "+" + s;
  }
  auto valid = (*kernel)->validate(job.values);
  if (!valid) return valid.error();
  jobs.push_back(std::move(job));
  return jobs;
}

std::string format_seed(std::uint64_t seed) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, seed);
  return buf;
}

// One job: returns 0 within tolerance, 1 outside; an Error for anything else.
rt::Expected<int> run_job(device::Session& session, const Job& job, std::uint64_t seed) {
  auto prepared = device::prepare(session, *job.kernel, job.values);
  if (!prepared) return rt::fail(std::move(prepared).error());
  const auto inputs = job.kernel->make_inputs(job.values, seed);
  device::InstanceOptions options;
  options.guard_elems = 64;
  auto inst = device::Instance::create(session, *prepared, inputs, options);
  if (!inst) return rt::fail(std::move(inst).error());
  PTXKIT_RT_TRY(inst->launch(session));
  auto got = inst->outputs();
  if (!got) return rt::fail(std::move(got).error());
  auto guards = inst->changed_guards();
  if (!guards) return rt::fail(std::move(guards).error());
  auto checks = device::compare_outputs(*prepared, inputs, *got);
  if (!checks) return rt::fail(std::move(checks).error());

  // Time: median of 20 launches after 3 warm-ups (outputs are rewritten, inputs unchanged).
  rt::TimingOptions topt;
  topt.warmup = 3;
  topt.iterations = 20;
  auto timing = rt::time_on_stream(
      session.ctx, session.stream, [&] { return inst->launch(session); }, topt);
  if (!timing) return rt::fail(std::move(timing).error());

  int status = 0;
  std::printf("%s [%s] seed %s: %.2f us (median of %d)\n", std::string(job.kernel->name()).c_str(),
              job.tag.c_str(), format_seed(seed).c_str(), timing->median_us, topt.iterations);
  for (const auto& c : *checks) {
    const bool ok = c.comparison.ok();
    if (!ok) status = 1;
    std::printf("  %s %-14s max abs err %.3g, max rel err %.3g (tolerance abs %.3g rel %.3g): "
                "%zu of %zu out of tolerance, %zu NaN/inf\n",
                ok ? "ok  " : "FAIL", c.buffer.c_str(), c.comparison.max_abs_error,
                c.comparison.max_rel_error, c.tolerance.abs, c.tolerance.rel, c.comparison.failures,
                c.comparison.elements, c.comparison.nan_count);
    if (!ok) std::printf("       %s\n", c.comparison.summary().c_str());
  }
  for (const auto& g : *guards) {
    std::printf("  FAIL guard band after '%s' was written\n", g.c_str());
    status = 1;
  }
  std::fflush(stdout);
  return status;
}

int run_command(const RunOptions& o) {
  auto jobs = resolve_jobs(o);
  if (!jobs) return usage_error(jobs.error().to_string());
  std::uint64_t seed = device::fresh_seed();
  if (!o.seed.empty()) {
    char* end = nullptr;
    seed = std::strtoull(o.seed.c_str(), &end, 0);
    if (end == o.seed.c_str() || *end != '\0')
      return usage_error("--seed: '" + o.seed + "' is not an integer (decimal or 0x hex)");
  }
  auto session = device::Session::open();
  if (!session) return device_error(session.error());
  std::printf("device: %s\nseed %s (repeat with --seed %s)\n", session->describe().c_str(),
              format_seed(seed).c_str(), format_seed(seed).c_str());
  int exit_code = kExitOk;
  std::size_t failed = 0;
  for (const auto& job : *jobs) {
    auto r = run_job(*session, job, seed);
    if (!r) {
      if (r.error().is_unavailable()) return device_error(r.error());
      std::cerr << program_name() << ": error: " << job.kernel->name() << " [" << job.tag
                << "]: " << r.error().message << "\n";
      if (!r.error().jit_log.empty()) std::cerr << r.error().jit_log << "\n";
      exit_code = kExitFindings;
      ++failed;
      continue;
    }
    if (*r != 0) {
      exit_code = kExitFindings;
      ++failed;
    }
  }
  std::printf("%zu of %zu kernel instance(s) within tolerance\n", jobs->size() - failed,
              jobs->size());
  return exit_code;
}

const CommandRegistration reg{
    "run", [](CLI::App& app, CommandResult& result) {
      auto o = std::make_shared<RunOptions>();
      auto* sub = app.add_subcommand(
          "run", "Run a kernel on the CUDA device on random inputs (outputs poisoned with NaN) "
                 "and compare with its CPU reference; exit 1 out of tolerance, 3 no device");
      const std::string tool(program_name());
      sub->add_option("KERNEL", o->kernel, "Kernel name (see `" + tool + " list`)");
      sub->add_flag("--all", o->all, "Every kernel at each of its reference configs");
      sub->add_option("--config", o->config,
                      "Reference config tag to start from (default: the kernel's first)")
          ->type_name("TAG");
      sub->add_option("--set", o->sets, "Set a config field, FIELD=VALUE (repeatable)")
          ->type_name("FIELD=VALUE")
          ->expected(1)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      sub->add_option("--seed", o->seed,
                      "Input seed (decimal or 0x hex) to repeat a run; default: a fresh one")
          ->type_name("N");
      sub->footer("Exit codes: 0 every output within tolerance, 1 an output out of tolerance, a "
                  "guard band\nwritten or a launch that failed, 2 bad usage, unknown kernel, "
                  "config or field, or a bad value,\n3 no CUDA driver or device.");
      sub->callback([o, &result] { result.exit_code = run_command(*o); });
    }};

} // namespace
} // namespace ptxkit::cli
