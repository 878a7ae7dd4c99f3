// bias_add_reference.cpp: the bias add's CPU reference, launch contract, inputs, reference
// configs and bench case.
#include "bias_add.h"
#include "common/row_block.h"
#include "error_p.h"

namespace ptxkit::kernels {

std::vector<NamedConfig<BiasAddConfig>> BiasAdd::reference_configs() {
  return {
      {"qwen05b_qkv", "Qwen2.5-0.5B fused q/k/v projection bias: 896 + 2 x 128 columns, one token",
       Config{.cols = 1152, .rows = 1}},
      {"qwen05b_q", "Qwen2.5-0.5B query projection bias: 896 columns, 4 tokens",
       Config{.cols = 896, .rows = 4}},
      {"qwen05b_qkv_bf16", "Qwen2.5-0.5B fused q/k/v projection bias in bf16: 1152 columns",
       Config{.cols = 1152, .rows = 1, .dtype = DType::kBF16}},
      {"qwen05b_q_bf16", "Qwen2.5-0.5B query projection bias in bf16: 896 columns, 4 tokens",
       Config{.cols = 896, .rows = 4, .dtype = DType::kBF16}},
      {"qwen05b_qkv_f16", "Qwen2.5-0.5B fused q/k/v projection bias in f16: 1152 columns",
       Config{.cols = 1152, .rows = 1, .dtype = DType::kF16}},
  };
}

std::vector<BenchCase> BiasAdd::bench_cases() {
  return {{.name = "bias_add_65536x1152",
           .config = "qwen05b_qkv",
           .sets = {"rows=65536"},
           .shape = "65536 rows x 1152 (+ bias)"}};
}

ptxkit::Expected<void> BiasAdd::validate(const Config&) {
  return {};
}

LaunchDims BiasAdd::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.rows;
  d.block[0] = row_block::threads_for(chunks(c));
  return d;
}

std::vector<ParamSpec> BiasAdd::params(const Config& c) {
  const std::size_t n = std::size_t{c.rows} * c.cols;
  const ElemType e = elem_type(c.dtype);
  return {
      {.name = "input", .kind = ParamKind::kInput, .buffer = "x", .elem = e, .elems = n},
      {.name = "bias", .kind = ParamKind::kInput, .buffer = "bias", .elem = e, .elems = c.cols},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elem = e, .elems = n},
  };
}

HostTensors BiasAdd::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  t.f32["x"] = rng.uniform_vector(std::size_t{c.rows} * c.cols, -4.0f, 4.0f);
  t.f32["bias"] = rng.uniform_vector(c.cols, -1.0f, 1.0f);
  round_all(c.dtype, t.f32["x"]);
  round_all(c.dtype, t.f32["bias"]);
  return t;
}

std::vector<float> bias_add_reference(const std::vector<float>& x, const std::vector<float>& bias,
                                      DType dtype) {
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    out[i] = round_to(dtype, x[i] + bias[i % bias.size()]); // the kernel's f32 add, then cvt.rn
  return out;
}

ptxkit::Expected<HostTensors> BiasAdd::reference(const Config& c, const HostTensors& in) {
  auto x = in.f32.find("x");
  auto bias = in.f32.find("bias");
  if (x == in.f32.end() || bias == in.f32.end())
    return fail("bias_add reference: inputs 'x' and 'bias' are required");
  const std::size_t n = std::size_t{c.rows} * c.cols;
  if (x->second.size() != n || bias->second.size() != c.cols)
    return fail("bias_add reference: x has " + std::to_string(x->second.size()) +
                " elements and bias " + std::to_string(bias->second.size()) + "; expected rows * " +
                "cols = " + std::to_string(n) + " and cols = " + std::to_string(c.cols));
  HostTensors out;
  out.f32["out"] = bias_add_reference(x->second, bias->second, c.dtype);
  return out;
}

} // namespace ptxkit::kernels
