// cmd_bench.cpp: `ptxkit bench [KERNEL|CASE...] [--json] [--list]`.
//
// Times the library's kernels on the device at the large shapes of their performance targets
// (device_bench.h): CUDA events, the median of many samples after warm-up, achieved GB/s (and
// GFLOP/s for GEMV and attention) beside the measured device-to-device copy bandwidth, each
// performance target judged met or missed, and the checked launch path against raw cuLaunchKernel.
// `--json` prints the same as one JSON object (what scripts/compare-pytorch.py reads). Exit 0 when
// every case ran (targets missed are reported, not failures), 1 when a case failed to run or gave a
// wrong result, 2 bad usage, 3 no CUDA driver or device.
#include "command_registry.h"
#include "device_bench.h"
#include "device_harness.h"
#include "diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ptxkit/kernels/registry.h>
#include <string>
#include <vector>

namespace ptxkit::cli {
namespace {

namespace rt = ptxkit::runtime;

struct BenchOptions {
  std::vector<std::string> names;
  bool json = false;
  bool list = false;
};

nlohmann::json to_json(const device::BenchReport& r) {
  nlohmann::json j;
  j["device"] = r.device;
  j["copy"] = {{"bytes", r.copy_bytes}, {"gbps", r.copy_gbps}};
  j["cases"] = nlohmann::json::array();
  for (const auto& c : r.results) {
    nlohmann::json e = {{"name", c.name},     {"kernels", c.kernels},
                        {"shape", c.shape},   {"median_us", c.median_us},
                        {"min_us", c.min_us}, {"bytes", c.bytes},
                        {"gbps", c.gbps},     {"pct_of_copy", c.pct_of_copy},
                        {"gflops", c.gflops}, {"target", c.target},
                        {"note", c.note}};
    e["met"] = c.met ? nlohmann::json(*c.met) : nlohmann::json(nullptr);
    j["cases"].push_back(std::move(e));
  }
  if (r.overhead) {
    const auto& o = *r.overhead;
    j["launch_overhead"] = {{"launches", o.launches},
                            {"rounds", o.rounds},
                            {"raw_us", o.raw_us},
                            {"checked_us", o.checked_us},
                            {"diff_pct", o.diff_pct},
                            {"target", "within 10% of raw"},
                            {"met", o.met}};
  }
  return j;
}

void print_table(const device::BenchReport& r) {
  std::printf("device: %s\ncopy bandwidth (D2D, read + written): %.1f GB/s\n\n", r.device.c_str(),
              r.copy_gbps);
  std::printf("%-38s %10s %9s %7s %9s  %s\n", "case", "median us", "GB/s", "% copy", "GFLOP/s",
              "target");
  for (const auto& c : r.results) {
    std::string verdict = c.met ? (*c.met ? "met: " : "MISSED: ") : "";
    std::printf("%-38s %10.2f %9.1f %6.1f%% %9.1f  %s%s\n", c.name.c_str(), c.median_us, c.gbps,
                c.pct_of_copy, c.gflops, verdict.c_str(),
                c.target.empty() ? "(informative)" : c.target.c_str());
    if (!c.note.empty()) std::printf("%38s   %s\n", "", c.note.c_str());
  }
  if (r.overhead) {
    const auto& o = *r.overhead;
    std::printf("\nlaunch path, %d launches x %d rounds (median): raw cuLaunchKernel %.3f us, "
                "checked Function::launch %.3f us: %+.1f%% (%s: within 10%%)\n",
                o.launches, o.rounds, o.raw_us, o.checked_us, o.diff_pct, o.met ? "met" : "MISSED");
  }
}

int run_bench(const BenchOptions& o) {
  const auto& cases = device::bench_cases();
  if (o.list) {
    for (const auto& c : cases) {
      std::printf("%s:", c.name.c_str());
      for (const auto& k : c.kernels)
        std::printf(" %s", k.c_str());
      std::printf("\n");
    }
    return kExitOk;
  }
  for (const auto& n : o.names) {
    bool known = kernels::KernelRegistry::find(n) != nullptr;
    for (const auto& c : cases) // a case's name, or what it launches ("decoder" for the steps)
      known = known || c.name == n ||
              std::find(c.kernels.begin(), c.kernels.end(), n) != c.kernels.end();
    if (!known)
      return usage_error("unknown kernel or case '" + n +
                         "'; kernels: " + kernels::KernelRegistry::names() + "; cases: see `" +
                         std::string(program_name()) + " bench --list`");
  }
  auto session = device::Session::open();
  if (!session) {
    const auto& e = session.error();
    std::cerr << program_name()
              << ": error: " << (e.is_unavailable() ? "no usable CUDA device: " : "") << e.message
              << "\n";
    return e.is_unavailable() ? kExitNoDevice : kExitFindings;
  }
  auto report = device::run_benchmarks(*session, o.names, o.json ? std::cerr : std::cout);
  if (!report) {
    const auto& e = report.error();
    std::cerr << program_name() << ": error: " << e.message << "\n";
    return e.is_unavailable() ? kExitNoDevice : kExitFindings;
  }
  if (o.json) {
    std::cout << to_json(*report).dump(2) << "\n";
  } else {
    std::printf("\n");
    print_table(*report);
  }
  for (const auto& c : report->results)
    if (c.note.rfind("error: ", 0) == 0) return kExitFindings;
  return kExitOk;
}

const CommandRegistration reg{
    "bench", [](CLI::App& app, CommandResult& result) {
      auto o = std::make_shared<BenchOptions>();
      auto* sub = app.add_subcommand(
          "bench", "Time kernels on the CUDA device at large shapes (CUDA events, median after "
                   "warm-up): GB/s and GFLOP/s beside the D2D copy bandwidth; exit 3 no device");
      sub->add_option("NAME", o->names,
                      "Kernels or case names to time (default: every case; see --list)")
          ->type_name("");
      sub->add_flag("--json", o->json, "Print the results as one JSON object (progress on stderr)");
      sub->add_flag("--list", o->list, "List the cases and the kernels each launches");
      sub->footer("Each timed sample starts from a cold and clean L2 (an untimed read-only pass "
                  "over twice the L2);\nGEMV cases are also timed back to back over rotating "
                  "copies of the weights. Every case checks its\noutput where a reference "
                  "exists.\n\n"
                  "Exit codes: 0 every case ran (a missed target is reported, not a failure), 1 a "
                  "case failed\nto run or disagreed with its reference, 2 bad usage, unknown "
                  "kernel or case, 3 no CUDA driver\nor device.");
      sub->callback([o, &result] { result.exit_code = run_bench(*o); });
    }};

} // namespace
} // namespace ptxkit::cli
