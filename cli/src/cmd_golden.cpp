// cmd_golden.cpp: `ptxkit golden check|diff|update [--dir golden] [--kernel KERNEL]...`: the golden
// PTX files, one per kernel × reference config × golden target, kept byte-exact under review.
//
// check: regenerate every file in memory, print a unified diff per drifted file (changed, missing
//        or no longer generated), exit 1 on any drift, and end with the command that accepts it.
// diff:  the same report, exit 0.
// update: rewrite every drifted file atomically and delete files no longer generated.
//
// --kernel restricts all three to some kernels: a tool that registers its own kernels beside
// ptxkit's keeps a golden directory for just those, and files of other kernels in it are left
// alone. A changed file's diff is preceded by its instance, key and instruction/register summary
// (golden_summary.h), since that is what a reviewer decides on.
#include "command_registry.h"
#include "diagnostics.h"
#include "golden_header_line.h"
#include "golden_summary.h"
#include "kernel_args.h"
#include "output_file.h"
#include "reference_set.h"
#include "unified_diff.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::cli {
namespace {

namespace fs = std::filesystem;

enum class Mode { kCheck, kDiff, kUpdate };

struct GoldenArgs {
  std::string dir = "golden";
  std::vector<std::string> kernels; // --kernel, in the order given; empty = every kernel
};

// The name this program was started as (a consumer's own tool embeds these commands), so the
// command printed for the user to run names the tool they ran.
std::string tool_name(const CLI::App& app) {
  const CLI::App* root = &app;
  while (root->get_parent() != nullptr)
    root = root->get_parent();
  std::string name = fs::path(root->get_name()).filename().string();
  return name.empty() ? "ptxkit" : name;
}

// `arg` as one shell word: unchanged when it has no character a POSIX shell treats specially.
std::string shell_word(const std::string& arg) {
  const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_-./=:,+@%").find(c) != std::string_view::npos;
  });
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string accept_command(const std::string& tool, const GoldenArgs& args) {
  std::string cmd = shell_word(tool) + " golden update --dir " + shell_word(args.dir);
  for (const std::string& k : args.kernels)
    cmd += " --kernel " + shell_word(k);
  return cmd;
}

// Two lines of golden_change_summary, indented under the `golden: changed` line.
std::string indented(const std::string& lines) {
  std::string out;
  std::size_t start = 0;
  while (start < lines.size()) {
    const std::size_t nl = std::min(lines.find('\n', start), lines.size());
    out += "  " + lines.substr(start, nl - start) + "\n";
    start = nl + 1;
  }
  return out;
}

int run_golden(Mode mode, GoldenArgs args, const std::string& tool) {
  std::set<std::string> selected;
  std::vector<std::string> unique_kernels;
  for (const std::string& name : args.kernels) {
    auto kernel = find_kernel(name);
    if (!kernel) return usage_error(kernel.error().to_string());
    if (selected.insert(name).second) unique_kernels.push_back(name);
  }
  args.kernels = std::move(unique_kernels);
  auto is_selected = [&](const std::string& kernel) {
    return selected.empty() || selected.count(kernel) > 0;
  };
  std::error_code ec;
  if (mode == Mode::kUpdate) fs::create_directories(args.dir, ec);
  if (!fs::is_directory(args.dir, ec))
    return usage_error("golden directory '" + args.dir + "' " +
                       (fs::exists(args.dir, ec) ? "is not a directory" : "does not exist"));
  std::set<std::string> expected;
  std::size_t drifted = 0, checked = 0;
  for (const auto& inst : reference_instances(golden_targets())) {
    if (!is_selected(std::string(inst.kernel->name()))) continue;
    expected.insert(inst.file_name);
    auto want = golden_content(inst);
    if (!want) return usage_error(want.error().to_string());
    std::string path = (fs::path(args.dir) / inst.file_name).string();
    std::string have, error;
    bool exists = fs::exists(path, ec);
    if (exists && !read_file(path, have, error)) return usage_error(error);
    ++checked;
    if (exists && have == *want) continue;
    ++drifted;
    if (mode == Mode::kUpdate) {
      if (!write_file_atomically(path, *want, error)) return usage_error(error);
      std::cout << (exists ? "updated " : "created ") << path << "\n";
    } else {
      if (exists)
        std::cout << "golden: changed " << path << "\n"
                  << indented(golden_change_summary(have, *want));
      else
        std::cout << "golden: missing " << path << "\n";
      std::cout << unified_diff(have, *want, exists ? path : "/dev/null", path + " (regenerated)");
    }
  }
  // Files in the directory that are no longer generated (a kernel or config was removed), in
  // name order so the report does not depend on the file system. With --kernel, only files of
  // the selected kernels: the directory may hold other tools' files.
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(args.dir, ec))
    if (entry.path().extension() == ".ptx" && !expected.count(entry.path().filename().string()))
      stale.push_back(entry.path());
  std::sort(stale.begin(), stale.end());
  for (const fs::path& file : stale) {
    const std::string path = file.string();
    std::string have, error;
    if ((mode != Mode::kUpdate || !selected.empty()) && !read_file(path, have, error))
      return usage_error(error);
    if (!is_selected(golden_file_kernel(file.filename().string(), have))) continue;
    ++drifted;
    if (mode == Mode::kUpdate) {
      fs::remove(file, ec);
      if (ec) return usage_error("cannot remove '" + path + "': " + ec.message());
      std::cout << "removed " << path << "\n";
    } else {
      std::cout << "golden: " << path << " is no longer generated\n"
                << unified_diff(have, "", path, "/dev/null");
    }
  }
  if (mode == Mode::kUpdate) {
    std::cout << "golden: " << checked << " files, " << drifted << " rewritten or removed\n";
    return kExitOk;
  }
  std::cout << "golden: " << checked << " files checked, " << drifted << " drifted\n";
  if (drifted > 0 && mode == Mode::kCheck) {
    std::cout.flush();
    std::cerr << program_name()
              << ": golden drift: review the diffs above; if the change is intended, "
                 "accept it (then commit the golden directory)\n"
              << "to accept: " << accept_command(tool, args) << "\n";
    return kExitFindings;
  }
  return kExitOk;
}

