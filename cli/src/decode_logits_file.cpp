// decode_logits_file.cpp: `ptxkit decode --logits` as NumPy .npy (version 1.0) or JSON.
#include "decode_logits_file.h"

#include <nlohmann/json.hpp>

namespace ptxkit::cli {

std::string logits_file(const std::string& path,
                        const std::vector<std::vector<std::uint32_t>>& prompts,
                        const std::vector<std::vector<std::uint32_t>>& generated,
                        const std::vector<std::vector<float>>& logits, std::size_t vocab) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
    const std::size_t tokens = generated.empty() ? 0 : generated[0].size();
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                         std::to_string(logits.size()) + ", " + std::to_string(tokens) + ", " +
                         std::to_string(vocab) + "), }";
    // Version 1.0: magic, a u16 header length, the header padded with spaces to a multiple of
    // 64 bytes (with the 10 bytes before it) and ending in a newline.
    header.append(63 - (10 + header.size()) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    out += header;
    for (const auto& slot : logits) // f32 is little-endian on every host ptxkit runs on
      out.append(reinterpret_cast<const char*>(slot.data()), slot.size() * sizeof(float));
    return out;
  }
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t s = 0; s < logits.size(); ++s) {
    nlohmann::json steps = nlohmann::json::array();
    for (std::size_t t = 0; t * vocab < logits[s].size(); ++t)
      steps.push_back(
          std::vector<float>(logits[s].begin() + static_cast<std::ptrdiff_t>(t * vocab),
                             logits[s].begin() + static_cast<std::ptrdiff_t>((t + 1) * vocab)));
    out.push_back({{"prompt", prompts[s]}, {"tokens", generated[s]}, {"logits", steps}});
  }
  return out.dump() + "\n";
}

} // namespace ptxkit::cli
