// ptxgen_test_util.h: what the builder's tests share.
#pragma once

#include "ptxkit/ptxgen/target.h"
#include "ptxkit/verifier/verify.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace ptxkit::ptxgen {

// A supported target by name ("sm_90"); the tests name only supported ones.
inline Target target(const char* name) {
  return Target::parse(name).value();
}

// Whether the ptxas the build found (PTXKIT_PTXAS) is there to run.
inline bool have_ptxas() {
  std::string ptxas = PTXKIT_PTXAS;
  return !ptxas.empty() && std::filesystem::exists(ptxas);
}

struct PtxasResult {
  int status;
  std::string output;
};

// Assembles `ptx` for `arch` with ptxas, from <build>/tests/ptxgen-tmp/<stem>_<arch>.ptx (kept
// for a look after a failure).
inline PtxasResult run_ptxas(const std::string& arch, const std::string& ptx,
                             const std::string& stem) {
  std::filesystem::path dir = std::filesystem::path(PTXKIT_BINARY_DIR) / "tests" / "ptxgen-tmp";
  std::filesystem::create_directories(dir);
  std::filesystem::path file = dir / std::string(stem).append("_").append(arch).append(".ptx");
  std::ofstream(file) << ptx;
  std::string cmd = std::string(PTXKIT_PTXAS);
  cmd.append(" -arch=").append(arch).append(" ").append(file.string()).append(" -o /dev/null 2>&1");
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  PtxasResult r{-1, ""};
  if (!pipe) return r;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), pipe.get()))
    r.output += buf.data();
  r.status = pclose(pipe.release());
  return r;
}

// The verifier's error findings on `ptx`, one a line ("" when there are none; a parse error is
// one). Warnings are left out: they are advice, not a rejection of the module.
inline std::string verifier_errors(const std::string& ptx, const std::string& name) {
  verifier::VerifyOptions options;
  options.read_source_lines = false;
  verifier::VerifyTextResult r = verifier::verify_text(ptx, name, options);
  if (r.parse_error) return name + ": does not parse\n";
  std::string out;
  for (const verifier::Finding& f : r.report.findings) {
    if (f.severity != verifier::Severity::kError) continue;
    out += name + ":" + std::to_string(f.location.line) + ": " + f.rule + ": " + f.message + " (" +
           f.instruction + ")\n";
  }
  return out;
}

} // namespace ptxkit::ptxgen
