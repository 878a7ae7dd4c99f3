// module.h: a PTX module (one or more kernels for one target) and its deterministic printer.
//
// The printer is the only place PTX text is made. Same kernels in, same bytes out: registers are
// numbered in allocation order, `.reg` lines come in a fixed class order, nothing depends on
// addresses, time or the checkout location. With PrintOptions::loc, `.file`/`.loc` lines lead
// every instruction back to the C++ line that emitted it; baked immediates are reported with the
// PTX line they landed on (the key-coverage check builds on this).
#pragma once

#include "ptxkit/ptxgen/expected.h"
#include "ptxkit/ptxgen/ir.h"
#include "ptxkit/ptxgen/target.h"

#include <string>
#include <vector>

namespace ptxkit::ptxgen {

struct PrintOptions {
  bool loc = false; // emit .file/.loc provenance
  // Paths under this directory print relative to it (empty: ptxkit's own source root).
  std::string source_root;
};

// One baked immediate as printed: `line 57: mov.f32 %f3, 0f358637BD <- eps = 1e-06`.
struct BakedLine {
  unsigned ptx_line = 0;   // 1-based line in PrintedPtx::text
  std::string instruction; // the instruction as printed, without indentation
  std::string field;       // config field name
  std::string value;       // value as text
};

struct PrintedPtx {
  std::string text;
  std::vector<BakedLine> baked;
};

class Module {
public:
  explicit Module(Target target) : target_(target) {}
  // Adds a kernel; an error when its target differs or its name is already taken.
  Expected<void> add(Kernel kernel);
  const Target& target() const { return target_; }
  const std::vector<Kernel>& kernels() const { return kernels_; }

private:
  Target target_;
  std::vector<Kernel> kernels_;
};

PrintedPtx print(const Module& module, const PrintOptions& options = {});

// Convenience: a module holding just this kernel, printed.
PrintedPtx print(const Kernel& kernel, const PrintOptions& options = {});

} // namespace ptxkit::ptxgen
