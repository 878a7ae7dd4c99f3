// ptx_inputs.h: the file list of `ptxkit verify`, with directory arguments expanded.
//
// Why its own step: CI points `verify` at a build tree of PTX, so a directory stands for every
// `*.ptx` below it. The expansion is sorted so the report reads the same on every machine and
// file system, whatever order the directory entries come back in.
#pragma once

#include <string>
#include <vector>

namespace ptxkit::cli {

// One entry of the expanded list: a file to check, or the error that stands in the place of an
// argument that could not be expanded (printed in input order like the files' own errors).
struct PtxInput {
  std::string path;  // a file path as given or as found below a directory argument; "-" is stdin
  std::string error; // non-empty: nothing to check, report this message
};

// Each argument in order: a file (or "-") as itself; a directory as every regular file named
// `*.ptx` below it, sorted by path, without following symlinks to directories. A directory that
// holds no such file, or cannot be listed, becomes one error entry.
[[nodiscard]] std::vector<PtxInput> expand_ptx_arguments(const std::vector<std::string>& args);

} // namespace ptxkit::cli
