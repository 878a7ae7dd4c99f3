// large_input.cpp: `ptxkit-large-input-bench`: the cost of one huge function. Builds a PTX file
// whose single kernel is a real kernel's body repeated until the file reaches a size (each copy's
// labels renamed, its `ret` dropped, the declarations kept once), then measures `ptxkit fmt` and
// `ptxkit verify` on it in fresh processes: CPU time (user + system, from wait4) and peak RSS.
//
// Why: per-function analyses that are linear on ordinary kernels can turn quadratic in the size
// of one function (a walk up the dominator tree per use, a bitset of every block per loop, a
// table cleared per divergent branch), and only a function of hundreds of thousands of blocks
// shows it. The bar: verify takes at most 3x fmt's CPU time and at most 10x the file's size in
// peak memory on a 50 MB function, and its time per MB stays flat over a 1x..32x size series.
//
// Usage: ptxkit-large-input-bench [--ptxkit PATH] [--source FILE] [--mb N] [--series] [--runs N]
//                                 [--keep FILE]
//   --source: the kernel to replicate (default: Triton's f16 flash attention from the corpus;
//   its first `.entry` is used). --mb: the largest size (default 50). --series: also the sizes
//   mb/32, mb/16 .. mb/2. --keep: also write the largest file there. Exit status 1 when the
//   largest size misses either bar, 2 when a file cannot be built or a command fails.
#include "bench_process.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using ptxkit::bench::best_of;
using ptxkit::bench::read_file;
using ptxkit::bench::Run;

constexpr double kMaxTimeRatio = 3.0;    // verify CPU time / fmt CPU time
constexpr double kMaxMemoryRatio = 10.0; // verify peak RSS / file size

bool is_label_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// The parts of the first `.entry` with a body: everything before its body's '{', the
// declarations of the body (`.reg`, `.shared`, `.local` lines), the rest of the body without
// `ret;` lines, and everything after the closing '}'.
struct Kernel {
  std::string head, decls, code, tail;
  std::set<std::string> labels; // defined in the body
};

std::optional<Kernel> split_first_kernel(const std::string& text) {
  std::size_t entry = text.find(".entry");
  if (entry == std::string::npos) return std::nullopt;
  std::size_t open = text.find('{', entry);
  if (open == std::string::npos) return std::nullopt;
  std::size_t close = open + 1;
  for (int depth = 1; close < text.size() && depth > 0; ++close)
    depth += text[close] == '{' ? 1 : text[close] == '}' ? -1 : 0;
  if (close > text.size()) return std::nullopt;
  Kernel k;
  k.head = text.substr(0, open + 1) + "\n";
  k.tail = "}\n" + text.substr(close);
  std::size_t line_start = open + 1;
  while (line_start < close - 1) {
    std::size_t eol = text.find('\n', line_start);
    if (eol == std::string::npos || eol > close - 1) eol = close - 1;
    std::string line = text.substr(line_start, eol - line_start);
    line_start = eol + 1;
    std::size_t b = line.find_first_not_of(" \t");
    std::string trimmed = b == std::string::npos ? "" : line.substr(b);
    if (trimmed.starts_with(".reg") || trimmed.starts_with(".shared") ||
        trimmed.starts_with(".local")) {
      k.decls += line + "\n";
    } else if (trimmed != "ret;") {
      std::size_t e = 0;
      while (e < trimmed.size() && is_label_char(trimmed[e]))
        ++e;
      if (e > 0 && e < trimmed.size() && trimmed[e] == ':') k.labels.insert(trimmed.substr(0, e));
      k.code += line + "\n";
    }
  }
  if (k.code.empty()) return std::nullopt;
  return k;
}

// `code` with every label of `labels` suffixed by `suffix` (whole identifiers only).
std::string rename_labels(const std::string& code, const std::set<std::string>& labels,
                          const std::string& suffix) {
  std::string out;
  out.reserve(code.size() + code.size() / 8);
  for (std::size_t i = 0; i < code.size();) {
    if (!is_label_char(code[i])) {
      out += code[i++];
      continue;
    }
    std::size_t e = i;
    while (e < code.size() && is_label_char(code[e]))
      ++e;
    std::string word = code.substr(i, e - i);
    out += word;
    if (labels.count(word) != 0) out += suffix;
    i = e;
  }
  return out;
}

// One kernel whose body is `k`'s code repeated until the file has at least `bytes` bytes.
// Copy 0 keeps its label names (debug sections after the kernel may refer to them).
std::string replicate(const Kernel& k, std::size_t bytes) {
  std::string out = k.head + k.decls;
  for (std::size_t copy = 0; out.size() + k.tail.size() + 8 < bytes; ++copy)
    out += copy == 0 ? k.code : rename_labels(k.code, k.labels, "_c" + std::to_string(copy));
  out += "ret;\n" + k.tail;
  return out;
}

struct Options {
  std::string ptxkit = PTXKIT_CLI;
  std::string source = std::string(PTXKIT_CORPUS_DIR) + "/triton36.flash_attn_fwd_f16.sm_90a.ptx";
  double mb = 50;
  bool series = false;
  int runs = 1;
  std::string keep;
};

void usage(std::FILE* to) {
  std::fputs("usage: ptxkit-large-input-bench [--ptxkit PATH] [--source FILE] [--mb N] "
             "[--series] [--runs N] [--keep FILE]\n",
             to);
}

