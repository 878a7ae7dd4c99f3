// golden_header_line.cpp: parsing the `// ptxkit golden:` line (written by reference_set.cpp).
#include "golden_header_line.h"

#include <algorithm>

namespace ptxkit::cli {

std::optional<GoldenHeaderLine> read_golden_header(std::string_view content) {
  static constexpr std::string_view kPrefix = "// ptxkit golden:";
  std::string_view line = content.substr(0, content.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  line.remove_prefix(kPrefix.size());
  GoldenHeaderLine header;
  while (!line.empty()) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    const std::size_t end = std::min(line.find_first_of(" \t"), line.size());
    const std::string_view field = line.substr(0, end);
    line.remove_prefix(end);
    const std::size_t eq = field.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = field.substr(0, eq);
    std::string value(field.substr(eq + 1));
    if (name == "generator")
      header.generator = std::move(value);
    else if (name == "kernel")
      header.kernel = std::move(value);
    else if (name == "config")
      header.config = std::move(value);
    else if (name == "target")
      header.target = std::move(value);
    else if (name == "key")
      header.key = std::move(value);
  }
  return header;
}

std::string golden_file_kernel(std::string_view file_name, std::string_view content) {
  if (auto header = read_golden_header(content); header && !header->kernel.empty())
    return header->kernel;
  return std::string(file_name.substr(0, file_name.find('.')));
}

} // namespace ptxkit::cli
