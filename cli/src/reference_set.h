// reference_set.h: every kernel at each of its reference configs for a list of targets: the set
// `ptxkit gen --all` writes and `ptxkit golden` keeps under review.
//
// File names are KERNEL.CONFIGTAG.sm_XX.ptx (docs/cli.md). A golden file is the generated PTX after
// one header comment line naming the generator, kernel, config, target and key, so a reviewer sees
// in the diff when the key changed too.
#pragma once

#include <ptxkit/kernels/kernel.h>
#include <ptxkit/ptxgen/expected.h>
#include <ptxkit/ptxgen/target.h>
#include <string>
#include <vector>

namespace ptxkit::cli {

struct ReferenceInstance {
  const kernels::Kernel* kernel;
  const kernels::ReferenceConfig* config;
  ptxgen::Target target;
  std::string file_name; // KERNEL.CONFIGTAG.sm_XX.ptx
  std::string key;       // the cache key
};

// The targets golden files are kept for.
[[nodiscard]] std::vector<ptxgen::Target> golden_targets();

// Every registered kernel × reference config × target, sorted by file name.
[[nodiscard]] std::vector<ReferenceInstance>
reference_instances(const std::vector<ptxgen::Target>& targets);

// The instance's PTX (no header).
[[nodiscard]] ptxkit::Expected<std::string> generate_instance(const ReferenceInstance& instance);

// `// ptxkit golden: generator=... kernel=... config=... target=... key=...`
[[nodiscard]] std::string golden_header(const ReferenceInstance& instance);

// The golden file's whole content: header line, then the PTX.
[[nodiscard]] ptxkit::Expected<std::string> golden_content(const ReferenceInstance& instance);

} // namespace ptxkit::cli
