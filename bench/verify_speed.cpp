// verify_speed.cpp: `ptxkit-verify-bench`: times the full `ptxkit verify` work (parse, every
// per-function analysis, every registered rule) against `ptxas -arch=<the file's .target>
// -o /dev/null` on the same files in one run, and prints the ratio per file.
//
// Why: the project's speed bar is "verifying the largest corpus file is at least 10x faster than
// ptxas on it", measured in one run. Verification sits on the path of every kernel load
// (verify_for_load) and of CI, so it must stay a small fraction of what compiling the PTX costs.
// Each verification runs in a fresh child process (best of --runs) that times only its own work
// with CLOCK_PROCESS_CPUTIME_ID; ptxas's time is its user + system CPU time from wait4 (one run:
// it dominates). CPU time, because the machines this runs on are shared (bench_process.h).
// Exit status 1 when the largest file is verified less than 10x faster than ptxas assembles it,
// 2 when a file fails to parse or assemble; --quick (the ctest) runs once and checks no target.
//
// Usage: ptxkit-verify-bench [--ptxas PATH] [--ptxkit PATH] [--runs N] [--quick] [--no-gen]
//                            [FILE...]
//   with no FILE: every corpus file above 1 MB (largest first), then every file that
//   `ptxkit gen --all` writes (into a temporary directory, removed afterwards). --quick: only
//   the smallest corpus file above 1 MB and the sm_90 generated files, one run each.
#include "bench_process.h"
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/verify.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using ptxkit::bench::best_of;
using ptxkit::bench::read_file;
using ptxkit::bench::Run;
using ptxkit::bench::spawn;
using ptxkit::bench::target_of;

constexpr double kTargetRatio = 10.0;

