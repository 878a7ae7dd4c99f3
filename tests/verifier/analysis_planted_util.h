// analysis_planted_util.h: reading the real kernels that planted-defect tests mutate, and
// line-level mutation helpers.
//
// Why: each rule must be shown firing, at the right line, on real kernels (ours from
// golden/, and the corpus's) mutated the way the rule exists for; the tests share the inputs.
#pragma once

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace ptxkit::verifier::testing {

inline std::string read_source_file(const std::string& rel) {
  std::ifstream in(std::string(PTXKIT_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Real kernels to mutate: generated kernels (golden), a Triton-style softmax, and Triton 3.6 /
// TorchInductor output captured on the H200 (a wgmma matmul, a fused reduction kernel).
inline std::vector<std::string> planted_defect_inputs() {
  return {"golden/batched_incremental_attention.qwen15b_coder.sm_90.ptx",
          "golden/rmsnorm.llama.sm_90.ptx", "tests/corpus/handwritten/triton_softmax.ptx",
          "tests/corpus/triton/triton36.matmul_f16_64x64.sm_90a.ptx",
          "tests/corpus/triton/inductor.per_fused_rmsnorm_softmax_argmax.sm_90a.ptx"};
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  return lines;
}

inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines)
    out += l + "\n";
  return out;
}

// Replaces register `reg` (a whole token: %f1 but not %f10) in `line` by `with`.
inline std::string replace_register(const std::string& line, const std::string& reg,
                                    const std::string& with) {
  std::string escaped;
  for (char c : reg)
    escaped += (c == '%' || c == '$') ? std::string(1, c) : std::string(1, c);
  return std::regex_replace(line, std::regex(escaped + "(?![0-9A-Za-z_])"), with);
}

} // namespace ptxkit::verifier::testing
