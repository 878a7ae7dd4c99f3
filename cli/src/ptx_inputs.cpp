// ptx_inputs.cpp: directory arguments of `verify` -> sorted lists of `*.ptx` files.
#include "ptx_inputs.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <system_error>

namespace ptxkit::cli {
namespace {

namespace fs = std::filesystem;

// Every `*.ptx` regular file below `dir` (a symlink to a file counts as the file; the iterator
// does not descend through symlinks to directories, so a link cycle cannot loop), sorted.
std::vector<PtxInput> expand_directory(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> found;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (it->path().extension() == ".ptx" && it->is_regular_file(type_ec))
      found.push_back(it->path());
  }
  // A listing that failed half-way would be partial in an order the file system chose, so the
  // whole argument is reported instead.
  if (ec) return {{dir, "cannot read directory '" + dir + "': " + ec.message()}};
  if (found.empty()) return {{dir, "no .ptx file under '" + dir + "'"}};
  std::sort(found.begin(), found.end());
  std::vector<PtxInput> out;
  out.reserve(found.size());
  for (const fs::path& p : found)
    out.push_back({p.string(), {}});
  return out;
}

} // namespace

std::vector<PtxInput> expand_ptx_arguments(const std::vector<std::string>& args) {
  std::vector<PtxInput> out;
  for (const std::string& arg : args) {
    std::error_code ec;
    if (arg != "-" && fs::is_directory(arg, ec)) {
      std::vector<PtxInput> files = expand_directory(arg);
      out.insert(out.end(), std::make_move_iterator(files.begin()),
                 std::make_move_iterator(files.end()));
    } else {
      out.push_back({arg, {}});
    }
  }
  return out;
}

} // namespace ptxkit::cli
