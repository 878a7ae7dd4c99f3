// output_file.h: writing output files whole or not at all.
//
// CLI.md: "Nothing is ever written half": content goes to a temporary file beside the target,
// is flushed, and is renamed over the target only when complete.
#pragma once

#include <string>
#include <string_view>

namespace ptxkit::cli {

// Writes `content` to `path` atomically. On failure returns false and sets `error` to a message
// naming the path and the reason; the target is left untouched and no temporary is left behind.
[[nodiscard]] bool write_file_atomically(const std::string& path, std::string_view content,
                                         std::string& error);

// Reads a whole file; on failure returns false and sets `error` (path and reason).
[[nodiscard]] bool read_file(const std::string& path, std::string& content, std::string& error);

}  // namespace ptxkit::cli
