// reference_decode_tool.cpp: the CPU reference decoder on a Hugging Face model directory, for
// scripts/check-decoder-reference.py, which compares it with transformers on the GPU machine
// (where transformers is installed), and `ptxkit decode` with it.
//
//   ptxkit_reference_decode MODEL_DIR IDS NEW_TOKENS [--q4k]
//     prints {"tokens": [...], "logits": [[...], ...]} (the logits before each generated token).
//     With --q4k every weight matrix is first quantized to Q4_K (as `ptxkit decode --weights q4k`
//     does) and dequantized back, so a comparison with the GPU's Q4_K decode measures kernel
//     error, not quantization error.
//   ptxkit_reference_decode MODEL_DIR --write-q4k-dequantized OUT_DIR
//     writes those quantized-then-dequantized weights as a model directory (config.json with an
//     untied head, model.safetensors in f32), for transformers to run on.
// Exit 2 on bad arguments or an unreadable model.
#include "q4k_gemv/q4k_gemv.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <ptxkit/decoder/q4k_quantize.h>
#include <ptxkit/decoder/reference_decoder.h>
#include <sstream>
#include <string>

namespace {
using namespace ptxkit::decoder;

// Every weight matrix of `w` quantized to Q4_K and dequantized back; the head becomes its own
// (untied) matrix, because the GPU decoder gathers embedding rows in f32 and quantizes only the
// head's copy. False when a matrix cannot be quantized.
bool round_trip_q4k(ModelWeights& w) {
  const ModelConfig& c = w.config;
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
  for (auto& l : w.layers)
    ok = ok && round_trip(l.q, q_out, H) && round_trip(l.k, kv_out, H) &&
         round_trip(l.v, kv_out, H) && round_trip(l.o, H, q_out) && round_trip(l.gate, I, H) &&
         round_trip(l.up, I, H) && round_trip(l.down, H, I);
  if (c.tie_word_embeddings) {
    w.lm_head = w.embed;
    w.config.tie_word_embeddings = false;
  }
  return ok && round_trip(w.lm_head, c.vocab, H);
}

// `w` as a Hugging Face model directory: config.json (the input's, with the head untied) and one
// model.safetensors of f32 tensors under their Hugging Face names.
bool write_model(const ModelWeights& w, const std::filesystem::path& in_dir,
                 const std::filesystem::path& out_dir) {
  std::ifstream cf(in_dir / "config.json");
  nlohmann::json config = nlohmann::json::parse(cf, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) return false;
  config["tie_word_embeddings"] = false;
  const ModelConfig& c = w.config;
  const std::size_t H = c.hidden, I = c.intermediate, q_out = std::size_t{c.heads} * c.head_dim,
                    kv_out = std::size_t{c.kv_heads} * c.head_dim;
  std::vector<
      std::pair<std::string, std::pair<const std::vector<float>*, std::vector<std::size_t>>>>
      tensors = {{"model.embed_tokens.weight", {&w.embed, {c.vocab, H}}},
                 {"model.norm.weight", {&w.final_norm, {H}}},
                 {"lm_head.weight", {&w.lm_head, {c.vocab, H}}}};
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    const LayerWeights& l = w.layers[i];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    tensors.push_back({p + "input_layernorm.weight", {&l.input_norm, {H}}});
    tensors.push_back({p + "post_attention_layernorm.weight", {&l.post_attention_norm, {H}}});
    tensors.push_back({p + "self_attn.q_proj.weight", {&l.q, {q_out, H}}});
    tensors.push_back({p + "self_attn.k_proj.weight", {&l.k, {kv_out, H}}});
    tensors.push_back({p + "self_attn.v_proj.weight", {&l.v, {kv_out, H}}});
    tensors.push_back({p + "self_attn.o_proj.weight", {&l.o, {H, q_out}}});
    if (!l.q_bias.empty()) {
      tensors.push_back({p + "self_attn.q_proj.bias", {&l.q_bias, {q_out}}});
      tensors.push_back({p + "self_attn.k_proj.bias", {&l.k_bias, {kv_out}}});
      tensors.push_back({p + "self_attn.v_proj.bias", {&l.v_bias, {kv_out}}});
    }
    tensors.push_back({p + "mlp.gate_proj.weight", {&l.gate, {I, H}}});
    tensors.push_back({p + "mlp.up_proj.weight", {&l.up, {I, H}}});
    tensors.push_back({p + "mlp.down_proj.weight", {&l.down, {H, I}}});
  }
  nlohmann::json header = nlohmann::json::object();
  std::size_t offset = 0;
  for (const auto& [name, t] : tensors) {
    const std::size_t bytes = t.first->size() * 4;
    header[name] = {
        {"dtype", "F32"}, {"shape", t.second}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::filesystem::create_directories(out_dir);
  std::ofstream out(out_dir / "model.safetensors", std::ios::binary);
  const std::uint64_t n = text.size(); // little-endian, as on every machine this runs on
  out.write(reinterpret_cast<const char*>(&n), 8);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (const auto& [name, t] : tensors)
    out.write(reinterpret_cast<const char*>(t.first->data()),
              static_cast<std::streamsize>(t.first->size() * 4));
  std::ofstream(out_dir / "config.json") << config.dump(2) << "\n";
  return static_cast<bool>(out);
}

} // namespace

int main(int argc, char** argv) {
  using namespace ptxkit::decoder;
  const bool write = argc == 4 && std::string(argv[2]) == "--write-q4k-dequantized";
  const bool q4k = argc == 5 && std::string(argv[4]) == "--q4k";
  if (argc != 4 && !q4k) {
    std::cerr << "usage: ptxkit_reference_decode MODEL_DIR PROMPT_IDS(1,2,3) NEW_TOKENS [--q4k]\n"
                 "       ptxkit_reference_decode MODEL_DIR --write-q4k-dequantized OUT_DIR\n";
    return 2;
  }
  if (write) {
    auto weights = read_model(argv[1]);
    if (!weights) {
      std::cerr << "ptxkit_reference_decode: " << weights.error().to_string() << "\n";
      return 2;
    }
    if (!round_trip_q4k(*weights) || !write_model(*weights, argv[1], argv[3])) {
      std::cerr << "ptxkit_reference_decode: cannot write the dequantized model to " << argv[3]
                << "\n";
      return 2;
    }
    return 0;
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
  if (q4k && !round_trip_q4k(*weights)) {
    std::cerr << "ptxkit_reference_decode: a weight Q4_K cannot represent\n";
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
