// parse_vs_ptxas.cpp: `ptxkit-parse-bench`: times ptxkit's PTX parse against
// `ptxas -arch=<the file's target> -o /dev/null` on the same files in one run, and shows that
// parse time and peak memory grow linearly (1x, 4x, 16x, 32x copies of one file's body).
//
// Why a separate binary: each measurement runs in a fresh child process so that its peak RSS
// (wait4's ru_maxrss) is the parse's own, the way ptxas's is. Targets (docs/parser.md): parse at
// least 20x faster than ptxas on every file above 1 MB, peak memory under 10x the file size.
// Exit status 1 when a target is missed, so the figures cannot silently regress.
//
// Usage: ptxkit-parse-bench [--ptxas PATH] [--runs N] [--scale FILE] [FILE...]
//   with no FILE: every corpus file of at least 256 KiB, largest first.
#include "bench_process.h"
#include "ptxkit/verifier/parser.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

using ptxkit::bench::best_of;
using ptxkit::bench::read_file;
using ptxkit::bench::Run;
using ptxkit::bench::target_of;

// Child mode: parse one file, print the parse time in seconds on stdout.
int child_parse(const std::string& path) {
  std::string text = read_file(path);
  timespec t0{}, t1{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  auto r = ptxkit::verifier::parse_owned(std::move(text), path);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  if (!r.ok()) {
    std::fputs(r.error().format().c_str(), stderr);
    return 2;
  }
  std::printf("%.9f\n", static_cast<double>(t1.tv_sec - t0.tv_sec) +
                            static_cast<double>(t1.tv_nsec - t0.tv_nsec) * 1e-9);
  return 0;
}

// Header (up to and including .address_size) once, then `copies` copies of the rest.
std::string replicate(const std::string& text, int copies) {
  std::size_t cut = text.find(".address_size");
  cut = cut == std::string::npos ? 0 : text.find('\n', cut) + 1;
  std::string out = text.substr(0, cut);
  std::string body = text.substr(cut);
  out.reserve(cut + body.size() * static_cast<std::size_t>(copies));
  for (int i = 0; i < copies; ++i)
    out += body;
  return out;
}

} // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--child-parse") == 0) return child_parse(argv[2]);
  std::string ptxas = PTXKIT_PTXAS;
  std::string scale_file;
  int runs = 3;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--ptxas" && i + 1 < argc)
      ptxas = argv[++i];
    else if (a == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--scale" && i + 1 < argc)
      scale_file = argv[++i];
    else if (a == "-h" || a == "--help") {
      std::puts("usage: ptxkit-parse-bench [--ptxas PATH] [--runs N] [--scale FILE] [FILE...]");
      return 0;
    } else
      files.push_back(a);
  }
  if (files.empty()) {
    files = ptxkit::bench::ptx_files_at_least(PTXKIT_CORPUS_DIR, 256 * 1024);
  }
  if (files.empty()) {
    std::fprintf(stderr, "ptxkit-parse-bench: no input files (corpus dir %s)\n", PTXKIT_CORPUS_DIR);
    return 2;
  }
  if (scale_file.empty()) scale_file = files.front();
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  bool missed = false;

  std::printf(
      "| file | MB | parse CPU ms | parse MB/s | parse peak RSS MB | RSS/size | ptxas CPU ms | "
      "ptxas peak RSS MB | ptxas/parse |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& f : files) {
    double mb = static_cast<double>(fs::file_size(f)) / 1e6;
    std::string arch = target_of(read_file(f));
    Run p = best_of({self, "--child-parse", f}, true, runs);
    Run x = best_of({ptxas, "-arch=" + arch, f, "-o", "/dev/null"}, false, 1);
    if (!p.ok || !x.ok) {
      std::printf("| %s | %.2f | %s | | | | %s | | |\n", fs::path(f).filename().c_str(), mb,
                  p.ok ? "ok" : "PARSE FAILED", x.ok ? "ok" : "PTXAS FAILED");
      missed = true;
      continue;
    }
    double ratio = x.seconds / p.seconds;
    double mem_ratio = p.max_rss_kb * 1024.0 / (mb * 1e6);
    bool big = mb > 1.0;
    if (big && ratio < 20) missed = true;
    if (big && mem_ratio >= 10) missed = true;
    std::printf("| %s | %.2f | %.1f | %.0f | %.1f | %.1fx | %.0f | %.0f | %.0fx%s |\n",
                fs::path(f).filename().c_str(), mb, p.seconds * 1e3, mb / p.seconds,
                p.max_rss_kb / 1024.0, mem_ratio, x.seconds * 1e3, x.max_rss_kb / 1024.0, ratio,
                big ? (ratio >= 20 ? " (>1 MB: ok)" : " (>1 MB: BELOW 20x)") : "");
  }

  std::printf("\nScaling: %s (header once, body repeated)\n\n",
              fs::path(scale_file).filename().c_str());
  std::printf("| copies | MB | parse CPU ms | MB/s | peak RSS MB | RSS/size "
              "|\n|---|---|---|---|---|---|\n");
  std::string base = read_file(scale_file);
  for (int copies : {1, 4, 16, 32}) { // 32x of the largest corpus file is > 100 MB
    std::string path = (fs::temp_directory_path() / ("ptxkit-scale-" + std::to_string(getpid()) +
                                                     "-" + std::to_string(copies) + ".ptx"))
                           .string();
    {
      std::ofstream out(path, std::ios::binary);
      out << replicate(base, copies);
    }
    double mb = static_cast<double>(fs::file_size(path)) / 1e6;
    Run p = best_of({self, "--child-parse", path}, true, runs);
    fs::remove(path);
    if (!p.ok) {
      std::printf("| %d | %.1f | PARSE FAILED | | | |\n", copies, mb);
      missed = true;
      continue;
    }
    double mem_ratio = p.max_rss_kb * 1024.0 / (mb * 1e6);
    if (mem_ratio >= 10) missed = true;
    std::printf("| %d | %.1f | %.1f | %.0f | %.1f | %.1fx |\n", copies, mb, p.seconds * 1e3,
                mb / p.seconds, p.max_rss_kb / 1024.0, mem_ratio);
  }
  if (missed) std::puts("\nptxkit-parse-bench: a target was missed (see above)");
  return missed ? 1 : 0;
}