void add_mode(CLI::App* golden, const char* name, const char* help, const std::string& exit_codes,
              Mode mode, CommandResult& result) {
  auto args = std::make_shared<GoldenArgs>();
  auto* sub = golden->add_subcommand(name, help);
  sub->add_option("--dir", args->dir, "Golden directory (default: golden)")->type_name("DIR");
  sub->add_option("--kernel", args->kernels,
                  "Only this kernel's golden files (repeatable); other kernels' files in the "
                  "directory are left alone")
      ->type_name("KERNEL")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1)
      ->allow_extra_args(false);
  sub->footer("Exit codes: " + exit_codes);
  sub->callback(
      [args, mode, sub, &result] { result.exit_code = run_golden(mode, *args, tool_name(*sub)); });
}

const CommandRegistration reg{
    "golden", [](CLI::App& app, CommandResult& result) {
      auto* golden = app.add_subcommand(
          "golden", "Check, show or update the golden PTX files (KERNEL.CONFIGTAG.sm_XX.ptx, for "
                    "sm_80 and sm_90)");
      golden->require_subcommand(1);
      // What check and diff can fail on besides drift.
      const std::string bad = "2 bad usage, unknown kernel, no golden directory, or a file that "
                              "cannot be read";
      add_mode(golden, "check",
               "Regenerate in memory and compare; per drifted file print its kernel, config, "
               "target, keys, instruction and register changes and a unified diff; exit 1 on "
               "drift, ending with the command that accepts it",
               "0 no drift, 1 drift (a file changed, missing or no longer generated),\n" + bad +
                   ".",
               Mode::kCheck, result);
      add_mode(golden, "diff", "Print the same report as check; exit 0",
               "0 report printed (drift is not a failure),\n" + bad + ".", Mode::kDiff, result);
      add_mode(golden, "update",
               "Rewrite drifted golden files atomically and remove ones no longer generated",
               "0 golden files up to date, 2 bad usage, unknown kernel, a directory that cannot "
               "be\ncreated, or a file that cannot be read, written or removed.",
               Mode::kUpdate, result);
      // After the commands: they would copy it as their own footer.
      const std::string golden_cmd = "\n  " + std::string(program_name()) + " golden ";
      golden->footer("Golden files are generated, never edited by hand. After an intended "
                     "generator change:" +
                     golden_cmd + "check --dir golden    # review the diffs" + golden_cmd +
                     "update --dir golden   # then commit golden/\n" +
                     "--kernel KERNEL (repeatable) limits any of them to those kernels' files.\n\n"
                     "Exit codes: those of the command run (only check exits 1, on drift); 2 "
                     "without a command\nor with an unknown one.");
    }};

} // namespace
} // namespace ptxkit::cli
