// gemv_half_reference.cpp: gemv_half's launch contract, inputs, reference, reference configs and
// bench cases.
//
// The reference is the naive double loop (as gemv_f32's) over the exactly representable half
// inputs, each sum rounded to y_dtype (round_to: through f32, as the kernel rounds its f32 sum):
// it shares neither the kernel's lane-strided order nor its f32 arithmetic. A batch is the same
// loop once per vector, each reading its own x[m] and writing its own y[m].
#include "error_p.h"
#include "gemv_half.h"

#include <bit>
#include <string>

namespace ptxkit::kernels {

std::vector<NamedConfig<GemvHalfConfig>> GemvHalf::reference_configs() {
  auto bf16 = [](std::uint32_t n, std::uint32_t k) { return GemvHalfConfig{.n = n, .k = k}; };
  auto bf16_b4 = [](std::uint32_t n, std::uint32_t k) {
    return GemvHalfConfig{.n = n, .k = k, .batch = 4};
  };
  return {
      {"qwen05b_lm_head", "Qwen2.5-0.5B lm_head: 151936 x 896 bf16 (2 rows per warp)",
       bf16(151936, 896)},
      {"llama_q", "Llama attention q projection: 4096 x 4096 bf16", bf16(4096, 4096)},
      {"llama_ffn", "Llama MLP gate/up projection: 11008 x 4096 bf16", bf16(11008, 4096)},
      {"qwen05b_up_f16", "Qwen2.5-0.5B MLP gate/up projection: 4864 x 896, all f16",
       GemvHalfConfig{.n = 4864,
                      .k = 896,
                      .weight_dtype = DType::kF16,
                      .x_dtype = DType::kF16,
                      .y_dtype = DType::kF16}},
      {"qwen05b_down_f32_io", "Qwen2.5-0.5B MLP down projection: 896 x 4864 bf16 W, f32 x and y",
       GemvHalfConfig{.n = 896, .k = 4864, .x_dtype = DType::kF32, .y_dtype = DType::kF32}},
      {"ragged", "1001 x 900 f16 W, bf16 x, f32 y: 8-byte units, a partial step, a partial warp",
       GemvHalfConfig{.n = 1001,
                      .k = 900,
                      .weight_dtype = DType::kF16,
                      .x_dtype = DType::kBF16,
                      .y_dtype = DType::kF32}},
      {"qwen05b_o_b4", "Qwen2.5-0.5B attention output projection, 4 sequences: 896 x 896 bf16",
       bf16_b4(896, 896)},
      {"qwen05b_up_b4", "Qwen2.5-0.5B MLP gate/up projection, 4 sequences: 4864 x 896 bf16",
       bf16_b4(4864, 896)},
      {"qwen05b_down_b4", "Qwen2.5-0.5B MLP down projection, 4 sequences: 896 x 4864 bf16",
       bf16_b4(896, 4864)},
      {"qwen05b_lm_head_b4", "Qwen2.5-0.5B lm_head, 4 sequences: 151936 x 896 bf16",
       bf16_b4(151936, 896)},
      {"ragged_b8_f32_io",
       "1001 x 900 f16 W, 8 vectors of f32 x and y: 8-byte units, a partial step, a partial warp",
       GemvHalfConfig{.n = 1001,
                      .k = 900,
                      .weight_dtype = DType::kF16,
                      .x_dtype = DType::kF32,
                      .y_dtype = DType::kF32,
                      .batch = 8}},
      {"ragged_b3", "1001 x 901 bf16, 3 vectors: single halves, 4 rows per warp",
       GemvHalfConfig{.n = 1001, .k = 901, .batch = 3, .rows_per_warp_override = 4}},
  };
}

std::vector<BenchCase> GemvHalf::bench_cases() {
  // The bytes are the weights' (x and y are noise beside them); the bound is cuBLAS's torch.mv
  // time on an H200 with a cold L2, divided by 1.1.
  auto gemv = [](std::uint32_t n, std::uint32_t k, double max_us, std::string_view qualifier) {
    const std::string rows = std::to_string(n), cols = std::to_string(k);
    return BenchCase{.name = "gemv_half_" + rows + "x" + cols + "_bf16",
                     .sets = {"n=" + rows, "k=" + cols},
                     .shape = "W " + rows + " x " + cols + " bf16, x and y bf16",
                     .target = BenchTarget{.max_us = max_us, .qualifier = qualifier},
                     .bytes = 2.0 * n * k,
                     .flops = 2.0 * n * k,
                     .back_to_back = false};
  };
  // Batched: the same weight bytes feed 4 vectors (4x the flops); no target, the figure to
  // compare is the time against the batch-1 case of the same shape.
  auto gemv_b4 = [](std::uint32_t n, std::uint32_t k) {
    const std::string rows = std::to_string(n), cols = std::to_string(k);
    return BenchCase{.name = "gemv_half_" + rows + "x" + cols + "_bf16_b4",
                     .sets = {"n=" + rows, "k=" + cols, "batch=4"},
                     .shape =
                         "W " + rows + " x " + cols + " bf16 read once for 4 vectors, x and y bf16",
                     .bytes = 2.0 * n * k,
                     .flops = 2.0 * 4 * n * k,
                     .back_to_back = false};
  };
  return {gemv(4096, 4096, 12.9, "1.1x torch.mv bf16's 14.2 us"),
          gemv(11008, 4096, 24.7, "1.1x torch.mv bf16's 27.2 us"),
          gemv(151936, 896, 62.2, "1.1x torch.mv bf16's 68.4 us"), gemv_b4(4096, 4096),
          gemv_b4(151936, 896)};
}

ptxkit::Expected<void> GemvHalf::validate(const Config& c) {
  if (c.weight_dtype == DType::kF32)
    return fail("weight_dtype = f32 is not a half format (f16 or bf16); f32 weights: gemv_f32");
  if (c.rows_per_warp_override == 3)
    return fail("rows_per_warp = 3 is not 0 (automatic), 1, 2 or 4");
  if (c.unroll_override != 0 && !std::has_single_bit(c.unroll_override))
    return fail("unroll = " + std::to_string(c.unroll_override) +
                " is not 0 (automatic), 1, 2, 4 or 8");
  return {};
}

LaunchDims GemvHalf::launch(const Config& c) {
  const std::uint32_t rows_per_block = kWarps * c.rows_per_warp();
  LaunchDims d;
  d.grid[0] = (c.n + rows_per_block - 1) / rows_per_block;
  d.block[0] = kThreads;
  return d;
}

std::vector<ParamSpec> GemvHalf::params(const Config& c) {
  return {
      {.name = "w",
       .kind = ParamKind::kInput,
       .buffer = "w",
       .elem = elem_type(c.weight_dtype),
       .elems = std::size_t{c.n} * c.k},
      {.name = "x",
       .kind = ParamKind::kInput,
       .buffer = "x",
       .elem = elem_type(c.x_dtype),
       .elems = std::size_t{c.batch} * c.k},
      {.name = "y",
       .kind = ParamKind::kOutput,
       .buffer = "y",
       .elem = elem_type(c.y_dtype),
       .elems = std::size_t{c.batch} * c.n},
  };
}

HostTensors GemvHalf::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  auto& w = t.f32["w"] = rng.uniform_vector(std::size_t{c.n} * c.k, -1.0f, 1.0f);
  auto& x = t.f32["x"] = rng.uniform_vector(std::size_t{c.batch} * c.k, -1.0f, 1.0f);
  round_all(c.weight_dtype, w);
  round_all(c.x_dtype, x);
  return t;
}

