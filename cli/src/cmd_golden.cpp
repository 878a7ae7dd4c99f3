// cmd_golden.cpp: `ptxkit golden check|diff|update [--dir golden]`: the golden PTX files, one per
// kernel × reference config × golden target, kept byte-exact under review.
//
// check: regenerate every file in memory, print a unified diff per drifted file (changed, missing
//        or no longer generated), exit 1 on any drift.
// diff:  the same report, exit 0.
// update: rewrite every drifted file atomically and delete files no longer generated.
#include "command_registry.h"
#include "diagnostics.h"
#include "output_file.h"
#include "reference_set.h"
#include "unified_diff.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>

namespace ptxkit::cli {
namespace {

namespace fs = std::filesystem;

enum class Mode { kCheck, kDiff, kUpdate };

struct GoldenArgs {
  std::string dir = "golden";
};

int run_golden(Mode mode, const GoldenArgs& args) {
  std::error_code ec;
  if (mode == Mode::kUpdate) fs::create_directories(args.dir, ec);
  if (!fs::is_directory(args.dir, ec))
    return usage_error("golden directory '" + args.dir + "' does not exist");
  std::set<std::string> expected;
  std::size_t drifted = 0, checked = 0;
  for (const auto& inst : reference_instances(golden_targets())) {
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
      if (!exists) std::cout << "golden: missing " << path << "\n";
      std::cout << unified_diff(have, *want, exists ? path : "/dev/null", path + " (regenerated)");
    }
  }
  // Files in the directory that are no longer generated (a kernel or config was removed).
  for (const auto& entry : fs::directory_iterator(args.dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".ptx" || expected.count(name)) continue;
    ++drifted;
    std::string path = entry.path().string();
    if (mode == Mode::kUpdate) {
      fs::remove(entry.path(), ec);
      if (ec) return usage_error("cannot remove '" + path + "': " + ec.message());
      std::cout << "removed " << path << "\n";
    } else {
      std::string have, error;
      if (!read_file(path, have, error)) return usage_error(error);
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
    std::cerr << "ptxkit: golden drift: review the diffs above; if the change is intended, run "
                 "`ptxkit golden update --dir "
              << args.dir << "`\n";
    return kExitFindings;
  }
  return kExitOk;
}

void add_mode(CLI::App* golden, const char* name, const char* help, Mode mode,
              CommandResult& result) {
  auto args = std::make_shared<GoldenArgs>();
  auto* sub = golden->add_subcommand(name, help);
  sub->add_option("--dir", args->dir, "Golden directory (default: golden)");
  sub->callback([args, mode, &result] { result.exit_code = run_golden(mode, *args); });
}

const CommandRegistration reg{
    "golden", [](CLI::App& app, CommandResult& result) {
      auto* golden = app.add_subcommand(
          "golden", "Check, show or update the golden PTX files (KERNEL.CONFIGTAG.sm_XX.ptx, for "
                    "sm_80 and sm_90)");
      golden->require_subcommand(1);
      golden->footer(
          "Golden files are generated, never edited by hand. After an intended generator "
          "change:\n  ptxkit golden check --dir golden    # review the diffs\n"
          "  ptxkit golden update --dir golden   # then commit golden/");
      add_mode(golden, "check",
               "Regenerate in memory and compare; print a unified diff per drifted file; exit 1 on "
               "drift",
               Mode::kCheck, result);
      add_mode(golden, "diff", "Print the same diffs as check; exit 0", Mode::kDiff, result);
      add_mode(golden, "update",
               "Rewrite drifted golden files atomically and remove ones no longer generated",
               Mode::kUpdate, result);
    }};

} // namespace
} // namespace ptxkit::cli
