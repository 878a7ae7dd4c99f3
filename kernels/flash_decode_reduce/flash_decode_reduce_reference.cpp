// flash_decode_reduce_reference.cpp: the combine pass's CPU reference, launch contract, inputs and
// reference configs.
//
// The reference rescales in double from the definition (M first, then 2^(m_i - M)); the tests
// feed it flash_decode_chunk's reference partials and hold the result against one-pass attention.
#include "error_p.h"
#include "flash_decode_reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptxkit::kernels {

std::vector<NamedConfig<FlashDecodeReduceConfig>> FlashDecodeReduce::reference_configs() {
  return {
      {"qwen15b_coder",
       "Qwen2.5-Coder-1.5B: head_dim 128, 12 heads, 2048 context, 4 slots, chunks of 64",
       Config{.head_dim = 128,
              .num_heads = 12,
              .max_seq_len = 2048,
              .chunk_size = 64,
              .batch_size = 4}},
      {"qwen05b", "Qwen2.5-0.5B: head_dim 64, 14 heads, 2048 context, 4 slots, chunks of 64",
       Config{.head_dim = 64,
              .num_heads = 14,
              .max_seq_len = 2048,
              .chunk_size = 64,
              .batch_size = 4}},
  };
}

ptxkit::Expected<void> FlashDecodeReduce::validate(const Config& c) {
  if (c.head_dim != 32 && c.head_dim != 64 && c.head_dim != 128)
    return fail("field 'head_dim' = " + std::to_string(c.head_dim) +
                " must be 32, 64 or 128 (partial rows are read as head_dim/4 float4s)");
  if (c.num_chunks() > kMaxChunks)
    return fail("num_chunks = ceil(max_seq_len / chunk_size) = " + std::to_string(c.num_chunks()) +
                " exceeds " + std::to_string(kMaxChunks) +
                " (the chunk weights are held in shared memory): use a larger chunk_size");
  std::uint64_t parts = std::uint64_t{c.batch_size} * c.num_heads * c.num_chunks() * c.head_dim;
  if (parts >= (std::uint64_t{1} << 31))
    return fail("batch_size * num_heads * num_chunks * head_dim = " + std::to_string(parts) +
                " must be < 2^31 (element offsets into partial_out are 32-bit)");
  return {};
}

LaunchDims FlashDecodeReduce::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.num_heads;
  d.grid[1] = c.batch_size;
  d.block[0] = kThreads;
  d.dynamic_smem_bytes = 0; // weights and partial sums live in static shared memory
  return d;
}

std::vector<ParamSpec> FlashDecodeReduce::params(const Config& c) {
  std::size_t rows = std::size_t{c.batch_size} * c.num_heads * c.num_chunks();
  return {
      {.name = "partial_max", .kind = ParamKind::kInput, .buffer = "partial_max", .elems = rows},
      {.name = "partial_sum", .kind = ParamKind::kInput, .buffer = "partial_sum", .elems = rows},
      {.name = "partial_out",
       .kind = ParamKind::kInput,
       .buffer = "partial_out",
       .elems = rows * c.head_dim},
      {.name = "out",
       .kind = ParamKind::kOutput,
       .buffer = "out",
       .elems = std::size_t{c.batch_size} * c.num_heads * c.head_dim},
      {.name = "seq_lens",
       .kind = ParamKind::kInput,
       .buffer = "seq_lens",
       .elem = ElemType::kU32,
       .elems = c.batch_size},
  };
}

