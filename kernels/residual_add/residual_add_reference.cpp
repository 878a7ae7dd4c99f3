// residual_add_reference.cpp: the residual add's CPU reference, launch contract, inputs and
// reference configs and bench case.
#include "common/elementwise.h"
#include "error_p.h"
#include "residual_add.h"

namespace ptxkit::kernels {

std::vector<NamedConfig<ResidualAddConfig>> ResidualAdd::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5-0.5B: one hidden row of 896", Config{.n = 896}},
      {"llama", "Llama: one hidden row of 4096", Config{.n = 4096}},
      {"qwen05b_bf16", "Qwen2.5-0.5B in bf16: one hidden row of 896",
       Config{.n = 896, .dtype = DType::kBF16}},
      {"llama_f16", "Llama in f16: one hidden row of 4096",
       Config{.n = 4096, .dtype = DType::kF16}},
  };
}

std::vector<BenchCase> ResidualAdd::bench_cases() {
  return {{.name = "residual_add_64M",
           .config = "qwen05b",
           .sets = {"n=67108864"},
           .shape = "67108864 f32 (a + b)",
           .target = BenchTarget{.min_pct_of_copy = 80}}};
}

ptxkit::Expected<void> ResidualAdd::validate(const Config&) {
  return {};
}

LaunchDims ResidualAdd::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = elementwise::blocks_for(c.n, elementwise::group_size(c.dtype));
  d.block[0] = elementwise::kThreads;
  return d;
}

std::vector<ParamSpec> ResidualAdd::params(const Config& c) {
  const ElemType e = elem_type(c.dtype);
  return {
      {.name = "a", .kind = ParamKind::kInput, .buffer = "a", .elem = e, .elems = c.n},
      {.name = "b", .kind = ParamKind::kInput, .buffer = "b", .elem = e, .elems = c.n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elem = e, .elems = c.n},
  };
}

HostTensors ResidualAdd::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  t.f32["a"] = rng.uniform_vector(c.n, -4.0f, 4.0f);
  t.f32["b"] = rng.uniform_vector(c.n, -4.0f, 4.0f);
  round_all(c.dtype, t.f32["a"]);
  round_all(c.dtype, t.f32["b"]);
  return t;
}

std::vector<float> residual_add_reference(const std::vector<float>& a, const std::vector<float>& b,
                                          DType dtype) {
  std::vector<float> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    out[i] = round_to(dtype, a[i] + b[i]);
  return out;
}

ptxkit::Expected<HostTensors> ResidualAdd::reference(const Config& c, const HostTensors& in) {
  auto a = in.f32.find("a");
  auto b = in.f32.find("b");
  if (a == in.f32.end() || b == in.f32.end())
    return fail("residual_add reference: inputs 'a' and 'b' are required");
  if (a->second.size() != c.n || b->second.size() != c.n)
    return fail("residual_add reference: a has " + std::to_string(a->second.size()) +
                " elements and b " + std::to_string(b->second.size()) +
                "; expected n = " + std::to_string(c.n));
  HostTensors out;
  out.f32["out"] = residual_add_reference(a->second, b->second, c.dtype);
  return out;
}

} // namespace ptxkit::kernels
