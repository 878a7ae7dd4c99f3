// golden_header_line.h: reading back the `// ptxkit golden:` line that starts every golden file.
//
// Why read it back: the line says which kernel, config, target and cache key a file holds, so
// `golden` can tell a reviewer that a key changed, and can decide which files belong to the
// kernels selected with --kernel even when a file's name does not say (a renamed file).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ptxkit::cli {

// The fields of `// ptxkit golden: generator=V kernel=K config=T target=S key=KEY`.
struct GoldenHeaderLine {
  std::string generator;
  std::string kernel;
  std::string config;
  std::string target;
  std::string key;
};

// The fields of the first line of `content`, or nullopt when that line is not a golden header
// (fields may come in any order; a missing one is left empty, an unknown one is ignored).
[[nodiscard]] std::optional<GoldenHeaderLine> read_golden_header(std::string_view content);

// The kernel a golden file holds: the header's kernel= field, else the file name up to its first
// '.' (KERNEL.CONFIGTAG.sm_XX.ptx).
[[nodiscard]] std::string golden_file_kernel(std::string_view file_name, std::string_view content);

} // namespace ptxkit::cli
