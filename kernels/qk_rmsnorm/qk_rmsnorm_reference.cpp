// qk_rmsnorm_reference.cpp: per-head RMSNorm's CPU reference, launch contract, inputs and
// reference configs and bench case.
//
// Each (token, head) row is normalized on its own with the sum of squares in double; gamma is
// indexed by the position inside the head, never by the head.
#include "error_p.h"
#include "ptxkit/kernels/field.h"
#include "qk_rmsnorm.h"

#include <cmath>

namespace ptxkit::kernels {

std::vector<NamedConfig<QkRmsNormConfig>> QkRmsNorm::reference_configs() {
  return {
      {"qwen05b_q", "Qwen2.5-0.5B Q: 14 heads of head_dim 64, eps 1e-6",
       Config{.head_dim = 64, .num_heads = 14, .eps = 1e-6f, .tokens = 4}},
      {"qwen05b_k", "Qwen2.5-0.5B K: 2 KV heads of head_dim 64, eps 1e-6",
       Config{.head_dim = 64, .num_heads = 2, .eps = 1e-6f, .tokens = 4}},
      {"llama_q", "Llama Q: 32 heads of head_dim 128, eps 1e-5",
       Config{.head_dim = 128, .num_heads = 32, .eps = 1e-5f, .tokens = 4}},
      {"qwen05b_q_bf16", "Qwen2.5-0.5B Q in bf16: 14 heads of head_dim 64, eps 1e-6",
       Config{.head_dim = 64, .num_heads = 14, .eps = 1e-6f, .tokens = 4, .dtype = DType::kBF16}},
      {"qwen05b_k_bf16", "Qwen2.5-0.5B K in bf16: 2 KV heads of head_dim 64, eps 1e-6",
       Config{.head_dim = 64, .num_heads = 2, .eps = 1e-6f, .tokens = 4, .dtype = DType::kBF16}},
      {"llama_q_f16", "Llama Q in f16: 32 heads of head_dim 128, eps 1e-5",
       Config{.head_dim = 128, .num_heads = 32, .eps = 1e-5f, .tokens = 4, .dtype = DType::kF16}},
  };
}

std::vector<BenchCase> QkRmsNorm::bench_cases() {
  return {{.name = "qk_rmsnorm_65536x14x64",
           .config = "qwen05b_q",
           .sets = {"tokens=65536"},
           .shape = "65536 tokens x 14 heads x 64",
           .target = BenchTarget{.min_pct_of_copy = 80}}};
}

Tolerance QkRmsNorm::tolerance(const Config& c, const HostTensors&) {
  // One rounding of the output to the format: the device's f32 value and the reference may sit
  // on either side of a rounding boundary.
  switch (c.dtype) {
  case DType::kF16:
    return {2e-6, 2e-5 + 2 * unit_roundoff(c.dtype),
            "as rmsnorm over head_dim; out rounded to f16"};
  case DType::kBF16:
    return {2e-6, 2e-5 + 2 * unit_roundoff(c.dtype),
            "as rmsnorm over head_dim; out rounded to bf16"};
  case DType::kF32:
    break;
  }
  return {2e-6, 2e-5, "as rmsnorm over head_dim"};
}

ptxkit::Expected<void> QkRmsNorm::validate(const Config& c) {
  if (!(c.eps > 0.0f))
    return fail("field 'eps' = " + number_text(c.eps) +
                " must be > 0 (it guards the reciprocal square root of an all-zero head)");
  return {};
}

LaunchDims QkRmsNorm::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.tokens;
  d.block[0] = qk_rmsnorm_layout(c).threads;
  return d;
}

std::vector<ParamSpec> QkRmsNorm::params(const Config& c) {
  std::size_t n = std::size_t{c.tokens} * c.num_heads * c.head_dim;
  const ElemType e = elem_type(c.dtype);
  return {
      {.name = "input", .kind = ParamKind::kInput, .buffer = "x", .elem = e, .elems = n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elem = e, .elems = n},
      {.name = "gamma",
       .kind = ParamKind::kInput,
       .buffer = "gamma",
       .elem = e,
       .elems = c.head_dim},
  };
}

HostTensors QkRmsNorm::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  const std::size_t heads = std::size_t{c.tokens} * c.num_heads;
  auto& x = t.f32["x"];
  x.reserve(heads * c.head_dim);
  // A different scale per head, so a kernel that mixed heads in one sum would be visibly off.
  for (std::size_t h = 0; h < heads; ++h) {
    const float scale = 0.25f + static_cast<float>(h % 7);
    for (std::uint32_t i = 0; i < c.head_dim; ++i)
      x.push_back(scale * rng.uniform(-1.0f, 1.0f));
  }
  t.f32["gamma"] = rng.uniform_vector(c.head_dim, 0.5f, 1.5f);
  round_all(c.dtype, x);
  round_all(c.dtype, t.f32["gamma"]);
  return t;
}

std::vector<float> qk_rmsnorm_reference(const std::vector<float>& x,
                                        const std::vector<float>& gamma, std::uint32_t tokens,
                                        std::uint32_t num_heads, std::uint32_t head_dim, float eps,
                                        DType dtype) {
  std::vector<float> out(x.size());
  const std::size_t heads = std::size_t{tokens} * num_heads;
  for (std::size_t h = 0; h < heads; ++h) {
    const float* row = x.data() + h * head_dim;
    double sumsq = 0.0;
    for (std::size_t i = 0; i < head_dim; ++i)
      sumsq += double{row[i]} * double{row[i]};
    const double inv_rms = 1.0 / std::sqrt(sumsq / head_dim + double{eps});
    for (std::size_t i = 0; i < head_dim; ++i)
      out[h * head_dim + i] = round_to(dtype, double{row[i]} * inv_rms * double{gamma[i]});
  }
  return out;
}

ptxkit::Expected<HostTensors> QkRmsNorm::reference(const Config& c, const HostTensors& in) {
  auto x = in.f32.find("x");
  auto g = in.f32.find("gamma");
  if (x == in.f32.end() || g == in.f32.end())
    return fail("qk_rmsnorm reference: inputs 'x' and 'gamma' are required");
  const std::size_t n = std::size_t{c.tokens} * c.num_heads * c.head_dim;
  if (x->second.size() != n || g->second.size() != c.head_dim)
    return fail("qk_rmsnorm reference: x has " + std::to_string(x->second.size()) +
                " elements and gamma " + std::to_string(g->second.size()) +
                "; expected tokens*num_heads*head_dim = " + std::to_string(n) +
                " and head_dim = " + std::to_string(c.head_dim));
  HostTensors out;
  out.f32["out"] =
      qk_rmsnorm_reference(x->second, g->second, c.tokens, c.num_heads, c.head_dim, c.eps, c.dtype);
  return out;
}

} // namespace ptxkit::kernels
