// fmt_verify_vs_ptxas.cpp: `ptxkit-speed-bench`: the whole `ptxkit fmt FILE` and
// `ptxkit verify FILE` commands (read, parse, print; read, parse, every analysis, every rule,
// the text report) against `ptxas -arch=<the file's .target> -o /dev/null FILE`, on every file
// above 1 MB of the main and the foreign corpus, then over a 1x..32x concatenation series.
//
// Why: the speed bar is on what a user runs, not on a library call: each command is a fresh
// child process (best of --runs; its output is written to /dev/null), timed by its CPU time
// (user + system from wait4; the machines this runs on are shared, so wall time would measure
// the neighbours) with its peak RSS from the same wait4. Bars (exit status 1 when one is
// missed): on every file above 1 MB, fmt and verify each at least 100x faster than ptxas; on
// every file of at least 4 MB (below that the process's fixed ~8 MB dominates), peak RSS at
// most 8x the file size; over the series (concatenate.h), the cost of an added MB at the largest
// step at most 1.5x its cost over the first half of the series (linear: T = a + b * size, the
// header kept once being a) and RSS at most 8x the size. Exit status 2 when a command fails.
//
// ptxas runs once per file, and twice more when it took under 10 s (its best is kept): on
// CUTLASS's FMHA it takes minutes, and noise there is a small fraction. --ptxas-cache FILE keeps
// its times between runs (keyed by file name and size: ptxas is not what is being changed).
//
// Usage: ptxkit-speed-bench [--ptxkit PATH] [--ptxas PATH] [--runs N] [--ptxas-cache FILE]
//                           [--scale FILE] [--copies N,N,...] [--no-files] [--no-series]
//                           [--quick] [--emit N PATH] [FILE...]
//   with no FILE: every .ptx above 1 MB of the main and the foreign corpus, largest first.
//   --scale: the series' file (default: the largest main-corpus file). --quick (the ctest): the
//   smallest file above 1 MB of each corpus, the series at 1x/2x/4x, one run each, no bar.
//   --emit N PATH: write the series' N-copy file to PATH and exit (to look at it, or give it to
//   ptxas).
#include "bench_process.h"
#include "concatenate.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using ptxkit::bench::read_file;
using ptxkit::bench::Run;

constexpr double kSpeedBar = 100.0;                  // ptxas CPU time / ptxkit CPU time
constexpr double kMemoryBar = 8.0;                   // peak RSS / file size
constexpr std::uintmax_t kMemoryBarFrom = 4'000'000; // files this large carry the memory bar
constexpr double kLinearBar = 1.5;                   // cost of an added MB: last step / first half
constexpr std::uintmax_t kOver1MB = 1'000'001;

struct Options {
  std::string ptxkit = PTXKIT_CLI;
  std::string ptxas = PTXKIT_PTXAS;
  std::string cache;
  std::string scale;
  std::vector<int> copies = {1, 2, 4, 8, 16, 32};
  int runs = 3;
  bool files_table = true;
  bool series = true;
  bool quick = false;
  int emit_copies = 0;
  std::string emit_path;
  std::vector<std::string> files;
};

void usage(std::FILE* to) {
  std::fputs("usage: ptxkit-speed-bench [--ptxkit PATH] [--ptxas PATH] [--runs N] "
             "[--ptxas-cache FILE] [--scale FILE] [--copies N,N,...] [--no-files] [--no-series] "
             "[--quick] [--emit N PATH] [FILE...]\n",
             to);
}

// ptxas CPU seconds per "name size" key, read from and written back to --ptxas-cache.
class PtxasTimes {
public:
  explicit PtxasTimes(std::string path) : path_(std::move(path)) {
    if (path_.empty()) return;
    std::ifstream in(path_);
    std::string name;
    std::uintmax_t size = 0;
    double seconds = 0;
    while (in >> name >> size >> seconds)
      times_[key(name, size)] = seconds;
  }
  const double* find(const std::string& file) const {
    auto it = times_.find(key(fs::path(file).filename().string(), fs::file_size(file)));
    return it == times_.end() ? nullptr : &it->second;
  }
  void put(const std::string& file, double seconds) {
    times_[key(fs::path(file).filename().string(), fs::file_size(file))] = seconds;
    if (path_.empty()) return;
    std::ofstream out(path_);
    for (const auto& [k, s] : times_)
      out << k << ' ' << s << '\n';
  }

private:
  static std::string key(const std::string& name, std::uintmax_t size) {
    return name + ' ' + std::to_string(size);
  }
  std::string path_;
  std::map<std::string, double> times_;
};