double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Child mode: verify one file as `ptxkit verify` does (default options: every rule, source
// lines read for `.loc`), print "<total s> <parse s> <analyses+rules s> <rules> <functions>
// <errors> <warnings>" on stdout (functions: those with a body, the ones analysed). The total
// (parse + verify_module) is what verify_text does.
int child_verify(const std::string& path) {
  std::string text = read_file(path);
  const double t0 = cpu_now();
  auto parsed = ptxkit::verifier::parse_owned(std::move(text), path);
  const double t1 = cpu_now();
  if (!parsed.ok()) {
    std::fputs(parsed.error().format().c_str(), stderr);
    return 2;
  }
  ptxkit::verifier::FileReport report = ptxkit::verifier::verify_module(parsed.value());
  const double t2 = cpu_now();
  std::size_t functions = 0;
  for (const ptxkit::verifier::Function* fn : parsed.value().functions())
    functions += fn->has_body ? 1 : 0;
  std::printf("%.9f %.9f %.9f %zu %zu %u %u\n", t2 - t0, t1 - t0, t2 - t1, report.rules.size(),
              functions, report.error_count(), report.warning_count());
  return 0;
}

struct Verified {
  double total = 0, parse = 0, rest = 0;
  unsigned long rules = 0, functions = 0, errors = 0, warnings = 0;
};

Verified parse_child_line(const std::string& out) {
  Verified v;
  std::sscanf(out.c_str(), "%lf %lf %lf %lu %lu %lu %lu", &v.total, &v.parse, &v.rest, &v.rules,
              &v.functions, &v.errors, &v.warnings);
  return v;
}

struct Options {
  std::string ptxas = PTXKIT_PTXAS;
  std::string ptxkit = PTXKIT_CLI;
  int runs = 3;
  bool quick = false;
  bool gen = true;
  std::vector<std::string> files;
};

void usage() {
  std::puts("usage: ptxkit-verify-bench [--ptxas PATH] [--ptxkit PATH] [--runs N] [--quick] "
            "[--no-gen] [FILE...]");
}

} // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--child-verify") == 0) return child_verify(argv[2]);
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--ptxas" && i + 1 < argc)
      o.ptxas = argv[++i];
    else if (a == "--ptxkit" && i + 1 < argc)
      o.ptxkit = argv[++i];
    else if (a == "--runs" && i + 1 < argc)
      o.runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--quick")
      o.quick = true;
    else if (a == "--no-gen")
      o.gen = false;
    else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      usage();
      return 2;
    } else
      o.files.push_back(a);
  }
  if (o.quick) o.runs = 1;

  fs::path gen_dir;
  if (o.files.empty()) {
    o.files = ptxkit::bench::ptx_files_at_least(PTXKIT_CORPUS_DIR, 1'000'001);
    if (o.files.empty()) {
      std::fprintf(stderr, "ptxkit-verify-bench: no corpus file above 1 MB in %s\n",
                   PTXKIT_CORPUS_DIR);
      return 2;
    }
    if (o.quick) o.files.erase(o.files.begin(), o.files.end() - 1);
    if (o.gen) {
      gen_dir = fs::temp_directory_path() /
                ("ptxkit-verify-bench-" + std::to_string(static_cast<long>(getpid())));
      std::vector<std::string> gen = {o.ptxkit, "gen", "--all", "--out-dir", gen_dir.string()};
      if (o.quick) gen.insert(gen.end(), {"--target", "sm_90"});
      Run g = spawn(gen, false);
      auto generated = ptxkit::bench::ptx_files_at_least(gen_dir.string(), 0);
      if (!g.ok || generated.empty()) {
        std::fprintf(stderr, "ptxkit-verify-bench: `%s gen --all --out-dir %s` failed\n",
                     o.ptxkit.c_str(), gen_dir.c_str());
        fs::remove_all(gen_dir);
        return 2;
      }
      o.files.insert(o.files.end(), generated.begin(), generated.end());
    }
  }

  const std::string self = fs::read_symlink("/proc/self/exe").string();
  bool failed = false;
  std::string largest;
  std::uintmax_t largest_size = 0;
  double largest_ratio = 0;

  std::printf("| file | MB | functions | verify CPU ms | parse ms | analyses + rules ms | "
              "verify MB/s | verify peak RSS MB | rules | errors | warnings | ptxas CPU ms | "
              "ptxas/verify |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& f : o.files) {
    const std::uintmax_t size = fs::file_size(f);
    const double mb = static_cast<double>(size) / 1e6;
    const std::string name = fs::path(f).filename().string();
    Run v = best_of({self, "--child-verify", f}, true, o.runs);
    Run x = spawn({o.ptxas, "-arch=" + target_of(read_file(f)), f, "-o", "/dev/null"}, false,
                  /*quiet=*/true);
    if (!v.ok || !x.ok) {
      std::printf("| %s | %.3f | | %s | | | | | | | | %s | |\n", name.c_str(), mb,
                  v.ok ? "ok" : "VERIFY FAILED", x.ok ? "ok" : "PTXAS FAILED");
      failed = true;
      continue;
    }
    const Verified r = parse_child_line(v.out);
    const double ratio = x.seconds / r.total;
    if (size > largest_size) {
      largest_size = size;
      largest = name;
      largest_ratio = ratio;
    }
    std::printf("| %s | %.3f | %lu | %.2f | %.2f | %.2f | %.0f | %.1f | %lu | %lu | %lu | %.0f | "
                "%.0fx |\n",
                name.c_str(), mb, r.functions, r.total * 1e3, r.parse * 1e3, r.rest * 1e3,
                mb / r.total, static_cast<double>(v.max_rss_kb) / 1024.0, r.rules, r.errors,
                r.warnings, x.seconds * 1e3, ratio);
  }
  if (!gen_dir.empty()) fs::remove_all(gen_dir);

  if (largest.empty()) {
    std::puts("\nptxkit-verify-bench: nothing was measured");
    return 2;
  }
  const bool met = largest_ratio >= kTargetRatio;
  std::printf("\nlargest file: %s (%.2f MB): ptxas/verify %.1fx (target %.0fx: %s)\n",
              largest.c_str(), static_cast<double>(largest_size) / 1e6, largest_ratio, kTargetRatio,
              o.quick ? "not checked with --quick"
              : met   ? "ok"
                      : "MISSED");
  if (failed) return 2;
  return o.quick || met ? 0 : 1;
}
