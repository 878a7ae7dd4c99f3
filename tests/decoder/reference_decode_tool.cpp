// reference_decode_tool.cpp: ptxkit_reference_decode MODEL_DIR IDS NEW_TOKENS: the CPU reference
// decoder on a Hugging Face model directory, for scripts/check-decoder-reference.py, which
// compares it with transformers on the GPU machine (where transformers is installed). Prints
// {"tokens": [...], "logits": [[...], ...]} (the logits before each generated token). Exit 2 on
// bad arguments or an unreadable model.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <ptxkit/decoder/reference_decoder.h>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  using namespace ptxkit::decoder;
  if (argc != 4) {
    std::cerr << "usage: ptxkit_reference_decode MODEL_DIR PROMPT_IDS(1,2,3) NEW_TOKENS\n";
    return 2;
  }
  std::vector<std::uint32_t> prompt;
  std::stringstream ids(argv[2]);
  for (std::string id; std::getline(ids, id, ',');) {
    try {
      prompt.push_back(static_cast<std::uint32_t>(std::stoul(id)));
    } catch (const std::exception&) {
      std::cerr << "ptxkit_reference_decode: '" << id << "' is not a token id\n";
      return 2;
    }
  }
  const unsigned long n = std::strtoul(argv[3], nullptr, 10);
  auto weights = read_model(argv[1]);
  if (!weights) {
    std::cerr << "ptxkit_reference_decode: " << weights.error().to_string() << "\n";
    return 2;
  }
  ReferenceDecoder dec(*weights);
  std::vector<std::vector<float>> logits;
  auto tokens = dec.generate(0, prompt, static_cast<std::uint32_t>(n), &logits);
  if (!tokens) {
    std::cerr << "ptxkit_reference_decode: " << tokens.error().to_string() << "\n";
    return 2;
  }
  std::cout << nlohmann::json{{"tokens", *tokens}, {"logits", logits}}.dump() << "\n";
  return 0;
}
