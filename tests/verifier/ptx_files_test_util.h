// ptx_files_test_util.h: reading the corpora the verifier tests sweep.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ptxkit::verifier::testing {

// The whole file at `path` ("" when it cannot be read).
inline std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The names of the *.ptx files directly in `dir`, sorted (empty when it cannot be listed).
inline std::vector<std::string> ptx_files_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".ptx") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace ptxkit::verifier::testing
