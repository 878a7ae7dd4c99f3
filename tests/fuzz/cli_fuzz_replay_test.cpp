// cli_fuzz_replay_test.cpp: runs every seed of ptx_cli_fuzzer (tests/fuzz/cli-seeds) and every
// input it once crashed on (tests/fuzz/regressions/cli) through the real `ptxkit`, each in a
// fresh scratch directory with the decoded arguments and file (cli_fuzz_input.h), and holds it to
// the fuzzer's oracles: no signal (crash, sanitizer abort, hang past the alarm), an exit code of
// docs/cli.md (0-3), and exit 2 only with a message on stderr. A file named `NAME.exitN` must
// exit exactly N, so a seed also pins what its command line means.
//
// Why the binary and not run_tool in-process: a crash ends one child and the report names its
// input, and the process sees what a user's does (static registrations, real stdout/stderr). In
// the sanitizer pass of ./test.sh `ptxkit` is built with ASan/UBSan, so each input runs under them
// with no clang or libFuzzer.
#include "cli_fuzz_input.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ptxkit::fuzz {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Outcome {
  bool exited = false;
  int code = -1;   // exit status when exited
  int signal = 0;  // terminating signal otherwise
  std::string err; // stderr
};

// A fresh directory under the system temp directory, removed with the object: `work` is the
// command's working directory (holding only what the input puts there, as in the fuzzer), and
// `stderr` beside it receives its standard error.
struct ScratchDir {
  fs::path root;
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "ptxkit-cli-replay.XXXXXX").string();
    std::error_code ec;
    if (::mkdtemp(pattern.data()) != nullptr &&
        fs::create_directory(fs::path(pattern) / "work", ec))
      root = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!root.empty()) fs::remove_all(root, ec);
  }
  fs::path work() const { return root / "work"; }
  fs::path err() const { return root / "stderr"; }
};

// `ptxkit ARGS...` in dir.work(): stdin /dev/null, stdout discarded, stderr kept; killed by
// SIGALRM after 120 s (a hang fails as a signal; the slowest seed takes well under a second).
Outcome run_ptxkit(const ScratchDir& dir, const std::vector<std::string>& args) {
  const fs::path err_path = dir.err();
  const fs::path work = dir.work();
  std::vector<std::string> words{PTXKIT_CLI};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words)
    argv.push_back(w.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open("/dev/null", O_WRONLY);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
        ::dup2(err, 2) < 0 || ::chdir(work.c_str()) != 0)
      ::_exit(127);
    ::alarm(120);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  Outcome o;
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return o;
  o.exited = WIFEXITED(status);
  o.code = o.exited ? WEXITSTATUS(status) : -1;
  o.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  o.err = read_all(err_path);
  return o;
}

// The expected exit code a file name pins (`NAME.exitN`), if any.
std::optional<int> pinned_exit(const fs::path& p) {
  const std::string ext = p.extension().string();
  if (ext.size() == 6 && ext.starts_with(".exit") && ext[5] >= '0' && ext[5] <= '3')
    return ext[5] - '0';
  return std::nullopt;
}

std::vector<fs::path> inputs_in(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && !e.path().filename().string().starts_with("."))
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

void replay(const fs::path& file) {
  SCOPED_TRACE(file.string());
  const CliFuzzInput in = decode_cli_input(read_all(file));
  // A kept input the fuzzer would skip tests nothing; one that reaches outside must not run.
  const auto refusal = cli_refusal(in);
  ASSERT_FALSE(refusal) << *refusal;
  ScratchDir dir;
  ASSERT_FALSE(dir.root.empty()) << "no scratch directory: " << std::strerror(errno);
  if (in.file) {
    std::ofstream f(dir.work() / kCliFuzzFile, std::ios::binary);
    f << *in.file;
    ASSERT_TRUE(f.good());
  }
  const Outcome o = run_ptxkit(dir, in.args);
  ASSERT_TRUE(o.exited) << "killed by signal " << o.signal << " (" << strsignal(o.signal) << ")\n"
                        << o.err;
  EXPECT_NE(o.code, 127) << "could not run " << PTXKIT_CLI;
  EXPECT_LE(o.code, 3) << o.err;
  if (o.code == 2) {
    EXPECT_FALSE(o.err.empty()) << "exit 2 with nothing on stderr";
  }
  if (auto want = pinned_exit(file)) {
    EXPECT_EQ(o.code, *want) << o.err;
  }
}

TEST(CliFuzzReplay, EverySeedRunsCleanly) {
  const auto seeds = inputs_in(PTXKIT_CLI_FUZZ_SEEDS);
  ASSERT_GE(seeds.size(), 8u) << "the seeds are missing from " << PTXKIT_CLI_FUZZ_SEEDS;
  for (const fs::path& f : seeds)
    replay(f);
}

