// fused_residual_rmsnorm_reference.cpp: the fused residual add + RMSNorm's CPU reference, launch
// contract, inputs, reference configs and bench case.
//
// The sum is formed in f32 (it is an output: the kernel stores exactly x + residual rounded to
// f32), then the sum of squares of that f32 sum is accumulated in double.
#include "common/row_block.h"
#include "error_p.h"
#include "fused_residual_rmsnorm.h"
#include "ptxkit/kernels/field.h"

#include <cmath>

namespace ptxkit::kernels {

std::vector<NamedConfig<FusedResidualRmsNormConfig>> FusedResidualRmsNorm::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5-0.5B: hidden 896, rms eps 1e-6",
       Config{.hidden = 896, .eps = 1e-6f, .rows = 4}},
      {"llama", "Llama: hidden 4096, rms eps 1e-5",
       Config{.hidden = 4096, .eps = 1e-5f, .rows = 4}},
  };
}

std::vector<BenchCase> FusedResidualRmsNorm::bench_cases() {
  return {{.name = "fused_residual_rmsnorm_65536x896",
           .config = "qwen05b",
           .sets = {"rows=65536"},
           .shape = "65536 x 896 f32 (x, residual in; sum, out written)",
           .target = BenchTarget{.min_pct_of_copy = 80}}};
}

ptxkit::Expected<void> FusedResidualRmsNorm::validate(const Config& c) {
  if (!(c.eps > 0.0f))
    return fail("field 'eps' = " + number_text(c.eps) +
                " must be > 0 (it guards the reciprocal square root of an all-zero row)");
  return {};
}

LaunchDims FusedResidualRmsNorm::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.rows;
  d.block[0] = row_block::threads_for(c.hidden / 4);
  d.dynamic_smem_bytes = 0; // the warp partial sums live in static shared memory
  return d;
}

std::vector<ParamSpec> FusedResidualRmsNorm::params(const Config& c) {
  std::size_t n = std::size_t{c.rows} * c.hidden;
  return {
      {.name = "input", .kind = ParamKind::kInput, .buffer = "x", .elems = n},
      {.name = "residual", .kind = ParamKind::kInput, .buffer = "residual", .elems = n},
      {.name = "gamma", .kind = ParamKind::kInput, .buffer = "gamma", .elems = c.hidden},
      {.name = "sum", .kind = ParamKind::kOutput, .buffer = "sum", .elems = n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elems = n},
  };
}

HostTensors FusedResidualRmsNorm::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  const std::size_t n = std::size_t{c.rows} * c.hidden;
  t.f32["x"] = rng.uniform_vector(n, -2.0f, 2.0f);
  t.f32["residual"] = rng.uniform_vector(n, -2.0f, 2.0f);
  t.f32["gamma"] = rng.uniform_vector(c.hidden, 0.5f, 1.5f);
  return t;
}

FusedResidualRmsNormOutputs fused_residual_rmsnorm_reference(const std::vector<float>& x,
                                                             const std::vector<float>& residual,
                                                             const std::vector<float>& gamma,
                                                             std::uint32_t rows,
                                                             std::uint32_t hidden, float eps) {
  FusedResidualRmsNormOutputs o;
  o.sum.resize(std::size_t{rows} * hidden);
  o.out.resize(o.sum.size());
  for (std::size_t i = 0; i < o.sum.size(); ++i)
    o.sum[i] = x[i] + residual[i];
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = o.sum.data() + r * hidden;
    double sumsq = 0.0;
    for (std::size_t i = 0; i < hidden; ++i)
      sumsq += double{row[i]} * double{row[i]};
    const double inv_rms = 1.0 / std::sqrt(sumsq / hidden + double{eps});
    for (std::size_t i = 0; i < hidden; ++i)
      o.out[r * hidden + i] = static_cast<float>(double{row[i]} * inv_rms * double{gamma[i]});
  }
  return o;
}

ptxkit::Expected<HostTensors> FusedResidualRmsNorm::reference(const Config& c,
                                                              const HostTensors& in) {
  auto x = in.f32.find("x");
  auto r = in.f32.find("residual");
  auto g = in.f32.find("gamma");
  if (x == in.f32.end() || r == in.f32.end() || g == in.f32.end())
    return fail("fused_residual_rmsnorm reference: inputs 'x', 'residual' and 'gamma' are "
                "required");
  const std::size_t n = std::size_t{c.rows} * c.hidden;
  if (x->second.size() != n || r->second.size() != n || g->second.size() != c.hidden)
    return fail("fused_residual_rmsnorm reference: x has " + std::to_string(x->second.size()) +
                " elements, residual " + std::to_string(r->second.size()) + ", gamma " +
                std::to_string(g->second.size()) + "; expected rows*hidden = " + std::to_string(n) +
                " and hidden = " + std::to_string(c.hidden));
  auto o =
      fused_residual_rmsnorm_reference(x->second, r->second, g->second, c.rows, c.hidden, c.eps);
  HostTensors out;
  out.f32["sum"] = std::move(o.sum);
  out.f32["out"] = std::move(o.out);
  return out;
}

} // namespace ptxkit::kernels