struct Row {
  double mb = 0, fmt_s = 0, verify_s = 0, fmt_peak_mb = 0, verify_peak_mb = 0;
};

} // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--ptxkit" && i + 1 < argc)
      o.ptxkit = argv[++i];
    else if (a == "--source" && i + 1 < argc)
      o.source = argv[++i];
    else if (a == "--mb" && i + 1 < argc)
      o.mb = std::atof(argv[++i]);
    else if (a == "--runs" && i + 1 < argc)
      o.runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--keep" && i + 1 < argc)
      o.keep = argv[++i];
    else if (a == "--series")
      o.series = true;
    else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (!(o.mb > 0)) {
    std::fputs("ptxkit-large-input-bench: --mb must be positive\n", stderr);
    return 2;
  }
  std::optional<Kernel> kernel = split_first_kernel(read_file(o.source));
  if (!kernel) {
    std::fprintf(stderr, "ptxkit-large-input-bench: no kernel with a body in %s\n",
                 o.source.c_str());
    return 2;
  }
  std::vector<double> sizes;
  if (o.series)
    for (int d = 32; d > 1; d /= 2)
      sizes.push_back(o.mb / d);
  sizes.push_back(o.mb);

  const fs::path dir = fs::temp_directory_path() /
                       ("ptxkit-large-input-bench-" + std::to_string(static_cast<long>(getpid())));
  fs::create_directories(dir);
  const std::string file = (dir / "single_function.ptx").string();
  const std::string formatted = (dir / "formatted.ptx").string();
  std::printf("kernel body from %s, repeated into one function\n\n",
              fs::path(o.source).filename().c_str());
  std::printf("| file MB | fmt CPU s | fmt peak MB | verify CPU s | verify peak MB | "
              "verify/fmt time | verify peak / file | verify s per MB |\n"
              "|---|---|---|---|---|---|---|---|\n");
  std::vector<Row> rows;
  bool failed = false;
  for (double mb : sizes) {
    const std::string text = replicate(*kernel, static_cast<std::size_t>(mb * 1e6));
    {
      std::ofstream out(file, std::ios::binary);
      out << text;
    }
    if (!o.keep.empty() && mb == o.mb)
      fs::copy_file(file, o.keep, fs::copy_options::overwrite_existing);
    Row r;
    r.mb = static_cast<double>(text.size()) / 1e6;
    Run f = best_of({o.ptxkit, "fmt", file, "-o", formatted}, false, o.runs);
    // verify exits 1 when it has error findings: that is a result, not a failure.
    Run v;
    for (int k = 0; k < o.runs; ++k) {
      Run again = ptxkit::bench::spawn({o.ptxkit, "verify", "--summary", file}, false, true);
      again.ok = again.exit_status == 0 || again.exit_status == 1;
      if (!again.ok) {
        v = again;
        break;
      }
      v.seconds = v.ok ? std::min(v.seconds, again.seconds) : again.seconds;
      v.max_rss_kb = std::max(v.max_rss_kb, again.max_rss_kb);
      v.ok = true;
    }
    if (!f.ok || !v.ok) {
      std::printf("| %.1f | %s | | %s | | | | |\n", r.mb, f.ok ? "ok" : "FMT FAILED",
                  v.ok ? "ok" : "VERIFY FAILED (exit status 2: see `ptxkit verify` on --keep)");
      failed = true;
      continue;
    }
    r.fmt_s = f.seconds;
    r.verify_s = v.seconds;
    r.fmt_peak_mb = static_cast<double>(f.max_rss_kb) * 1024 / 1e6;
    r.verify_peak_mb = static_cast<double>(v.max_rss_kb) * 1024 / 1e6;
    std::printf("| %.1f | %.2f | %.0f | %.2f | %.0f | %.2fx | %.1fx | %.3f |\n", r.mb, r.fmt_s,
                r.fmt_peak_mb, r.verify_s, r.verify_peak_mb, r.verify_s / r.fmt_s,
                r.verify_peak_mb / r.mb, r.verify_s / r.mb);
    rows.push_back(r);
  }
  fs::remove_all(dir);
  if (failed || rows.empty()) return 2;
  const Row& big = rows.back();
  const bool time_ok = big.verify_s <= kMaxTimeRatio * big.fmt_s;
  const bool memory_ok = big.verify_peak_mb <= kMaxMemoryRatio * big.mb;
  std::printf("\nlargest (%.1f MB): verify/fmt time %.2fx (bar %.0fx: %s), verify peak %.1fx the "
              "file (bar %.0fx: %s)\n",
              big.mb, big.verify_s / big.fmt_s, kMaxTimeRatio, time_ok ? "ok" : "MISSED",
              big.verify_peak_mb / big.mb, kMaxMemoryRatio, memory_ok ? "ok" : "MISSED");
  if (rows.size() > 1)
    std::printf("verify s per MB from %.1f MB to %.1f MB: %.3f -> %.3f (%.2fx; flat is linear)\n",
                rows.front().mb, big.mb, rows.front().verify_s / rows.front().mb,
                big.verify_s / big.mb,
                (big.verify_s / big.mb) / (rows.front().verify_s / rows.front().mb));
  return time_ok && memory_ok ? 0 : 1;
}
