// cmd_validate.cpp: `ptxkit validate [--arch sm_XX] FILE...`: assemble each file with ptxas
// (docs/cli.md).
//
// Why a command: ptxas is the final word on whether the driver will take a PTX file, and CI
// scripts want one exit code for "every file assembles". The arch comes from each file's own
// `.target` (so sm_90a code is assembled as sm_90a) unless --arch overrides it; ptxas comes from
// $PTXAS, else PATH, else /usr/local/cuda/bin. ptxas's own messages pass through unchanged.
// Exit 0 all accepted, 1 some file rejected by ptxas, 2 unreadable file, no `.target`, or no ptxas.
#include "command_registry.h"
#include "diagnostics.h"
#include "output_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <spawn.h>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace ptxkit::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  std::string arch;
};

bool is_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// $PTXAS, then each PATH entry, then the usual CUDA location; empty when none exists.
std::string find_ptxas() {
  if (const char* env = std::getenv("PTXAS"); env != nullptr && *env != '\0')
    return is_executable(env) ? std::string(env) : std::string();
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    std::size_t start = 0;
    while (start <= dirs.size()) {
      std::size_t colon = dirs.find(':', start);
      if (colon == std::string::npos) colon = dirs.size();
      std::string candidate = dirs.substr(start, colon - start) + "/ptxas";
      if (colon > start && is_executable(candidate)) return candidate;
      start = colon + 1;
    }
  }
  return is_executable("/usr/local/cuda/bin/ptxas") ? "/usr/local/cuda/bin/ptxas" : "";
}

// The first `.target` directive's first architecture (`sm_90a` of `.target sm_90a, debug`),
// skipping // and /* */ comments and strings; empty when the file has none.
std::string target_of(const std::string& text) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) break;
      i += 2;
    } else if (text[i] == '"') {
      i = text.find('"', i + 1);
      if (i == std::string::npos) break;
      ++i;
    } else if (text.compare(i, 7, ".target") == 0 &&
               (i + 7 == n || text[i + 7] == ' ' || text[i + 7] == '\t')) {
      i += 7;
      while (i < n && (text[i] == ' ' || text[i] == '\t'))
        ++i;
      std::size_t end = i;
      while (end < n && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
        ++end;
      return text.substr(i, end - i);
    } else {
      ++i;
    }
  }
  return {};
}

// Runs `ptxas -arch=ARCH FILE -o /dev/null` with ptxas's output on our stdout/stderr; returns its
// exit status, or -1 when it could not be started.
int run_ptxas(const std::string& ptxas, const std::string& arch, const std::string& file) {
  std::vector<std::string> args = {ptxas, "-arch=" + arch, file, "-o", "/dev/null"};
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawn(&pid, ptxas.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status)
                           : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// The real GPU architectures this ptxas accepts for -arch (`sm_...`), from the "Allowed values"
// of --gpu-name in its --help; empty when they cannot be read (then ptxas judges --arch itself).
std::vector<std::string> ptxas_architectures(const std::string& ptxas) {
  std::string quoted = "'";
  for (char c : ptxas)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "' --help 2>/dev/null";
  std::string help;
  if (FILE* f = ::popen(quoted.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
      help.append(buf, n);
    ::pclose(f);
  }
  std::vector<std::string> out;
  std::size_t at = help.find("--gpu-name");
  if (at == std::string::npos) return out;
  at = help.find("Allowed values for this option:", at);
  std::size_t end = at == std::string::npos ? at : help.find("\n--", at);
  while (at != std::string::npos && at < end) {
    std::size_t open = help.find('\'', at);
    if (open == std::string::npos || open >= end) break;
    std::size_t close = help.find('\'', open + 1);
    if (close == std::string::npos) break;
    std::string value = help.substr(open + 1, close - open - 1);
    if (value.starts_with("sm_")) out.push_back(value);
    at = close + 1;
  }
  // In numeric order (sm_75 before sm_100), each once.
  auto number = [](const std::string& a) { return std::atoi(a.c_str() + 3); };
  std::sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
    return number(a) != number(b) ? number(a) < number(b) : a < b;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int run_validate(const ValidateOptions& opt) {
  const std::string ptxas = find_ptxas();
  if (ptxas.empty()) {
    if (const char* env = std::getenv("PTXAS"); env != nullptr && *env != '\0')
      return usage_error("PTXAS is set to '" + std::string(env) +
                         "', which is no executable file: point it at ptxas or unset it");
    return usage_error("ptxas not found: set PTXAS, put it on PATH, or install the CUDA toolkit "
                       "at /usr/local/cuda");
  }
  if (!opt.arch.empty()) {
    // An architecture ptxas does not know is bad usage, not a file ptxas rejects.
    std::vector<std::string> known = ptxas_architectures(ptxas);
    if (!known.empty() && std::find(known.begin(), known.end(), opt.arch) == known.end()) {
      std::string list;
      for (const std::string& k : known)
        list += (list.empty() ? "" : ", ") + k;
      return usage_error("unknown architecture '" + opt.arch + "' for --arch (" + ptxas +
                         " supports: " + list + ")");
    }
  }
  int exit_code = kExitOk;
  std::size_t accepted = 0, rejected = 0;
  for (const std::string& file : opt.files) {
    std::string text, error;
    if (!read_file(file, text, error)) {
      usage_error(error);
      exit_code = kExitBadInput;
      continue;
    }
    std::string arch = opt.arch.empty() ? target_of(text) : opt.arch;
    if (arch.empty()) {
      located_error(file, 1, 1, "no .target directive: give the architecture with --arch sm_XX");
      exit_code = kExitBadInput;
      continue;
    }
    std::cout.flush();
    int rc = run_ptxas(ptxas, arch, file);
    if (rc == -1) return usage_error("cannot run '" + ptxas + "'");
    if (rc == 0) {
      ++accepted;
      std::cout << file << ": ptxas -arch=" << arch << ": accepted\n";
    } else {
      ++rejected;
      std::cout << file << ": ptxas -arch=" << arch << ": REJECTED (exit " << rc << ")\n";
      if (exit_code == kExitOk) exit_code = kExitFindings;
    }
  }
  std::cout << "validate: " << accepted << " accepted, " << rejected << " rejected by " << ptxas
            << '\n';
  return exit_code;
}

const CommandRegistration reg{
    "validate", [](CLI::App& app, CommandResult& result) {
      auto opt = std::make_shared<ValidateOptions>();
      CLI::App* sub = app.add_subcommand(
          "validate",
          "Assemble PTX files with ptxas (arch from each file's .target unless --arch)");
      sub->add_option("FILE", opt->files, "PTX files")->type_name("")->required();
      sub->add_option("--arch", opt->arch, "Architecture for every file (e.g. sm_90a)")
          ->type_name("sm_XX");
      sub->footer("ptxas is $PTXAS, else the first on PATH, else /usr/local/cuda/bin/ptxas.\n\n"
                  "Exit codes: 0 every file accepted, 1 a file rejected (ptxas's messages above),\n"
                  "2 bad usage, unreadable file, no .target, an --arch ptxas does not know, or no "
                  "ptxas.");
      sub->callback([opt, &result] { result.exit_code = run_validate(*opt); });
    }};

} // namespace
} // namespace ptxkit::cli
