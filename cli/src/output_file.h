// output_file.h: writing output files whole or not at all.
//
// Nothing is ever written half (docs/cli.md): content goes to a temporary file beside the target,
// is flushed, and is renamed over the target only when complete.
#pragma once

#include <string>
#include <string_view>

namespace ptxkit::cli {

// Writes `content` to the -o target `path`:
//   - a regular file, or a path that does not exist yet: atomically (a temporary beside the
//     target, renamed over it when complete); an existing file keeps its permissions, a new one
//     gets 0666 minus the umask;
//   - a symlink: followed, and its final target replaced as above (the link stays a link);
//   - a character device, FIFO or socket (/dev/null, /dev/stdout, a pipe): written through;
//   - "-": standard output;
//   - a directory or "": refused.
// On failure returns false and sets `error` to a message naming the path and the reason; the
// target is left untouched and no temporary is left behind.
[[nodiscard]] bool write_file_atomically(const std::string& path, std::string_view content,
                                         std::string& error);

// Reads a whole file; on failure (a directory included) returns false and sets `error` (path and
// reason).
[[nodiscard]] bool read_file(const std::string& path, std::string& content, std::string& error);

} // namespace ptxkit::cli