TEST(CliFuzzReplay, EveryKeptCrashRunsCleanly) {
  // Empty (or absent) until the fuzzer finds something; each file there is a fixed crash.
  for (const fs::path& f : inputs_in(PTXKIT_CLI_FUZZ_REGRESSIONS))
    replay(f);
}

TEST(CliFuzzInput, DecodesArgumentsAndFile) {
  CliFuzzInput in = decode_cli_input("verify\n--format=json\n\ninput.ptx\n%%\n.version 8.0\n%%\n");
  EXPECT_EQ(in.args, (std::vector<std::string>{"verify", "--format=json", "", "input.ptx"}));
  ASSERT_TRUE(in.file);
  EXPECT_EQ(*in.file, ".version 8.0\n%%\n");

  in = decode_cli_input(std::string_view("list\0--json\n", 12));
  EXPECT_EQ(in.args, (std::vector<std::string>{"list", "--json"}));
  EXPECT_FALSE(in.file);

  in = decode_cli_input("%%");
  EXPECT_TRUE(in.args.empty());
  ASSERT_TRUE(in.file);
  EXPECT_TRUE(in.file->empty());

  EXPECT_TRUE(decode_cli_input("").args.empty());
  const std::vector<std::string> args{"gen", "rmsnorm", "", "--set", "eps=1e-5"};
  in = decode_cli_input(encode_cli_input(args, std::string("x\n")));
  EXPECT_EQ(in.args, args);
  EXPECT_EQ(in.file, std::string("x\n"));
}

TEST(CliFuzzInput, RefusesWhatLeavesTheScratchDirectory) {
  const auto refused = [](std::vector<std::string> args) {
    return cli_refusal(CliFuzzInput{std::move(args), std::nullopt}).has_value();
  };
  EXPECT_TRUE(refused({"fmt", "/etc/passwd"}));
  EXPECT_TRUE(refused({"fmt", "-o", "/dev/sda", "input.ptx"}));
  EXPECT_TRUE(refused({"fmt", "-o/tmp/x", "input.ptx"}));
  EXPECT_TRUE(refused({"fmt", "--output=/tmp/x", "input.ptx"}));
  EXPECT_TRUE(refused({"fmt", "--output=a/b", "input.ptx"})); // option words never carry a '/'
  EXPECT_TRUE(refused({"verify", "../x"}));
  EXPECT_TRUE(refused({"verify", "a/../../x"}));
  EXPECT_TRUE(refused({"embed", "-o", "h.h", "rmsnorm@sm_90=/etc/passwd"}));
  EXPECT_TRUE(refused({"embed", "-o", "h.h", "d/rmsnorm@sm_90=/etc/passwd"}));
  EXPECT_TRUE(refused({"golden", "check", "--dir", "~//x"}));
  EXPECT_TRUE(refused({"validate", "input.ptx"}));
  EXPECT_TRUE(refused({"run", "rmsnorm"}));
  EXPECT_TRUE(refused({"bench", "--list"}));
  EXPECT_TRUE(refused({"help", "run"}));
  EXPECT_TRUE(refused({"gen", "--all", "--out-dir", "out"}));
  EXPECT_TRUE(refused({"gen", "--all=true", "--out-dir", "out"}));
  EXPECT_TRUE(refused(std::vector<std::string>(kCliFuzzMaxArgs + 1, "list")));
  EXPECT_TRUE(refused({"lint-keys"}));
  EXPECT_TRUE(refused({"lint-keys", "--golden-dir", "residual_add"}));
  EXPECT_TRUE(refused({"lint-keys", "residual_add", "q4k_gemv"}));
  EXPECT_TRUE(refused({"lint-keys", "residual_add", "--every-target"}));
  EXPECT_TRUE(refused({"help", "lint-keys"}));

  EXPECT_FALSE(refused({"verify", "input.ptx", "."}));
  EXPECT_FALSE(refused({"gen", "rmsnorm", "-o", "out/r.ptx"}));
  EXPECT_FALSE(refused({"gen", "rmsnorm", "-o", "./r.ptx"}));
  EXPECT_FALSE(refused({"embed", "-o", "h.h", "rmsnorm@sm_90=sub/input.ptx"}));
  EXPECT_FALSE(refused({"fmt", "-"}));
  EXPECT_FALSE(refused({"golden", "update", "--dir", "g", "--kernel", "rmsnorm"}));
  EXPECT_FALSE(refused({"lint-keys", "residual_add", "swiglu", "--golden-dir", "g"}));
}

} // namespace
} // namespace ptxkit::fuzz