// ptxas's CPU seconds on `file`: once, and best of three when that took under 10 s.
std::optional<double> ptxas_seconds(const Options& o, PtxasTimes& cache, const std::string& file) {
  if (const double* s = cache.find(file)) return *s;
  const std::vector<std::string> args = {
      o.ptxas, "-arch=" + ptxkit::bench::target_of(read_file(file)), file, "-o", "/dev/null"};
  Run r = ptxkit::bench::spawn(args, false, /*quiet=*/true, /*discard=*/true);
  if (!r.ok) return std::nullopt;
  double best = r.seconds;
  for (int i = 0; i < 2 && best < 10.0 && !o.quick; ++i) {
    Run again = ptxkit::bench::spawn(args, false, true, true);
    if (again.ok) best = std::min(best, again.seconds);
  }
  cache.put(file, best);
  return best;
}

Run run_command(const Options& o, const char* command, const std::string& file) {
  return ptxkit::bench::best_of({o.ptxkit, command, file}, false, o.runs, /*quiet=*/true,
                                /*discard=*/true);
}

double rss_over_size(const Run& r, std::uintmax_t size) {
  return static_cast<double>(r.max_rss_kb) * 1024.0 / static_cast<double>(size);
}

// The per-file table; returns false when a bar is missed (sets `failed` when a command fails).
bool files_table(const Options& o, PtxasTimes& cache, bool& failed) {
  bool met = true;
  std::printf("| file | MB | fmt CPU ms | verify CPU ms | ptxas CPU ms | ptxas/fmt | "
              "ptxas/verify | fmt RSS/size | verify RSS/size |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  double worst_fmt = 1e30, worst_verify = 1e30;
  std::string worst_fmt_file, worst_verify_file;
  for (const std::string& f : o.files) {
    const std::uintmax_t size = fs::file_size(f);
    const std::string name = fs::path(f).filename().string();
    Run fmt = run_command(o, "fmt", f);
    Run verify = run_command(o, "verify", f);
    std::optional<double> ptxas = ptxas_seconds(o, cache, f);
    if (!fmt.ok || !verify.ok || !ptxas) {
      std::printf("| %s | %.2f | %s | %s | %s | | | | |\n", name.c_str(),
                  static_cast<double>(size) / 1e6, fmt.ok ? "ok" : "FMT FAILED",
                  verify.ok ? "ok" : "VERIFY FAILED (exit status != 0)",
                  ptxas ? "ok" : "PTXAS FAILED");
      failed = true;
      continue;
    }
    const double fmt_ratio = *ptxas / fmt.seconds, verify_ratio = *ptxas / verify.seconds;
    const double fmt_mem = rss_over_size(fmt, size), verify_mem = rss_over_size(verify, size);
    const bool memory_bar = size >= kMemoryBarFrom;
    auto mark = [](bool ok) { return ok ? "" : " **MISSED**"; };
    const bool fmt_fast = fmt_ratio >= kSpeedBar, verify_fast = verify_ratio >= kSpeedBar;
    const bool fmt_small = !memory_bar || fmt_mem <= kMemoryBar;
    const bool verify_small = !memory_bar || verify_mem <= kMemoryBar;
    met = met && fmt_fast && verify_fast && fmt_small && verify_small;
    std::printf("| %s | %.2f | %.1f | %.1f | %.0f | %.0fx%s | %.0fx%s | %.1fx%s | %.1fx%s |\n",
                name.c_str(), static_cast<double>(size) / 1e6, fmt.seconds * 1e3,
                verify.seconds * 1e3, *ptxas * 1e3, fmt_ratio, mark(fmt_fast), verify_ratio,
                mark(verify_fast), fmt_mem, mark(fmt_small), verify_mem, mark(verify_small));
    std::fflush(stdout);
    if (fmt_ratio < worst_fmt) worst_fmt = fmt_ratio, worst_fmt_file = name;
    if (verify_ratio < worst_verify) worst_verify = verify_ratio, worst_verify_file = name;
  }
  if (!worst_fmt_file.empty())
    std::printf("\nslowest against ptxas: fmt %.0fx (%s), verify %.0fx (%s); bar %.0fx; RSS bar "
                "%.0fx the size on files of %.0f MB and more\n",
                worst_fmt, worst_fmt_file.c_str(), worst_verify, worst_verify_file.c_str(),
                kSpeedBar, kMemoryBar, static_cast<double>(kMemoryBarFrom) / 1e6);
  return met;
}

// The concatenation series; returns false when a bar is missed.
bool series_table(const Options& o, bool& failed) {
  const std::string base = read_file(o.scale);
  const fs::path dir =
      fs::temp_directory_path() / ("ptxkit-speed-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::printf("\nSeries: %s, its functions and variables concatenated N times (symbols "
              "renamed)\n\n| N | MB | fmt CPU ms | fmt ms/MB | fmt RSS/size | verify CPU ms | "
              "verify ms/MB | verify RSS/size |\n|---|---|---|---|---|---|---|---|\n",
              fs::path(o.scale).filename().c_str());
  double fmt_first = 0, verify_first = 0, fmt_last = 0, verify_last = 0;
  std::vector<double> sizes, fmt_s, verify_s; // per N measured: MB, CPU seconds
  bool met = true;
  for (int n : o.copies) {
    std::optional<std::string> text = ptxkit::bench::concatenate(base, n);
    if (!text) {
      std::printf("| %d | %s does not parse | | | | | | |\n", n, o.scale.c_str());
      failed = true;
      break;
    }
    const std::string path = (dir / ("x" + std::to_string(n) + ".ptx")).string();
    std::ofstream(path, std::ios::binary) << *text;
    const std::uintmax_t size = text->size();
    text.reset(); // not resident while the children run (see spawn)
    const double mb = static_cast<double>(size) / 1e6;
    Run fmt = run_command(o, "fmt", path);
    Run verify = run_command(o, "verify", path);
    fs::remove(path);
    if (!fmt.ok || !verify.ok) {
      std::printf("| %d | %.1f | %s | | | %s | | |\n", n, mb, fmt.ok ? "ok" : "FMT FAILED",
                  verify.ok ? "ok" : "VERIFY FAILED");
      failed = true;
      continue;
    }
    const double fmt_mem = rss_over_size(fmt, size), verify_mem = rss_over_size(verify, size);
    const bool small = size < kMemoryBarFrom || (fmt_mem <= kMemoryBar && verify_mem <= kMemoryBar);
    met = met && small;
    std::printf("| %d | %.1f | %.0f | %.2f | %.1fx | %.0f | %.2f | %.1fx |%s\n", n, mb,
                fmt.seconds * 1e3, fmt.seconds * 1e3 / mb, fmt_mem, verify.seconds * 1e3,
                verify.seconds * 1e3 / mb, verify_mem, small ? "" : " **RSS MISSED**");
    std::fflush(stdout);
    if (fmt_first == 0) fmt_first = fmt.seconds / mb, verify_first = verify.seconds / mb;
    fmt_last = fmt.seconds / mb, verify_last = verify.seconds / mb;
    sizes.push_back(mb);
    fmt_s.push_back(fmt.seconds);
    verify_s.push_back(verify.seconds);
  }
  fs::remove_all(dir);
  if (fmt_first > 0)
    std::printf("\ntime per MB, largest N over 1x: fmt %.2fx, verify %.2fx\n", fmt_last / fmt_first,
                verify_last / verify_first);
  // Linear is T = a + b * size. The series keeps the file's header (the .file table, debug
  // sections) once and repeats its functions, so a is not 0 and time per MB drifts with N even
  // for linear work (the header parses faster per MB than code): the bar is on b, the cost of
  // each added MB, at the largest step against the steps up to the middle of the series.
  if (sizes.size() >= 3) {
    const std::size_t mid = sizes.size() / 2, n = sizes.size();
    auto growth = [&](const std::vector<double>& t) {
      const double early = (t[mid] - t[0]) / (sizes[mid] - sizes[0]);
      const double late = (t[n - 1] - t[n - 2]) / (sizes[n - 1] - sizes[n - 2]);
      return late / early;
    };
    const double fmt_growth = growth(fmt_s), verify_growth = growth(verify_s);
    const bool linear = fmt_growth <= kLinearBar && verify_growth <= kLinearBar;
    met = met && linear;
    std::printf("cost of an added MB, last step over the first half: fmt %.2fx, verify %.2fx "
                "(bar %.1fx: %s)\n",
                fmt_growth, verify_growth, kLinearBar, linear ? "linear" : "MISSED");
  }
  return met;
}

std::vector<int> parse_copies(const std::string& list) {
  std::vector<int> out;
  for (std::size_t start = 0; start < list.size();) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    int n = std::atoi(list.substr(start, comma - start).c_str());
    if (n > 0) out.push_back(n);
    start = comma + 1;
  }
  return out;
}

} // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--ptxkit" && i + 1 < argc)
      o.ptxkit = argv[++i];
    else if (a == "--ptxas" && i + 1 < argc)
      o.ptxas = argv[++i];
    else if (a == "--runs" && i + 1 < argc)
      o.runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--ptxas-cache" && i + 1 < argc)
      o.cache = argv[++i];
    else if (a == "--scale" && i + 1 < argc)
      o.scale = argv[++i];
    else if (a == "--copies" && i + 1 < argc)
      o.copies = parse_copies(argv[++i]);
    else if (a == "--emit" && i + 2 < argc) {
      o.emit_copies = std::atoi(argv[++i]);
      o.emit_path = argv[++i];
    } else if (a == "--no-files")
      o.files_table = false;
    else if (a == "--no-series")
      o.series = false;
    else if (a == "--quick")
      o.quick = true;
    else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      usage(stderr);
      return 2;
    } else
      o.files.push_back(a);
  }
  const auto main_files = ptxkit::bench::ptx_files_at_least(PTXKIT_CORPUS_DIR, kOver1MB);
  const auto foreign_files = ptxkit::bench::ptx_files_at_least(PTXKIT_FOREIGN_DIR, kOver1MB);
  if (o.quick) {
    o.runs = 1;
    o.copies = {1, 2, 4};
  }
  if (o.files.empty()) {
    if (o.quick) {
      if (!main_files.empty()) o.files.push_back(main_files.back());
      if (!foreign_files.empty()) o.files.push_back(foreign_files.back());
    } else {
      o.files = main_files;
      o.files.insert(o.files.end(), foreign_files.begin(), foreign_files.end());
      std::sort(o.files.begin(), o.files.end(),
                [](const auto& a, const auto& b) { return fs::file_size(a) > fs::file_size(b); });
    }
  }
  if (o.scale.empty() && !main_files.empty()) o.scale = main_files.front();
  if (o.emit_copies > 0 && !o.scale.empty()) {
    std::optional<std::string> text = ptxkit::bench::concatenate(read_file(o.scale), o.emit_copies);
    if (!text) return 2;
    std::ofstream(o.emit_path, std::ios::binary) << *text;
    return 0;
  }
  if ((o.files_table && o.files.empty()) || (o.series && (o.scale.empty() || o.copies.empty()))) {
    std::fprintf(stderr, "ptxkit-speed-bench: nothing to measure (corpus dirs %s, %s)\n",
                 PTXKIT_CORPUS_DIR, PTXKIT_FOREIGN_DIR);
    return 2;
  }
  std::printf("CPU time (user + system, wait4) of fresh processes, best of %d; ptxkit %s\n\n",
              o.runs, o.ptxkit.c_str());
  PtxasTimes cache(o.cache);
  bool failed = false, met = true;
  if (o.files_table) met = files_table(o, cache, failed) && met;
  if (o.series) met = series_table(o, failed) && met;
  if (failed) {
    std::puts("\nptxkit-speed-bench: a command FAILED (see above)");
    return 2;
  }
  if (o.quick) {
    std::puts("\nptxkit-speed-bench: --quick: bars not checked");
    return 0;
  }
  std::puts(met ? "\nptxkit-speed-bench: every bar met"
                : "\nptxkit-speed-bench: a bar was MISSED (see above)");
  return met ? 0 : 1;
}