std::vector<float> gemv_half_reference(const GemvHalfConfig& c, const std::vector<float>& w,
                                       const std::vector<float>& x) {
  std::vector<float> y(std::size_t{c.batch} * c.n);
  for (std::size_t m = 0; m < c.batch; ++m)
    for (std::size_t r = 0; r < c.n; ++r) {
      double sum = 0.0;
      for (std::size_t j = 0; j < c.k; ++j)
        sum += double{w[r * c.k + j]} * double{x[m * c.k + j]};
      y[m * c.n + r] = round_to(c.y_dtype, sum); // through f32, as the kernel rounds its f32 sum
    }
  return y;
}

ptxkit::Expected<HostTensors> GemvHalf::reference(const Config& c, const HostTensors& in) {
  auto w = in.f32.find("w");
  auto x = in.f32.find("x");
  if (w == in.f32.end() || x == in.f32.end())
    return fail("gemv_half reference: inputs 'w' and 'x' are required");
  if (w->second.size() != std::size_t{c.n} * c.k || x->second.size() != std::size_t{c.batch} * c.k)
    return fail("gemv_half reference: w has " + std::to_string(w->second.size()) +
                " elements and x " + std::to_string(x->second.size()) +
                "; expected n * k = " + std::to_string(std::size_t{c.n} * c.k) +
                " and batch * k = " + std::to_string(std::size_t{c.batch} * c.k));
  HostTensors out;
  out.f32["y"] = gemv_half_reference(c, w->second, x->second);
  return out;
}

} // namespace ptxkit::kernels
