// reference_decode_tool.cpp: ptxkit_reference_decode MODEL_DIR IDS NEW_TOKENS [--q4k]: the CPU
// reference decoder on a Hugging Face model directory, for scripts/check-decoder-reference.py,
// which compares it with transformers on the GPU machine (where transformers is installed), and
// `ptxkit decode` with it. Prints {"tokens": [...], "logits": [[...], ...]} (the logits before
// each generated token). With --q4k every weight matrix is first quantized to Q4_K (as
// `ptxkit decode --weights q4k` does) and dequantized back, so a comparison with the GPU's Q4_K
// decode measures kernel error, not quantization error. Exit 2 on bad arguments or an
// unreadable model.
#include "q4k_gemv/q4k_gemv.h"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <ptxkit/decoder/q4k_quantize.h>
#include <ptxkit/decoder/reference_decoder.h>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  using namespace ptxkit::decoder;
  const bool q4k = argc == 5 && std::string(argv[4]) == "--q4k";
  if (argc != 4 && !q4k) {
    std::cerr << "usage: ptxkit_reference_decode MODEL_DIR PROMPT_IDS(1,2,3) NEW_TOKENS [--q4k]\n";
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
  if (q4k) {
    const ModelConfig& c = weights->config;
    auto round_trip = [&](std::vector<float>& m, std::size_t rows, std::size_t cols) -> bool {
      auto words =
          q4k_quantize(m, static_cast<std::uint32_t>(rows), static_cast<std::uint32_t>(cols));
      if (!words) return false;
      const std::size_t blocks = (cols + 255) / 256;
      std::vector<std::uint8_t> block(kQ4kBlockBytes);
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t b = 0; b < blocks; ++b) {
          std::memcpy(block.data(), words->data() + (r * blocks + b) * 36, block.size());
          const auto v = ptxkit::kernels::q4k_dequantize_block(block.data());
          for (std::size_t i = 0; i < 256 && b * 256 + i < cols; ++i)
            m[r * cols + b * 256 + i] = static_cast<float>(v[i]);
        }
      return true;
    };
    const std::size_t H = c.hidden, I = c.intermediate, q_out = std::size_t{c.heads} * c.head_dim,
                      kv_out = std::size_t{c.kv_heads} * c.head_dim;
    bool ok = true;
    for (auto& l : weights->layers)
      ok = ok && round_trip(l.q, q_out, H) && round_trip(l.k, kv_out, H) &&
           round_trip(l.v, kv_out, H) && round_trip(l.o, H, q_out) && round_trip(l.gate, I, H) &&
           round_trip(l.up, I, H) && round_trip(l.down, H, I);
    // The GPU decoder gathers embedding rows in f32 and quantizes only the head's copy.
    if (c.tie_word_embeddings) {
      weights->lm_head = weights->embed;
      weights->config.tie_word_embeddings = false;
    }
    ok = ok && round_trip(weights->lm_head, c.vocab, H);
    if (!ok) {
      std::cerr << "ptxkit_reference_decode: a weight Q4_K cannot represent\n";
      return 2;
    }
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
