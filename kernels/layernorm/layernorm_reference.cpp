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
  };
}

std::vector<BenchCase> LayerNorm::bench_cases() {
  return {{.name = "layernorm_65536x896",
           .config = "qwen05b",
           .sets = {"rows=65536"},
           .shape = "65536 x 896 f32",
           .target = BenchTarget{.min_pct_of_copy = 80}}};
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
  d.block[0] = row_block::threads_for(c.hidden / 4);
  d.dynamic_smem_bytes = 0; // the warp partial sums live in static shared memory
  return d;
}

std::vector<ParamSpec> LayerNorm::params(const Config& c) {
  std::size_t n = std::size_t{c.rows} * c.hidden;
  return {
      {.name = "input", .kind = ParamKind::kInput, .buffer = "x", .elems = n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elems = n},
      {.name = "gamma", .kind = ParamKind::kInput, .buffer = "gamma", .elems = c.hidden},
      {.name = "beta", .kind = ParamKind::kInput, .buffer = "beta", .elems = c.hidden},
  };
}

HostTensors LayerNorm::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  // An offset mean (around 3) so a kernel that skipped the centering would be far off.
  t.f32["x"] = rng.uniform_vector(std::size_t{c.rows} * c.hidden, 1.0f, 5.0f);
  t.f32["gamma"] = rng.uniform_vector(c.hidden, 0.5f, 1.5f);
  t.f32["beta"] = rng.uniform_vector(c.hidden, -0.5f, 0.5f);
  return t;
}

std::vector<float> layernorm_reference(const std::vector<float>& x, const std::vector<float>& gamma,
                                       const std::vector<float>& beta, std::uint32_t rows,
                                       std::uint32_t hidden, float eps) {
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
          static_cast<float>((row[i] - mean) * rstd * double{gamma[i]} + double{beta[i]});
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
  out.f32["out"] = layernorm_reference(x->second, g->second, bt->second, c.rows, c.hidden, c.eps);
  return out;
}

} // namespace ptxkit::kernels
