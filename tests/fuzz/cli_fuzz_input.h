// cli_fuzz_input.h: the input format of ptx_cli_fuzzer, shared with cli_fuzz_replay_test so that
// a seed or a kept crash means the same command line in both.
//
// An input is the arguments after `ptxkit`, then optionally the content of one file:
//
//   verify            one argument per line; a NUL ends an argument too, and an empty line is an
//   --format=json     empty argument ("a\n\nb" is a, "", b); a final newline starts nothing
//   input.ptx
//   %%                the first argument that is exactly %% ends the arguments: what follows its
//   .version 8.0      newline is written to `input.ptx` in the working directory. Without a %%
//   ...               line there is no such file (so "missing file" paths are reachable too).
//
// Arguments name the file as `input.ptx` (or a directory holding it, `.`), so mutations of either
// part keep the other meaningful, and the dictionary (cli.dict) holds both vocabularies.
//
// Inputs that must not run (cli_refusal says why) are skipped by the fuzzer and rejected by the
// replay test: the command line runs in a private scratch directory and must not reach anything
// outside it, nor start processes or the CUDA driver.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::fuzz {

inline constexpr std::string_view kCliFuzzFile = "input.ptx";
inline constexpr std::string_view kCliFuzzSeparator = "%%";
// More arguments than this say nothing new and only slow every execution down.
inline constexpr std::size_t kCliFuzzMaxArgs = 48;

struct CliFuzzInput {
  std::vector<std::string> args;   // after argv[0]
  std::optional<std::string> file; // content of kCliFuzzFile, when the input has a %% line
};

inline CliFuzzInput decode_cli_input(std::string_view data) {
  CliFuzzInput in;
  std::size_t start = 0;
  while (start < data.size()) {
    std::size_t end = start;
    while (end < data.size() && data[end] != '\n' && data[end] != '\0')
      ++end;
    std::string_view arg = data.substr(start, end - start);
    const std::size_t next = end < data.size() ? end + 1 : end;
    if (arg == kCliFuzzSeparator) {
      in.file = std::string(data.substr(next));
      return in;
    }
    in.args.emplace_back(arg);
    start = next;
  }
  return in;
}

// The inverse (for tests and for writing seeds): an input that decodes to `args` and `file`.
inline std::string encode_cli_input(const std::vector<std::string>& args,
                                    const std::optional<std::string>& file) {
  std::string out;
  for (const std::string& a : args)
    out += a + "\n";
  if (file) out += std::string(kCliFuzzSeparator) + "\n" + *file;
  return out;
}

// Why `arg` could reach outside the working directory, or nullopt when it cannot. Every path the
// commands take is relative there: none starts with '/', none climbs with "..", and a '/' never
// follows a character that starts a value inside an argument ('=' of --output=/x or
// KERNEL@sm_90=/x, ':' or ',' of an embed item, '@') nor sits in an option word (-o/x is -o /x).
inline std::optional<std::string> unsafe_argument(std::string_view arg) {
  if (arg.find("..") != std::string_view::npos) return "it contains '..'";
  if (arg.find('/') == std::string_view::npos) return std::nullopt;
  if (arg.front() == '-') return "an option word with a '/' in it (-o/x, --output=/x)";
  for (std::size_t i = 0; i < arg.size(); ++i) {
    if (arg[i] != '/') continue;
    const char before = i == 0 ? '\0' : arg[i - 1];
    const bool path_char = (before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') ||
                           (before >= '0' && before <= '9') || before == '_' || before == '.' ||
                           before == '/';
    if (!path_char) return "a '/' that starts a path (absolute, or after '=', ':', ',' or '@')";
  }
  return std::nullopt;
}

// The kernels whose key proof (lint-keys) takes over a second under the fuzzer's ASan build,
// each between spaces.
inline constexpr std::string_view kCliFuzzSlowLintKernels =
    " flash_decode_chunk flash_decode_reduce fused_residual_rmsnorm gemv_f32 incremental_attention"
    " layernorm q4k_gemv rope_neox rope_neox_backward rope_neox_batched softmax_rows ";

// Why the fuzzer must not run `in`, or nullopt. Besides unsafe paths:
// - validate: starts ptxas, a process outside the fuzzer (and tens of milliseconds per input);
//   its own argument handling is `--arch` and file names, which the lit tests cover.
// - run, bench: open the CUDA driver (dlopen libcuda, PTXKIT_LIBCUDA) and, where a GPU exists,
//   allocate and launch on it for seconds; without one they stop at exit 3 after the same
//   kernel/--set parsing that gen and key already expose.
// - gen --all: generates and writes every kernel x config x target (hundreds of files, seconds
//   under ASan) through the same per-kernel path a plain `gen` takes in milliseconds.
// - lint-keys proves a key over hundreds of generated configs: 0.2 s to 9 s per kernel under
//   ASan, a minute with --every-target, 25 s for the whole library, all past or near -timeout.
//   It runs only as `lint-keys WORD ...` (a word right after the command is a KERNEL, as no option
//   precedes it to take it as a value, so the whole library is never selected), without
//   --every-target and without the slow kernels: a few seconds at worst.
// The words are refused wherever they stand (`help run` included): CLI11 only runs the command
// the first word names, but an exact match is the check that needs no argument about that.
inline std::optional<std::string> cli_refusal(const CliFuzzInput& in) {
  if (in.args.size() > kCliFuzzMaxArgs) return "more than 48 arguments";
  bool gen = false;
  bool lint = false;
  for (const std::string& a : in.args) {
    if (a == "validate" || a == "run" || a == "bench") return "the '" + a + "' command";
    gen = gen || a == "gen";
    lint = lint || a == "lint-keys";
  }
  if (lint && (in.args.size() < 2 || in.args[0] != "lint-keys" || in.args[1].starts_with("-")))
    return "lint-keys not followed by a kernel name (the whole library)";
  for (const std::string& a : in.args) {
    if (auto why = unsafe_argument(a)) return "argument '" + a + "': " + *why;
    if (gen && a.starts_with("--all")) return "gen --all";
    if (lint && a.starts_with("--every-target")) return "lint-keys --every-target";
    if (lint && kCliFuzzSlowLintKernels.find(" " + a + " ") != std::string_view::npos)
      return "lint-keys " + a;
  }
  return std::nullopt;
}

} // namespace ptxkit::fuzz
