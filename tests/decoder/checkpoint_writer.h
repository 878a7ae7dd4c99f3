// checkpoint_writer.h: safetensors files written byte by byte for the decoder's tests (header
// length, JSON header, data), with a hook to corrupt the header.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/host_tensors.h>
#include <string>
#include <vector>

namespace ptxkit::decoder::test_util {

struct RawTensor {
  std::string name;
  std::string dtype; // "F32", "F16", "BF16" or anything else to test refusals
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> data;
};

inline std::vector<std::uint8_t> f32_bytes(const std::vector<float>& v) {
  std::vector<std::uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

inline std::vector<std::uint8_t> half_bytes(const std::vector<float>& v, kernels::DType t) {
  std::vector<std::uint8_t> b;
  for (float x : v) {
    const std::uint16_t h =
        t == kernels::DType::kF16 ? kernels::f16_bits(x) : kernels::bf16_bits(x);
    b.push_back(static_cast<std::uint8_t>(h & 0xff));
    b.push_back(static_cast<std::uint8_t>(h >> 8));
  }
  return b;
}

// Writes a safetensors file; `edit` may change the header before it is written.
inline void write_file(const std::filesystem::path& path, const std::vector<RawTensor>& tensors,
                       const std::function<void(nlohmann::json&)>& edit = {}) {
  nlohmann::json header = nlohmann::json::object();
  header["__metadata__"] = {{"format", "pt"}};
  std::vector<std::uint8_t> data;
  for (const auto& t : tensors) {
    header[t.name] = {{"dtype", t.dtype},
                      {"shape", t.shape},
                      {"data_offsets", {data.size(), data.size() + t.data.size()}}};
    data.insert(data.end(), t.data.begin(), t.data.end());
  }
  if (edit) edit(header);
  const std::string text = header.dump();
  std::ofstream out(path, std::ios::binary);
  const std::uint64_t n = text.size();
  for (int i = 0; i < 8; ++i)
    out.put(static_cast<char>(n >> (8 * i) & 0xff));
  out << text;
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

// A model directory with random weights for `config` (a config.json object): every tensor the
// architecture names, in `dtype` ("F32", "F16" or "BF16"), values uniform in +-scale (norm
// weights around 1), except `leave_out`. Returns every tensor by name, as f32 (before rounding).
inline std::map<std::string, std::vector<float>>
write_random_model(const std::filesystem::path& dir, const nlohmann::json& config,
                   std::uint64_t seed, const std::string& dtype = "F32", float scale = 0.2f,
                   const std::string& leave_out = "") {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << config.dump(2);
  const std::uint64_t hidden = config["hidden_size"], layers = config["num_hidden_layers"],
                      heads = config["num_attention_heads"],
                      kv = config.value("num_key_value_heads", heads),
                      hd = config.value("head_dim", hidden / heads),
                      inter = config["intermediate_size"], vocab = config["vocab_size"];
  const bool qwen2 = config.value("model_type", std::string()) == "qwen2";
  const bool bias = qwen2 || config.value("attention_bias", false);
  const bool tied = config.value("tie_word_embeddings", false);
  kernels::InputRng rng(seed);
  std::map<std::string, std::vector<float>> all;
  std::vector<RawTensor> tensors;
  auto add = [&](const std::string& name, std::vector<std::uint64_t> shape, bool norm) {
    std::uint64_t n = 1;
    for (auto d : shape)
      n *= d;
    std::vector<float> v(n);
    for (auto& x : v)
      x = norm ? rng.uniform(0.8f, 1.2f) : rng.uniform(-scale, scale);
    const auto bytes = dtype == "F32"   ? f32_bytes(v)
                       : dtype == "F16" ? half_bytes(v, kernels::DType::kF16)
                                        : half_bytes(v, kernels::DType::kBF16);
    if (name != leave_out) tensors.push_back({name, dtype, shape, bytes});
    all[name] = std::move(v);
  };
  add("model.embed_tokens.weight", {vocab, hidden}, false);
  for (std::uint64_t i = 0; i < layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    add(p + "input_layernorm.weight", {hidden}, true);
    add(p + "self_attn.q_proj.weight", {heads * hd, hidden}, false);
    add(p + "self_attn.k_proj.weight", {kv * hd, hidden}, false);
    add(p + "self_attn.v_proj.weight", {kv * hd, hidden}, false);
    if (bias) {
      add(p + "self_attn.q_proj.bias", {heads * hd}, false);
      add(p + "self_attn.k_proj.bias", {kv * hd}, false);
      add(p + "self_attn.v_proj.bias", {kv * hd}, false);
    }
    add(p + "self_attn.o_proj.weight", {hidden, heads * hd}, false);
    add(p + "post_attention_layernorm.weight", {hidden}, true);
    add(p + "mlp.gate_proj.weight", {inter, hidden}, false);
    add(p + "mlp.up_proj.weight", {inter, hidden}, false);
    add(p + "mlp.down_proj.weight", {hidden, inter}, false);
  }
  add("model.norm.weight", {hidden}, true);
  if (!tied) add("lm_head.weight", {vocab, hidden}, false);
  write_file(dir / "model.safetensors", tensors);
  return all;
}

} // namespace ptxkit::decoder::test_util
