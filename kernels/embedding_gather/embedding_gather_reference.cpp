// embedding_gather_reference.cpp: the embedding gather's CPU reference, launch contract (with the
// host-side id check), inputs, reference configs and bench case.
#include "common/row_block.h"
#include "embedding_gather.h"
#include "error_p.h"

#include <algorithm>

namespace ptxkit::kernels {

std::vector<NamedConfig<EmbeddingGatherConfig>> EmbeddingGather::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5-0.5B: vocab 151936, hidden 896",
       Config{.vocab = 151936, .hidden = 896, .tokens = 4}},
      {"llama", "Llama: vocab 32000, hidden 4096",
       Config{.vocab = 32000, .hidden = 4096, .tokens = 4}},
      {"qwen05b_bf16", "Qwen2.5-0.5B in bf16: vocab 151936, hidden 896",
       Config{.vocab = 151936, .hidden = 896, .tokens = 4, .dtype = DType::kBF16}},
      {"llama_f16", "Llama in f16: vocab 32000, hidden 4096",
       Config{.vocab = 32000, .hidden = 4096, .tokens = 4, .dtype = DType::kF16}},
  };
}

std::vector<BenchCase> EmbeddingGather::bench_cases() {
  // Only the gathered rows are read: tokens x hidden read + written, plus the ids.
  return {{.name = "embedding_gather_65536x896",
           .config = "qwen05b",
           .sets = {"tokens=65536"},
           .shape = "65536 tokens from a 151936 x 896 table",
           .target = BenchTarget{.min_pct_of_copy = 80},
           .bytes = 2.0 * 4 * 65536 * 896 + 4.0 * 65536}};
}

ptxkit::Expected<void> EmbeddingGather::validate(const Config&) {
  return {};
}

ptxkit::Expected<void> EmbeddingGather::check_ids(const Config& c,
                                                  std::span<const std::uint32_t> ids) {
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (ids[t] >= c.vocab)
      return fail("embedding_gather: ids[" + std::to_string(t) + "] = " + std::to_string(ids[t]) +
                  " is out of range: the table has vocab = " + std::to_string(c.vocab) +
                  " rows (the kernel would write a zero row)");
  return {};
}

LaunchDims EmbeddingGather::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.tokens;
  d.block[0] = row_block::threads_for(chunks(c));
  return d;
}

std::vector<ParamSpec> EmbeddingGather::params(const Config& c) {
  return {
      {.name = "table",
       .kind = ParamKind::kInput,
       .buffer = "table",
       .elem = elem_type(c.dtype),
       .elems = std::size_t{c.vocab} * c.hidden},
      {.name = "ids",
       .kind = ParamKind::kInput,
       .buffer = "ids",
       .elem = ElemType::kU32,
       .elems = c.tokens},
      {.name = "output",
       .kind = ParamKind::kOutput,
       .buffer = "out",
       .elem = elem_type(c.dtype),
       .elems = std::size_t{c.tokens} * c.hidden},
  };
}

HostTensors EmbeddingGather::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  t.f32["table"] = rng.uniform_vector(std::size_t{c.vocab} * c.hidden, -1.0f, 1.0f);
  round_all(c.dtype, t.f32["table"]); // the copy keeps them exactly
  auto& ids = t.u32["ids"];
  // Valid ids, the last row of the table among them (the row next to the end).
  for (std::uint32_t i = 0; i < c.tokens; ++i)
    ids.push_back(i == 0 ? c.vocab - 1 : static_cast<std::uint32_t>(rng.next_u64() % c.vocab));
  return t;
}

std::vector<float> embedding_gather_reference(const std::vector<float>& table,
                                              const std::vector<std::uint32_t>& ids,
                                              std::uint32_t vocab, std::uint32_t hidden) {
  std::vector<float> out(ids.size() * hidden, 0.0f);
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (ids[t] < vocab)
      std::copy_n(table.begin() + static_cast<std::ptrdiff_t>(std::size_t{ids[t]} * hidden), hidden,
                  out.begin() + static_cast<std::ptrdiff_t>(t * hidden));
  return out;
}

ptxkit::Expected<HostTensors> EmbeddingGather::reference(const Config& c, const HostTensors& in) {
  auto table = in.f32.find("table");
  auto ids = in.u32.find("ids");
  if (table == in.f32.end() || ids == in.u32.end())
    return fail("embedding_gather reference: inputs 'table' (f32) and 'ids' (u32) are required");
  if (table->second.size() != std::size_t{c.vocab} * c.hidden || ids->second.size() != c.tokens)
    return fail("embedding_gather reference: table has " + std::to_string(table->second.size()) +
                " elements and ids " + std::to_string(ids->second.size()) +
                "; expected vocab*hidden = " + std::to_string(std::size_t{c.vocab} * c.hidden) +
                " and tokens = " + std::to_string(c.tokens));
  HostTensors out;
  out.f32["out"] = embedding_gather_reference(table->second, ids->second, c.vocab, c.hidden);
  return out;
}

} // namespace ptxkit::kernels
