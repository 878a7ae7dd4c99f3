// rmsnorm_reference.cpp: RMSNorm's CPU reference, launch contract, inputs, reference configs and
// bench case.
//
// The reference accumulates the sum of squares in double, so it is a fixed point the device
// result is compared against, not a second copy of the kernel's float arithmetic.
#include "error_p.h"
#include "ptxkit/kernels/field.h"
#include "rmsnorm.h"

#include <cmath>

namespace ptxkit::kernels {

std::vector<NamedConfig<RmsNormConfig>> RmsNorm::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5-0.5B: hidden 896, rms eps 1e-6",
       RmsNormConfig{.hidden = 896, .eps = 1e-6f, .rows = 4}},
      {"llama", "Llama: hidden 4096, rms eps 1e-5",
       RmsNormConfig{.hidden = 4096, .eps = 1e-5f, .rows = 4}},
      {"qwen05b_bf16", "Qwen2.5-0.5B in bf16: hidden 896, rms eps 1e-6",
       RmsNormConfig{.hidden = 896, .eps = 1e-6f, .rows = 4, .dtype = DType::kBF16}},
      {"llama_f16", "Llama in f16: hidden 4096, rms eps 1e-5",
       RmsNormConfig{.hidden = 4096, .eps = 1e-5f, .rows = 4, .dtype = DType::kF16}},
      {"llama405b_bf16",
       "Llama-3.1-405B in bf16: hidden 16384, rms eps 1e-5 (rows too long for "
       "registers: the looping path)",
       RmsNormConfig{.hidden = 16384, .eps = 1e-5f, .rows = 4, .dtype = DType::kBF16}},
  };
}

std::vector<BenchCase> RmsNorm::bench_cases() {
  return {{.name = "rmsnorm_65536x896",
           .config = "qwen05b",
           .sets = {"rows=65536"},
           .shape = "65536 x 896 f32 (one launch)",
           .target = BenchTarget{.max_us = 125,
                                 .min_pct_of_copy = 90,
                                 .qualifier = "(PyTorch rms_norm 137.6 us)"}},
          {.name = "rmsnorm_65536x896_bf16",
           .config = "qwen05b_bf16",
           .sets = {"rows=65536"},
           .shape = "65536 x 896 bf16 (one launch)",
           .target = BenchTarget{.max_us = 66, .qualifier = "(PyTorch bf16 rms_norm 79 us)"}}};
}

Tolerance RmsNorm::tolerance(const Config& c, const HostTensors&) {
  // One rounding of the output to the format: the f32 result and the reference may sit on either
  // side of a rounding boundary, one unit in the last place apart.
  switch (c.dtype) {
  case DType::kF16:
    return {2e-6, 2e-5 + 2 * unit_roundoff(c.dtype),
            "f32 sum of squares (tree order), rsqrt.approx, output rounded to f16"};
  case DType::kBF16:
    return {2e-6, 2e-5 + 2 * unit_roundoff(c.dtype),
            "f32 sum of squares (tree order), rsqrt.approx, output rounded to bf16"};
  case DType::kF32:
    break;
  }
  return {2e-6, 2e-5, "f32 sum of squares over hidden (tree order) and rsqrt.approx"};
}

ptxkit::Expected<void> RmsNorm::validate(const Config& c) {
  if (!(c.eps > 0.0f))
    return fail("field 'eps' = " + number_text(c.eps) +
                " must be > 0 (it guards the reciprocal square root of an all-zero row)");
  return {};
}

LaunchDims RmsNorm::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.rows;
  d.block[0] = threads_for(c);
  d.dynamic_smem_bytes = 0; // the warp partial sums live in static shared memory
  return d;
}

std::vector<ParamSpec> RmsNorm::params(const Config& c) {
  std::size_t n = std::size_t{c.rows} * c.hidden;
  const ElemType e = elem_type(c.dtype);
  return {
      {.name = "input", .kind = ParamKind::kInput, .buffer = "x", .elem = e, .elems = n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elem = e, .elems = n},
      {.name = "gamma", .kind = ParamKind::kInput, .buffer = "gamma", .elem = e, .elems = c.hidden},
  };
}

HostTensors RmsNorm::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  t.f32["x"] = rng.uniform_vector(std::size_t{c.rows} * c.hidden, -2.0f, 2.0f);
  t.f32["gamma"] = rng.uniform_vector(c.hidden, 0.5f, 1.5f);
  round_all(c.dtype, t.f32["x"]);
  round_all(c.dtype, t.f32["gamma"]);
  return t;
}

std::vector<float> rmsnorm_reference(const std::vector<float>& x, const std::vector<float>& gamma,
                                     std::uint32_t rows, std::uint32_t hidden, float eps,
                                     DType dtype) {
  std::vector<float> out(std::size_t{rows} * hidden);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * hidden;
    double sumsq = 0.0;
    for (std::size_t i = 0; i < hidden; ++i)
      sumsq += double{row[i]} * double{row[i]};
    double inv_rms = 1.0 / std::sqrt(sumsq / hidden + double{eps});
    for (std::size_t i = 0; i < hidden; ++i)
      out[r * hidden + i] = round_to(dtype, double{row[i]} * inv_rms * double{gamma[i]});
  }
  return out;
}

ptxkit::Expected<HostTensors> RmsNorm::reference(const Config& c, const HostTensors& in) {
  auto x = in.f32.find("x");
  auto g = in.f32.find("gamma");
  if (x == in.f32.end() || g == in.f32.end())
    return fail("rmsnorm reference: inputs 'x' and 'gamma' are required");
  if (x->second.size() != std::size_t{c.rows} * c.hidden || g->second.size() != c.hidden)
    return fail("rmsnorm reference: x has " + std::to_string(x->second.size()) +
                " elements and gamma " + std::to_string(g->second.size()) +
                "; expected rows*hidden = " + std::to_string(std::size_t{c.rows} * c.hidden) +
                " and hidden = " + std::to_string(c.hidden));
  HostTensors out;
  out.f32["out"] = rmsnorm_reference(x->second, g->second, c.rows, c.hidden, c.eps, c.dtype);
  return out;
}

} // namespace ptxkit::kernels
