// gemv_f32_reference.cpp: gemv_f32's launch contract, inputs, reference, reference configs and
// bench cases.
//
// The reference is the naive double loop (sum over k of w[r, j] * x[j] in double), so it shares
// neither the kernel's lane-strided order nor its f32 rounding. A batch is the same loop once per
// vector, each reading its own x[m] and writing its own y[m].
#include "error_p.h"
#include "gemv_f32.h"

namespace ptxkit::kernels {

std::vector<NamedConfig<GemvF32Config>> GemvF32::reference_configs() {
  return {
      {"qwen05b_o", "Qwen2.5-0.5B attention output projection: 896 x 896",
       GemvF32Config{.n = 896, .k = 896}},
      {"qwen05b_up", "Qwen2.5-0.5B MLP gate/up projection: 4864 x 896",
       GemvF32Config{.n = 4864, .k = 896}},
      {"qwen05b_down", "Qwen2.5-0.5B MLP down projection: 896 x 4864",
       GemvF32Config{.n = 896, .k = 4864}},
      {"llama", "Llama hidden projection: 4096 x 4096", GemvF32Config{.n = 4096, .k = 4096}},
      {"qwen05b_o_b4", "Qwen2.5-0.5B attention output projection, 4 sequences: 896 x 896",
       GemvF32Config{.n = 896, .k = 896, .batch = 4}},
      {"qwen05b_up_b4", "Qwen2.5-0.5B MLP gate/up projection, 4 sequences: 4864 x 896",
       GemvF32Config{.n = 4864, .k = 896, .batch = 4}},
      {"qwen05b_down_b4", "Qwen2.5-0.5B MLP down projection, 4 sequences: 896 x 4864",
       GemvF32Config{.n = 896, .k = 4864, .batch = 4}},
      {"qwen05b_lm_head_b4", "Qwen2.5-0.5B lm_head, 4 sequences: 151936 x 896",
       GemvF32Config{.n = 151936, .k = 896, .batch = 4}},
      {"ragged_b8", "1001 x 899, 8 vectors: scalar loads, a partial block, the most vectors",
       GemvF32Config{.n = 1001, .k = 899, .batch = 8}},
  };
}

std::vector<BenchCase> GemvF32::bench_cases() {
  // Large projections; the bytes are the weights' (x and y are noise beside them). The shapes
  // that fit a decode step are also timed back to back.
  auto gemv = [](std::uint32_t n, std::uint32_t k, bool back_to_back) {
    const std::string rows = std::to_string(n), cols = std::to_string(k);
    return BenchCase{.name = "gemv_f32_" + rows + "x" + cols,
                     .sets = {"n=" + rows, "k=" + cols},
                     .shape = "W " + rows + " x " + cols + " f32",
                     .target =
                         BenchTarget{.min_pct_of_copy = 80, .qualifier = "on the weight bytes"},
                     .bytes = 4.0 * n * k,
                     .flops = 2.0 * n * k,
                     .back_to_back = back_to_back};
  };
  // Batched: the same weight bytes feed 4 vectors (4x the flops); no target, the figure to
  // compare is the time against the batch-1 case of the same shape.
  auto gemv_b4 = [](std::uint32_t n, std::uint32_t k) {
    const std::string rows = std::to_string(n), cols = std::to_string(k);
    return BenchCase{.name = "gemv_f32_" + rows + "x" + cols + "_b4",
                     .sets = {"n=" + rows, "k=" + cols, "batch=4"},
                     .shape = "W " + rows + " x " + cols + " f32 read once for 4 vectors",
                     .bytes = 4.0 * n * k,
                     .flops = 2.0 * 4 * n * k,
                     .back_to_back = false};
  };
  return {gemv(4096, 4096, true),   gemv(11008, 4096, true), gemv(14336, 4096, false),
          gemv(151936, 896, false), gemv_b4(4096, 4096),     gemv_b4(151936, 896)};
}

ptxkit::Expected<void> GemvF32::validate(const Config&) {
  return {};
}

LaunchDims GemvF32::launch(const Config& c) {
  LaunchDims d;
  const std::uint32_t rows_per_block = kWarps * rows_per_warp(c.batch);
  d.grid[0] = (c.n + rows_per_block - 1) / rows_per_block;
  d.block[0] = kThreads;
  return d;
}

std::vector<ParamSpec> GemvF32::params(const Config& c) {
  return {
      {.name = "w", .kind = ParamKind::kInput, .buffer = "w", .elems = std::size_t{c.n} * c.k},
      {.name = "x", .kind = ParamKind::kInput, .buffer = "x", .elems = std::size_t{c.batch} * c.k},
      {.name = "y", .kind = ParamKind::kOutput, .buffer = "y", .elems = std::size_t{c.batch} * c.n},
  };
}

HostTensors GemvF32::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  t.f32["w"] = rng.uniform_vector(std::size_t{c.n} * c.k, -1.0f, 1.0f);
  t.f32["x"] = rng.uniform_vector(std::size_t{c.batch} * c.k, -1.0f, 1.0f);
  return t;
}

std::vector<float> gemv_reference(const std::vector<float>& w, const std::vector<float>& x,
                                  std::uint32_t n, std::uint32_t k, std::uint32_t batch) {
  std::vector<float> y(std::size_t{batch} * n);
  for (std::size_t m = 0; m < batch; ++m)
    for (std::size_t r = 0; r < n; ++r) {
      double sum = 0.0;
      for (std::size_t j = 0; j < k; ++j)
        sum += double{w[r * k + j]} * double{x[m * k + j]};
      y[m * n + r] = static_cast<float>(sum);
    }
  return y;
}

ptxkit::Expected<HostTensors> GemvF32::reference(const Config& c, const HostTensors& in) {
  auto w = in.f32.find("w");
  auto x = in.f32.find("x");
  if (w == in.f32.end() || x == in.f32.end())
    return fail("gemv_f32 reference: inputs 'w' and 'x' are required");
  if (w->second.size() != std::size_t{c.n} * c.k || x->second.size() != std::size_t{c.batch} * c.k)
    return fail("gemv_f32 reference: w has " + std::to_string(w->second.size()) +
                " elements and x " + std::to_string(x->second.size()) +
                "; expected n * k = " + std::to_string(std::size_t{c.n} * c.k) +
                " and batch * k = " + std::to_string(std::size_t{c.batch} * c.k));
  HostTensors out;
  out.f32["y"] = gemv_reference(w->second, x->second, c.n, c.k, c.batch);
  return out;
}

} // namespace ptxkit::kernels
