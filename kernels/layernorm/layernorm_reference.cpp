// layernorm_reference.cpp: LayerNorm's CPU reference, launch contract, inputs, reference configs
// and bench case.
//
// The reference computes the mean and the (two-pass, population) variance in double, so it is a
// fixed point the device result is compared against, not a copy of the kernel's float arithmetic.
#include "common/row_block.h"
#include "error_p.h"
#include "layernorm.h"
#include "ptxkit/kernels/field.h"

#include <cmath>

namespace ptxkit::kernels {

std::vector<NamedConfig<LayerNormConfig>> LayerNorm::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5-0.5B shape: hidden 896, eps 1e-6",
       LayerNormConfig{.hidden = 896, .eps = 1e-6f, .rows = 4}},
      {"llama", "Llama shape: hidden 4096, eps 1e-5",
       LayerNormConfig{.hidden = 4096, .eps = 1e-5f, .rows = 4}},
      {"qwen05b_bf16", "Qwen2.5-0.5B shape in bf16: hidden 896, eps 1e-6",
       LayerNormConfig{.hidden = 896, .eps = 1e-6f, .rows = 4, .dtype = DType::kBF16}},
      {"llama_f16", "Llama shape in f16: hidden 4096, eps 1e-5",
       LayerNormConfig{.hidden = 4096, .eps = 1e-5f, .rows = 4, .dtype = DType::kF16}},
  };
}

std::vector<BenchCase> LayerNorm::bench_cases() {
  return {{.name = "layernorm_65536x896",
           .config = "qwen05b",
           .sets = {"rows=65536"},
           .shape = "65536 x 896 f32",
           .target = BenchTarget{.min_pct_of_copy = 80}}};
}

Tolerance LayerNorm::tolerance(const Config& c, const HostTensors&) {
  // One rounding of the output to the format: the device's f32 value and the reference may sit
  // on either side of a rounding boundary.
  switch (c.dtype) {
  case DType::kF16:
    return {2e-6, 2e-5 + 2 * unit_roundoff(c.dtype),
            "f32 mean and variance (two tree reductions), rsqrt.approx, out rounded to f16"};
  case DType::kBF16:
    return {2e-6, 2e-5 + 2 * unit_roundoff(c.dtype),
            "f32 mean and variance (two tree reductions), rsqrt.approx, out rounded to bf16"};
  case DType::kF32:
    break;
  }
  return {2e-6, 2e-5, "f32 mean and variance (two tree reductions), rsqrt.approx"};
}

ptxkit::Expected<void> LayerNorm::validate(const Config& c) {
  if (!(c.eps > 0.0f))
    return fail("field 'eps' = " + number_text(c.eps) +
                " must be > 0 (it guards the reciprocal square root of a constant row)");
  return {};
}

LaunchDims LayerNorm::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.rows;
  d.block[0] = row_block::threads_for(chunks(c));
  d.dynamic_smem_bytes = 0; // the warp partial sums live in static shared memory
  return d;
}

std::vector<ParamSpec> LayerNorm::params(const Config& c) {
  std::size_t n = std::size_t{c.rows} * c.hidden;
  const ElemType e = elem_type(c.dtype);
  return {
      {.name = "input", .kind = ParamKind::kInput, .buffer = "x", .elem = e, .elems = n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elem = e, .elems = n},
      {.name = "gamma", .kind = ParamKind::kInput, .buffer = "gamma", .elem = e, .elems = c.hidden},
      {.name = "beta", .kind = ParamKind::kInput, .buffer = "beta", .elem = e, .elems = c.hidden},
  };
}

HostTensors LayerNorm::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  // An offset mean (around 3) so a kernel that skipped the centering would be far off.
  t.f32["x"] = rng.uniform_vector(std::size_t{c.rows} * c.hidden, 1.0f, 5.0f);
  t.f32["gamma"] = rng.uniform_vector(c.hidden, 0.5f, 1.5f);
  t.f32["beta"] = rng.uniform_vector(c.hidden, -0.5f, 0.5f);
  for (const char* name : {"x", "gamma", "beta"})
    round_all(c.dtype, t.f32[name]);
  return t;
}

std::vector<float> layernorm_reference(const std::vector<float>& x, const std::vector<float>& gamma,
                                       const std::vector<float>& beta, std::uint32_t rows,
                                       std::uint32_t hidden, float eps, DType dtype) {
  std::vector<float> out(std::size_t{rows} * hidden);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * hidden;
    double sum = 0.0;
    for (std::size_t i = 0; i < hidden; ++i)
      sum += row[i];
    const double mean = sum / hidden;
    double sq = 0.0;
    for (std::size_t i = 0; i < hidden; ++i)
      sq += (row[i] - mean) * (row[i] - mean);
    const double rstd = 1.0 / std::sqrt(sq / hidden + double{eps});
    for (std::size_t i = 0; i < hidden; ++i)
      out[r * hidden + i] =
          round_to(dtype, (row[i] - mean) * rstd * double{gamma[i]} + double{beta[i]});
  }
  return out;
}

ptxkit::Expected<HostTensors> LayerNorm::reference(const Config& c, const HostTensors& in) {
  auto x = in.f32.find("x");
  auto g = in.f32.find("gamma");
  auto bt = in.f32.find("beta");
  if (x == in.f32.end() || g == in.f32.end() || bt == in.f32.end())
    return fail("layernorm reference: inputs 'x', 'gamma' and 'beta' are required");
  if (x->second.size() != std::size_t{c.rows} * c.hidden || g->second.size() != c.hidden ||
      bt->second.size() != c.hidden)
    return fail("layernorm reference: x has " + std::to_string(x->second.size()) +
                " elements, gamma " + std::to_string(g->second.size()) + ", beta " +
                std::to_string(bt->second.size()) +
                "; expected rows*hidden = " + std::to_string(std::size_t{c.rows} * c.hidden) +
                " and hidden = " + std::to_string(c.hidden));
  HostTensors out;
  out.f32["out"] =
      layernorm_reference(x->second, g->second, bt->second, c.rows, c.hidden, c.eps, c.dtype);
  return out;
}

} // namespace ptxkit::kernels
