// ptx_cli_fuzzer.cpp: libFuzzer target: any bytes -> a `ptxkit` command line and one file's
// content (cli_fuzz_input.h) -> run_tool, in-process, in a private scratch directory.
//
// Oracles: no crash, hang (libFuzzer's -timeout), sanitizer report or failed assert anywhere on
// the way (CLI11 parsing, every command, the kernels and ptxgen behind gen/key/embed/lint-keys,
// the parser and verifier behind fmt/verify); the exit code is one of docs/cli.md's (0-3); and
// exit 2 (bad input or usage) always says why on stderr, since a silent refusal is a bug too.
//
// Safety: every command runs in a fresh directory made once per process (under /dev/shm when it
// exists, as `gen -o` and `golden update` fsync every file they write; entered only for the run,
// so libFuzzer's own relative paths keep their meaning), emptied before each input; and the fuzzer
// skips every input cli_refusal names (paths that leave it, commands that start processes or
// the CUDA driver, library-wide generation). Standard input reads as empty; stdout and stderr go
// nowhere (std::cout/std::cerr into a counting null buffer, fd 1 onto /dev/null for `-o -`),
// while libFuzzer and the sanitizers keep the real stderr.
#include "cli_fuzz_input.h"
#include "tool.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Swallows output and counts it, so an exit-2 path that prints nothing is seen.
class CountingNullBuffer : public std::streambuf {
public:
  std::size_t count = 0;

protected:
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) ++count;
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    count += static_cast<std::size_t>(n);
    return n;
  }
};

fs::path g_scratch;
int g_scratch_fd = -1; // the commands' working directory, entered around each run only
int g_home_fd = -1;    // where the fuzzer was started: libFuzzer's relative paths (corpus
                       // directories, artifacts) mean this directory, so it is current otherwise

void remove_scratch() {
  std::error_code ec;
  fs::remove_all(g_scratch, ec);
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "ptx_cli_fuzzer: %s\n", message.c_str());
  std::abort();
}

void make_scratch() {
  const fs::path base =
      fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  std::string pattern = (base / "ptxkit-cli-fuzz.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    fail("cannot create a scratch directory in " + base.string());
  g_scratch = pattern;
  std::atexit(remove_scratch);
  g_scratch_fd = ::open(g_scratch.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_home_fd = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (g_scratch_fd < 0 || g_home_fd < 0) fail("cannot open the scratch or the current directory");
  // Standard input is empty for `verify -` / `fmt -`; fd 1 only ever receives `-o -` writes.
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0 || ::dup2(null_fd, STDOUT_FILENO) < 0)
    fail("cannot redirect stdin/stdout to /dev/null");
  ::close(null_fd);
}

void empty_scratch() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(g_scratch, ec))
    fs::remove_all(e.path(), ec);
}

// run_tool with `args`, output swallowed; returns the exit code and how much went to stderr.
int run_quietly(const std::vector<std::string>& args, std::size_t& stderr_bytes) {
  std::vector<std::string> words{"ptxkit"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words)
    argv.push_back(w.data());
  argv.push_back(nullptr);

  CountingNullBuffer out, err;
  std::stringbuf empty_in;
  std::ios saved_format(nullptr);
  saved_format.copyfmt(std::cout);
  std::streambuf* old_out = std::cout.rdbuf(&out);
  std::streambuf* old_err = std::cerr.rdbuf(&err);
  std::streambuf* old_log = std::clog.rdbuf(&err);
  std::streambuf* old_in = std::cin.rdbuf(&empty_in);
  if (::fchdir(g_scratch_fd) != 0) fail("cannot enter the scratch directory");
  const int code = ptxkit::cli::run_tool(static_cast<int>(words.size()), argv.data());
  if (::fchdir(g_home_fd) != 0) fail("cannot return to the starting directory");
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  std::clog.rdbuf(old_log);
  std::cin.rdbuf(old_in);
  // A command's stream state or formatting must not leak into the next input.
  for (std::ios* s : {static_cast<std::ios*>(&std::cout), static_cast<std::ios*>(&std::cerr),
                      static_cast<std::ios*>(&std::clog), static_cast<std::ios*>(&std::cin)})
    s->clear();
  std::cout.copyfmt(saved_format);
  std::cerr.copyfmt(saved_format);
  stderr_bytes = err.count;
  return code;
}

} // namespace

// libFuzzer parses its flags after this returns, so the argument list can still gain one: a crash
// inside a command happens with the scratch directory current, and its artifact belongs where
// the fuzzer was started (as with any libFuzzer target), not in a directory removed at exit.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  static std::vector<char*> args(*argv, *argv + *argc);
  static std::string prefix = "-artifact_prefix=" + fs::current_path().string() + "/";
  const auto sets_artifact_path = [](std::string_view a) {
    return a.starts_with("-artifact_prefix=") || a.starts_with("-exact_artifact_path=");
  };
  if (std::none_of(args.begin(), args.end(), sets_artifact_path)) args.push_back(prefix.data());
  args.push_back(nullptr);
  *argc = static_cast<int>(args.size()) - 1;
  *argv = args.data();

  make_scratch();
  // The commands reach the fuzzer through static registrations in a whole-linked archive: check
  // that each one is there, or every input would only exercise "unknown command".
  for (const char* command :
       {"embed", "fmt", "gen", "golden", "key", "lint-keys", "list", "verify"}) {
    std::size_t err_bytes = 0;
    if (run_quietly({command, "--help"}, err_bytes) != 0)
      fail(std::string("`ptxkit ") + command + " --help` fails: is the command linked in?");
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptxkit::fuzz;
  const CliFuzzInput in =
      decode_cli_input(std::string_view(reinterpret_cast<const char*>(data), size));
  if (cli_refusal(in)) return -1; // not added to the corpus
  empty_scratch();
  if (in.file) {
    std::ofstream f(g_scratch / kCliFuzzFile, std::ios::binary);
    f << *in.file;
    if (!f) fail("cannot write " + std::string(kCliFuzzFile));
  }
  std::size_t err_bytes = 0;
  const int code = run_quietly(in.args, err_bytes);
  if (code < 0 || code > 3) fail("exit code " + std::to_string(code) + " is not one of 0-3");
  if (code == 2 && err_bytes == 0) fail("exit 2 with nothing on stderr");
  return 0;
}
