// bench_process.h: the process plumbing the bench/ commands share: read a file, run a program in
// a child and take its CPU time and peak RSS from wait4, the `.target` of a PTX text, and the
// corpus files above a size, largest first.
//
// Why shared: ptxkit-parse-bench and ptxkit-verify-bench compare ptxkit against ptxas the same
// way (CPU time, user + system, on a shared machine; each measurement in a fresh process so its
// peak RSS is its own), and the two tables must stay comparable. Header-only: each bench is one
// translation unit plus this.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ptxkit::bench {

// One measured child process.
struct Run {
  bool ok = false;      // exited with status 0
  int exit_status = -1; // its exit status, -1 when it did not exit (a signal)
  double seconds = 0;   // CPU time (see spawn)
  long max_rss_kb = 0;  // peak RSS, from wait4
  std::string out;      // what the child wrote on stdout
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs argv; returns its CPU time (user + system; or the number the child printed first on
// stdout when `child_reports`, for a child that times only its own work) and peak RSS. CPU
// time, not wall time: the machines this runs on are shared, and both sides are measured the
// same way. `quiet` sends the child's stderr to /dev/null; `discard` sends its stdout there too
// (a command's whole output, e.g. `ptxkit fmt`'s, is then written but not kept).
inline Run spawn(const std::vector<std::string>& args, bool child_reports, bool quiet = false,
                 bool discard = false) {
  // Linux carries a process's peak RSS across exec: the forked copy of this process counts
  // every page this one has resident, so the child's ru_maxrss is never below this process's
  // RSS at the fork. Hand freed heap pages back first (the bench reads whole files); what it
  // still holds (a few MB) stays below any ptxkit or ptxas peak.
  malloc_trim(0);
  int pipefd[2];
  if (pipe(pipefd) != 0) return {};
  pid_t pid = fork();
  if (pid < 0) return {};
  if (pid == 0) {
    dup2(pipefd[1], STDOUT_FILENO);
    close(pipefd[0]);
    close(pipefd[1]);
    if (quiet || discard) {
      if (FILE* null = std::fopen("/dev/null", "w")) {
        if (quiet) dup2(fileno(null), STDERR_FILENO);
        if (discard) dup2(fileno(null), STDOUT_FILENO);
      }
    }
    std::vector<char*> argv;
    for (const auto& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(pipefd[1]);
  Run r;
  char buf[256];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0)
    r.out.append(buf, static_cast<std::size_t>(n));
  close(pipefd[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.ok = r.exit_status == 0;
  r.max_rss_kb = ru.ru_maxrss;
  auto secs = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
  };
  r.seconds = child_reports ? std::atof(r.out.c_str()) : secs(ru.ru_utime) + secs(ru.ru_stime);
  return r;
}

// The fastest of `runs` runs (peak RSS: the largest); the first failure ends it.
inline Run best_of(const std::vector<std::string>& args, bool child_reports, int runs,
                   bool quiet = false, bool discard = false) {
  Run best;
  for (int i = 0; i < runs; ++i) {
    Run r = spawn(args, child_reports, quiet, discard);
    if (!r.ok) return r;
    if (!best.ok || r.seconds < best.seconds) {
      best.seconds = r.seconds;
      best.out = r.out;
    }
    best.max_rss_kb = std::max(best.max_rss_kb, r.max_rss_kb);
    best.ok = true;
  }
  return best;
}

// The arch of `.target sm_XX[, ...]` ("sm_80" when the text has none).
inline std::string target_of(const std::string& text) {
  auto pos = text.find(".target");
  if (pos == std::string::npos) return "sm_80";
  pos += 7;
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t'))
    ++pos;
  std::size_t end = pos;
  while (end < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
    ++end;
  return text.substr(pos, end - pos);
}

// The .ptx files of `dir` of at least `min_bytes`, largest first.
inline std::vector<std::string> ptx_files_at_least(const std::string& dir,
                                                   std::uintmax_t min_bytes) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".ptx" && fs::file_size(e.path()) >= min_bytes)
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return fs::file_size(a) > fs::file_size(b); });
  return files;
}

} // namespace ptxkit::bench