HostTensors FlashDecodeReduce::make_inputs(const Config& c, std::uint64_t seed) {
  // Partials shaped like the chunk pass's: chunks that hold positions get a max in [-8, 8), a
  // sum in [1, chunk_size] and outputs of that magnitude; later chunks the empty state.
  InputRng rng(seed);
  HostTensors t;
  const std::size_t nc = c.num_chunks(), hd = c.head_dim;
  const std::size_t rows = std::size_t{c.batch_size} * c.num_heads * nc;
  auto& lens = t.u32["seq_lens"];
  for (std::uint32_t s = 0; s < c.batch_size; ++s)
    lens.push_back(1 + static_cast<std::uint32_t>(rng.next_u64() % c.max_seq_len));
  auto& pm = t.f32["partial_max"];
  auto& ps = t.f32["partial_sum"];
  auto& po = t.f32["partial_out"];
  pm.assign(rows, -std::numeric_limits<float>::infinity());
  ps.assign(rows, 0.0f);
  po.assign(rows * hd, 0.0f);
  for (std::size_t s = 0; s < c.batch_size; ++s) {
    const std::size_t n = (lens[s] + c.chunk_size - 1) / c.chunk_size;
    for (std::size_t h = 0; h < c.num_heads; ++h)
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t r = (s * c.num_heads + h) * nc + i;
        pm[r] = rng.uniform(-8.0f, 8.0f);
        ps[r] = rng.uniform(1.0f, static_cast<float>(c.chunk_size));
        for (std::size_t d = 0; d < hd; ++d)
          po[r * hd + d] = rng.uniform(-1.0f, 1.0f) * ps[r];
      }
  }
  return t;
}

std::vector<float> flash_decode_reduce_reference(const FlashDecodeReduceConfig& c,
                                                 const std::vector<float>& partial_max,
                                                 const std::vector<float>& partial_sum,
                                                 const std::vector<float>& partial_out,
                                                 const std::vector<std::uint32_t>& seq_lens) {
  const std::size_t hd = c.head_dim, nc = c.num_chunks();
  std::vector<float> out(std::size_t{c.batch_size} * c.num_heads * hd, 0.0f);
  std::vector<double> acc(hd);
  for (std::size_t s = 0; s < c.batch_size; ++s) {
    const std::size_t len = std::min<std::size_t>(seq_lens[s], c.max_seq_len);
    const std::size_t n = (len + c.chunk_size - 1) / c.chunk_size;
    if (n == 0) continue;
    for (std::size_t h = 0; h < c.num_heads; ++h) {
      const std::size_t row0 = (s * c.num_heads + h) * nc;
      double big = -std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < n; ++i)
        big = std::max(big, double{partial_max[row0 + i]});
      double total = 0.0;
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        const double w = std::exp2(double{partial_max[row0 + i]} - big);
        total += w * double{partial_sum[row0 + i]};
        for (std::size_t d = 0; d < hd; ++d)
          acc[d] += w * double{partial_out[(row0 + i) * hd + d]};
      }
      for (std::size_t d = 0; d < hd; ++d)
        out[(s * c.num_heads + h) * hd + d] = static_cast<float>(acc[d] / total);
    }
  }
  return out;
}

ptxkit::Expected<HostTensors> FlashDecodeReduce::reference(const Config& c, const HostTensors& in) {
  auto pm = in.f32.find("partial_max");
  auto ps = in.f32.find("partial_sum");
  auto po = in.f32.find("partial_out");
  auto lens = in.u32.find("seq_lens");
  if (pm == in.f32.end() || ps == in.f32.end() || po == in.f32.end() || lens == in.u32.end())
    return fail("flash_decode_reduce reference: inputs partial_max, partial_sum, partial_out "
                "(f32) and seq_lens (u32) are required");
  const std::size_t rows = std::size_t{c.batch_size} * c.num_heads * c.num_chunks();
  if (pm->second.size() != rows || ps->second.size() != rows ||
      po->second.size() != rows * c.head_dim || lens->second.size() != c.batch_size)
    return fail("flash_decode_reduce reference: buffer sizes do not match the config "
                "(partial_max/partial_sum " +
                std::to_string(rows) + ", partial_out " + std::to_string(rows * c.head_dim) +
                ", seq_lens " + std::to_string(c.batch_size) + " elements expected)");
  for (std::size_t s = 0; s < lens->second.size(); ++s)
    if (lens->second[s] > c.max_seq_len)
      return fail("flash_decode_reduce reference: seq_lens[" + std::to_string(s) +
                  "] = " + std::to_string(lens->second[s]) +
                  " exceeds max_seq_len = " + std::to_string(c.max_seq_len));
  HostTensors out;
  out.f32["out"] =
      flash_decode_reduce_reference(c, pm->second, ps->second, po->second, lens->second);
  return out;
}

} // namespace ptxkit::kernels
