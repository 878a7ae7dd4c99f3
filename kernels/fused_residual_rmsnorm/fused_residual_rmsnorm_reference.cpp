// fused_residual_rmsnorm_reference.cpp: the fused residual add + RMSNorm's CPU reference, launch
// contract, inputs, reference configs and bench case.
//
// The sum is formed in f32 (it is an output: the kernel stores exactly x + residual rounded to
// f32, then to the dtype), then the sum of squares of that f32 sum is accumulated in double.
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
      {"qwen05b_bf16", "Qwen2.5-0.5B in bf16: hidden 896, rms eps 1e-6",
       Config{.hidden = 896, .eps = 1e-6f, .rows = 4, .dtype = DType::kBF16}},
      {"llama_f16", "Llama in f16: hidden 4096, rms eps 1e-5",
       Config{.hidden = 4096, .eps = 1e-5f, .rows = 4, .dtype = DType::kF16}},
  };
}

std::vector<BenchCase> FusedResidualRmsNorm::bench_cases() {
  return {{.name = "fused_residual_rmsnorm_65536x896",
           .config = "qwen05b",
           .sets = {"rows=65536"},
           .shape = "65536 x 896 f32 (x, residual in; sum, out written)",
           .target = BenchTarget{.min_pct_of_copy = 80}},
          {.name = "fused_residual_rmsnorm_65536x896_bf16",
           .config = "qwen05b_bf16",
           .sets = {"rows=65536"},
           .shape = "65536 x 896 bf16 (x, residual in; sum, out written)",
           .target = BenchTarget{.min_pct_of_copy = 80}}};
}

Tolerance FusedResidualRmsNorm::tolerance(const Config& c, const HostTensors&) {
  // One rounding of each output to the format: the device's f32 value and the reference may sit
  // on either side of a rounding boundary.
  switch (c.dtype) {
  case DType::kF16:
    return {2e-6, 2e-5 + 2 * unit_roundoff(c.dtype), "as rmsnorm; sum and out rounded once to f16"};
  case DType::kBF16:
    return {2e-6, 2e-5 + 2 * unit_roundoff(c.dtype),
            "as rmsnorm; sum and out rounded once to bf16"};
  case DType::kF32:
    break;
  }
  return {2e-6, 2e-5, "as rmsnorm; `sum` is one f32 add, correctly rounded"};
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
  d.block[0] = row_block::threads_for(chunks(c));
  d.dynamic_smem_bytes = 0; // the warp partial sums live in static shared memory
  return d;
}

std::vector<ParamSpec> FusedResidualRmsNorm::params(const Config& c) {
  std::size_t n = std::size_t{c.rows} * c.hidden;
  const ElemType e = elem_type(c.dtype);
  return {
      {.name = "input", .kind = ParamKind::kInput, .buffer = "x", .elem = e, .elems = n},
      {.name = "residual", .kind = ParamKind::kInput, .buffer = "residual", .elem = e, .elems = n},
      {.name = "gamma", .kind = ParamKind::kInput, .buffer = "gamma", .elem = e, .elems = c.hidden},
      {.name = "sum", .kind = ParamKind::kOutput, .buffer = "sum", .elem = e, .elems = n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elem = e, .elems = n},
  };
}

HostTensors FusedResidualRmsNorm::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  const std::size_t n = std::size_t{c.rows} * c.hidden;
  t.f32["x"] = rng.uniform_vector(n, -2.0f, 2.0f);
  t.f32["residual"] = rng.uniform_vector(n, -2.0f, 2.0f);
  t.f32["gamma"] = rng.uniform_vector(c.hidden, 0.5f, 1.5f);
  for (const char* name : {"x", "residual", "gamma"})
    round_all(c.dtype, t.f32[name]);
  return t;
}

FusedResidualRmsNormOutputs
fused_residual_rmsnorm_reference(const std::vector<float>& x, const std::vector<float>& residual,
                                 const std::vector<float>& gamma, std::uint32_t rows,
                                 std::uint32_t hidden, float eps, DType dtype) {
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
      o.out[r * hidden + i] = round_to(dtype, double{row[i]} * inv_rms * double{gamma[i]});
  }
  round_all(dtype, o.sum); // stored rounded; the normalization above used the f32 sum
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
  auto o = fused_residual_rmsnorm_reference(x->second, r->second, g->second, c.rows, c.hidden,
                                            c.eps, c.dtype);
  HostTensors out;
  out.f32["sum"] = std::move(o.sum);
  out.f32["out"] = std::move(o.out);
  return out;
}

} // namespace ptxkit::kernels
