// flash_decode_reference.cpp: the one-launch kernel's CPU reference (the chunk pass's reference,
// then the reduce's), launch contract with its workspace, inputs, reference configs and bench
// cases.
#include "error_p.h"
#include "flash_decode.h"
#include "flash_decode_reduce/flash_decode_reduce.h"

#include <algorithm>
#include <string>

namespace ptxkit::kernels {

namespace {

FlashDecodeReduceConfig reduce_of(const FlashDecodeConfig& c) {
  return {.head_dim = c.head_dim,
          .num_heads = c.num_heads,
          .max_seq_len = c.max_seq_len,
          .chunk_size = c.chunk_size,
          .batch_size = c.batch_size};
}

std::size_t partial_rows(const FlashDecodeConfig& c) {
  return std::size_t{c.batch_size} * c.num_heads * c.num_chunks();
}

} // namespace

std::vector<NamedConfig<FlashDecodeConfig>> FlashDecode::reference_configs() {
  std::vector<NamedConfig<FlashDecodeConfig>> out;
  for (auto& rc : FlashDecodeChunk::reference_configs())
    if (rc.tag == "qwen15b_coder" || rc.tag == "qwen15b_coder_bf16" || rc.tag == "qwen05b")
      out.push_back(std::move(rc));
  return out;
}

ptxkit::Expected<void> FlashDecode::validate(const Config& c) {
  if (auto ok = FlashDecodeChunk::validate(c); !ok) return ok;
  if (auto ok = FlashDecodeReduce::validate(reduce_of(c)); !ok) return ok;
  if (flash_decode_shared_bytes(c) > 48 * 1024)
    return fail("static shared memory 4 * (group * head_dim * 5 + group * chunk_size + group * "
                "num_chunks + group * 512 + group + 1) = " +
                std::to_string(flash_decode_shared_bytes(c)) + " bytes exceeds 49152 (group = " +
                std::to_string(c.group()) + ", num_chunks = " + std::to_string(c.num_chunks()) +
                "): use a larger chunk_size or more KV heads");
  return {};
}

LaunchDims FlashDecode::launch(const Config& c) {
  return FlashDecodeChunk::launch(c);
}

std::vector<ParamSpec> FlashDecode::params(const Config& c) {
  // The chunk pass's parameters (its partials become the workspace), then the counters and out.
  std::vector<ParamSpec> p = FlashDecodeChunk::params(c);
  for (auto& s : p)
    if (s.kind == ParamKind::kOutput) s.kind = ParamKind::kInput; // scratch: not compared
  p.push_back({.name = "counters",
               .kind = ParamKind::kInput,
               .buffer = "counters",
               .elem = ElemType::kU32,
               .elems = std::size_t{c.batch_size} * c.num_kv_heads});
  p.push_back({.name = "out",
               .kind = ParamKind::kOutput,
               .buffer = "out",
               .elems = std::size_t{c.batch_size} * c.num_heads * c.head_dim});
  return p;
}

HostTensors FlashDecode::make_inputs(const Config& c, std::uint64_t seed) {
  HostTensors t = FlashDecodeChunk::make_inputs(c, seed);
  // The workspace: the counters zero (the contract), the partials any value (zeros here).
  t.u32["counters"].assign(std::size_t{c.batch_size} * c.num_kv_heads, 0u);
  t.f32["partial_max"].assign(partial_rows(c), 0.0f);
  t.f32["partial_sum"].assign(partial_rows(c), 0.0f);
  t.f32["partial_out"].assign(partial_rows(c) * c.head_dim, 0.0f);
  return t;
}

ptxkit::Expected<HostTensors> FlashDecode::reference(const Config& c, const HostTensors& in) {
  auto parts = FlashDecodeChunk::reference(c, in);
  if (!parts) return fail("flash_decode reference: " + parts.error().message);
  HostTensors r = std::move(*parts);
  r.u32["seq_lens"] = in.u32.at("seq_lens");
  auto out = FlashDecodeReduce::reference(reduce_of(c), r);
  if (!out) return fail("flash_decode reference: " + out.error().message);
  return out;
}

std::vector<BenchCase> FlashDecode::bench_cases() {
  // Every slot at full length; bytes: K and V read once (q and out are noise beside them).
  auto full_lengths = [](std::uint32_t positions) {
    return [positions](HostTensors& t) {
      for (auto& len : t.u32["seq_lens"])
        len = positions;
    };
  };
  auto kv_bytes = [](double slots, double positions, double elem_bytes) {
    return 2.0 * elem_bytes * slots * 2 * positions * 128;
  };
  auto flops = [](double slots, double positions) { return 4.0 * slots * 12 * positions * 128; };
  return {
      {.name = "flash_decode_fused_4x12_2x2048",
       .config = "qwen15b_coder",
       .sets = {"batch_size=4", "max_seq_len=2048"},
       .shape = "4 slots x 12/2 heads x 2048 positions x head_dim 128, f32 KV, one launch",
       .target = BenchTarget{.max_us = 10, .qualifier = "(two launches: 14.3 us)"},
       .bytes = kv_bytes(4, 2048, 4),
       .flops = flops(4, 2048),
       .adjust_inputs = full_lengths(2048)},
      {.name = "flash_decode_fused_64x12_2x4096",
       .config = "qwen15b_coder",
       .sets = {"batch_size=64", "max_seq_len=4096"},
       .shape = "64 slots x 12/2 heads x 4096 positions x head_dim 128, f32 KV, one launch",
       .target = BenchTarget{.min_pct_of_copy = 100.0 / 1.3,
                             .qualifier = "(within 1.3 x the K/V read floor)"},
       .bytes = kv_bytes(64, 4096, 4),
       .flops = flops(64, 4096),
       .adjust_inputs = full_lengths(4096)},
      {.name = "flash_decode_fused_bf16_4x12_2x2048",
       .config = "qwen15b_coder_bf16",
       .sets = {"batch_size=4", "max_seq_len=2048"},
       .shape = "4 slots x 12/2 heads x 2048 positions x head_dim 128, bf16 KV, one launch",
       .target = BenchTarget{.max_us = 5.5, .qualifier = "(PyTorch SDPA f16: 11.9 us)"},
       .bytes = kv_bytes(4, 2048, 2),
       .flops = flops(4, 2048),
       .adjust_inputs = full_lengths(2048)},
      {.name = "flash_decode_fused_bf16_64x12_2x4096",
       .config = "qwen15b_coder_bf16",
       .sets = {"batch_size=64", "max_seq_len=4096"},
       .shape = "64 slots x 12/2 heads x 4096 positions x head_dim 128, bf16 KV, one launch",
       .target = BenchTarget{.min_pct_of_copy = 100.0 / 1.3,
                             .qualifier = "(within 1.3 x the K/V read floor)"},
       .bytes = kv_bytes(64, 4096, 2),
       .flops = flops(64, 4096),
       .adjust_inputs = full_lengths(4096)},
  };
}

} // namespace ptxkit::kernels
