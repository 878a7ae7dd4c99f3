// cmd_decode.cpp: `ptxkit decode --model DIR (--prompt-ids IDS | --batch-file F)
// [--max-new-tokens N] [--weights f32|bf16|q4k] [--max-seq-len L] [--logits FILE]`.
//
// Greedy decoding of a Hugging Face Qwen2 / Llama model directory (config.json + safetensors) on
// the GPU with the decoder library: every slot (one per prompt) steps together, one token per
// slot per step, prompts fed token by token. Prints each slot's generated ids on stdout; a
// progress line and the speed on stderr. Everything that can be checked without a device (the
// arguments, the model directory) is checked first: exit 2 for those, 3 when there is no device,
// 1 when a launch fails.
#include "command_registry.h"
#include "decode_logits_file.h"
#include "device_harness.h"
#include "diagnostics.h"
#include "output_file.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <ptxkit/decoder/decoder.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ptxkit::cli {
namespace {

namespace rt = ptxkit::runtime;

struct DecodeOptions {
  std::string model;
  std::string prompt_ids;
  std::string batch_file;
  std::uint32_t max_new_tokens = 16;
  std::string weights = "f32";
  std::uint32_t max_seq_len = 0;
  std::string logits;
  bool no_graph = false;
  bool profile = false;
};

int usage(const std::string& message) {
  std::cerr << program_name() << ": error: " << message << "\n";
  return kExitBadInput;
}

// "1,2,3" or "1 2 3" into ids; an empty list or a non-number is an error naming `where`.
ptxkit::Expected<std::vector<std::uint32_t>> parse_ids(const std::string& text,
                                                       const std::string& where) {
  std::vector<std::uint32_t> ids;
  std::string token;
  std::stringstream in(text);
  while (in >> token) {
    std::stringstream parts(token);
    for (std::string id; std::getline(parts, id, ',');) {
      if (id.empty()) continue;
      std::size_t used = 0;
      unsigned long v = 0;
      try {
        v = std::stoul(id, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != id.size() || v > 0xffffffffu)
        return ptxkit::Error{.message = where + ": '" + id + "' is not a token id", .file = {}};
      ids.push_back(static_cast<std::uint32_t>(v));
    }
  }
  if (ids.empty()) return ptxkit::Error{.message = where + ": no token ids", .file = {}};
  return ids;
}

int decode_command(const DecodeOptions& o) {
  // Arguments and the model, before the device.
  if (o.prompt_ids.empty() == o.batch_file.empty())
    return usage("decode takes one of --prompt-ids or --batch-file");
  decoder::DecoderOptions opts;
  if (o.weights == "f32")
    opts.weights = decoder::WeightMode::kF32;
  else if (o.weights == "bf16")
    opts.weights = decoder::WeightMode::kBF16;
  else if (o.weights == "q4k")
    opts.weights = decoder::WeightMode::kQ4K;
  else
    return usage("--weights " + o.weights + ": expected f32, bf16 or q4k");
  if (o.max_new_tokens == 0) return usage("--max-new-tokens must be at least 1");
  opts.use_graph = !o.no_graph;
  std::vector<std::vector<std::uint32_t>> prompts;
  if (!o.prompt_ids.empty()) {
    auto ids = parse_ids(o.prompt_ids, "--prompt-ids");
    if (!ids) return usage(ids.error().message);
    prompts.push_back(std::move(*ids));
  } else {
    std::ifstream in(o.batch_file);
    if (!in) return usage(o.batch_file + ": cannot open it for reading");
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
      auto ids = parse_ids(line, o.batch_file + ":" + std::to_string(n));
      if (!ids) return usage(ids.error().message);
      prompts.push_back(std::move(*ids));
    }
    if (prompts.empty()) return usage(o.batch_file + ": no prompts (one line of ids per slot)");
  }
  auto weights = decoder::read_model(o.model);
  if (!weights) return usage(weights.error().to_string());
  const decoder::ModelConfig& c = weights->config;
  std::size_t longest = 0;
  for (std::size_t s = 0; s < prompts.size(); ++s) {
    longest = std::max(longest, prompts[s].size());
    for (std::uint32_t id : prompts[s])
      if (id >= c.vocab)
        return usage("prompt " + std::to_string(s) + ": token id " + std::to_string(id) +
                     " is not below the vocabulary " + std::to_string(c.vocab));
  }
  const std::size_t steps = longest + o.max_new_tokens - 1;
  opts.batch = static_cast<std::uint32_t>(prompts.size());
  opts.max_seq_len =
      o.max_seq_len != 0 ? o.max_seq_len : std::min<std::uint32_t>(2048, c.max_positions);
  if (steps > opts.max_seq_len)
    return usage("the longest prompt (" + std::to_string(longest) + ") plus " +
                 std::to_string(o.max_new_tokens) + " new tokens needs " + std::to_string(steps) +
                 " positions; --max-seq-len is " + std::to_string(opts.max_seq_len));

  auto session = device::Session::open();
  if (!session) {
    const rt::Error& e = session.error();
    std::cerr << program_name()
              << ": error: " << (e.is_unavailable() ? "no usable CUDA device: " : "") << e.message
              << "\n";
    return e.is_unavailable() ? kExitNoDevice : kExitFindings;
  }
  auto dec = decoder::Decoder::create(*session->cache, session->target, *weights, opts);
  if (!dec) {
    std::cerr << program_name() << ": error: " << dec.error().message << "\n";
    return dec.error().kind == rt::ErrorKind::kBadArgument ? kExitBadInput : kExitFindings;
  }
  weights = ptxkit::Error{.message = "released", .file = {}}; // the device holds the weights now

  const std::size_t M = prompts.size();
  std::vector<std::vector<std::uint32_t>> generated(M);
  std::vector<std::vector<float>> logits(M); // per slot: new tokens x vocab
  std::vector<std::uint32_t> tokens(M), positions(M);
  const bool progress = isatty(STDERR_FILENO) != 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto gen_start = t0;
  for (std::size_t t = 0; t < steps; ++t) {
    if (t + 1 == longest) gen_start = std::chrono::steady_clock::now();
    for (std::size_t s = 0; s < M; ++s) {
      tokens[s] = t < prompts[s].size() ? prompts[s][t] : generated[s].back();
      positions[s] = static_cast<std::uint32_t>(t);
    }
    auto r = dec->step(session->stream, tokens, positions, !o.logits.empty());
    if (!r) {
      std::cerr << program_name() << ": error: " << r.error().message << "\n";
      return kExitFindings;
    }
    for (std::size_t s = 0; s < M; ++s) {
      if (t + 1 < prompts[s].size() || generated[s].size() == o.max_new_tokens) continue;
      generated[s].push_back(r->next[s]);
      if (!o.logits.empty())
        logits[s].insert(logits[s].end(), r->logits.begin() + s * c.vocab,
                         r->logits.begin() + (s + 1) * c.vocab);
    }
    if (progress) std::cerr << "\rdecode: step " << (t + 1) << "/" << steps << std::flush;
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (progress) std::cerr << "\r\033[K";
  for (std::size_t s = 0; s < M; ++s) {
    std::cout << "slot " << s << ":";
    for (std::uint32_t id : generated[s])
      std::cout << " " << id;
    std::cout << "\n";
  }
  if (!o.logits.empty()) {
    std::string error;
    if (!write_file_atomically(o.logits, logits_file(o.logits, prompts, generated, logits, c.vocab),
                               error))
      return usage(error);
  }
  const double total_s = std::chrono::duration<double>(t1 - t0).count();
  const double gen_s = std::chrono::duration<double>(t1 - gen_start).count();
  const std::size_t gen_steps = steps - (longest - 1);
  char line[256];
  std::snprintf(line, sizeof line,
                "decode: %zu slot(s), %zu steps in %.3f s; generation %.1f tokens/s (%zu steps "
                "after the longest prompt, %s weights, %.0f MB on the device, %s)\n",
                M, steps, total_s, gen_s > 0 ? double(gen_steps * M) / gen_s : 0.0, gen_steps,
                std::string(decoder::weight_mode_name(opts.weights)).c_str(),
                double(dec->weight_bytes()) / 1e6,
                opts.use_graph ? "one CUDA graph per step" : "kernels launched one by one");
  std::cerr << line;
  if (o.profile) {
    // The last step again, kernel by kernel (Decoder::profile_step), summed per kernel.
    auto us = dec->profile_step(session->stream, tokens, positions);
    if (!us) {
      std::cerr << program_name() << ": error: --profile: " << us.error().message << "\n";
      return kExitFindings;
    }
    std::map<std::string, std::pair<std::size_t, double>> per_kernel;
    double total = 0;
    for (std::size_t i = 0; i < us->size(); ++i) {
      auto& k = per_kernel[dec->plan()[i].kernel];
      ++k.first;
      k.second += (*us)[i];
      total += (*us)[i];
    }
    std::vector<std::pair<std::string, std::pair<std::size_t, double>>> rows(per_kernel.begin(),
                                                                             per_kernel.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.second.second > b.second.second;
    });
    std::snprintf(line, sizeof line,
                  "profile: one step at position %u, %zu launches one by one: %.1f us (a graph "
                  "step above: %.1f us)\n",
                  positions[0], us->size(), total,
                  gen_steps > 0 ? 1e6 * gen_s / double(gen_steps) : 0.0);
    std::cerr << line;
    for (const auto& [name, k] : rows) {
      std::snprintf(line, sizeof line, "  %-26s %4zu launches %9.1f us %5.1f%%\n", name.c_str(),
                    k.first, k.second, total > 0 ? 100 * k.second / total : 0.0);
      std::cerr << line;
    }
  }
  return kExitOk;
}

const CommandRegistration reg{
    "decode", [](CLI::App& app, CommandResult& result) {
      auto o = std::make_shared<DecodeOptions>();
      auto* sub = app.add_subcommand(
          "decode", "Greedy decoding of a Hugging Face Qwen2 or Llama model on the CUDA device "
                    "with the library kernels: prints each slot's generated ids; exit 3 no device");
      sub->add_option("--model", o->model,
                      "Model directory: config.json and model.safetensors (or its index)")
          ->type_name("DIR")
          ->required();
      sub->add_option("--prompt-ids", o->prompt_ids, "The prompt's token ids: 1,2,3")
          ->type_name("IDS");
      sub->add_option("--batch-file", o->batch_file,
                      "One prompt per line (ids separated by commas or spaces); the prompts are "
                      "decoded together, one slot each")
          ->type_name("FILE");
      sub->add_option("--max-new-tokens", o->max_new_tokens, "Tokens to generate per slot")
          ->type_name("N")
          ->default_val(16);
      sub->add_option("--weights", o->weights,
                      "Weights on the device: f32, bf16 (gemv_half) or q4k (quantized on load)")
          ->type_name("MODE")
          ->default_val("f32");
      sub->add_option("--max-seq-len", o->max_seq_len,
                      "Positions each slot's KV cache holds (default: min(2048, the model's "
                      "max_position_embeddings))")
          ->type_name("L");
      sub->add_option("--logits", o->logits,
                      "Write every slot's logits before each generated token: FILE.npy as a "
                      "NumPy f32 array [slots, new tokens, vocab], any other name as JSON")
          ->type_name("FILE");
      sub->add_flag("--profile", o->profile,
                    "After decoding, run the last step again kernel by kernel and print where its "
                    "time goes (per kernel: launches, microseconds, share) on stderr");
      sub->add_flag("--no-graph", o->no_graph,
                    "Launch the step's kernels one by one instead of replaying one CUDA graph");
      sub->footer("Exit codes: 0 decoded, 1 a launch failed, 2 bad usage or an unreadable model "
                  "(the tensor named),\n3 no CUDA driver or device.");
      sub->callback([o, &result] { result.exit_code = decode_command(*o); });
    }};

} // namespace
} // namespace ptxkit::cli
