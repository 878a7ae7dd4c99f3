// swiglu_reference.cpp: SwiGLU's CPU reference, launch contract, inputs, reference configs and
// bench case.
//
// silu in double with std::exp: independent of the kernel's ex2/log2(e) formulation, so a wrong
// constant or sign in the kernel cannot hide in both.
#include "common/elementwise.h"
#include "error_p.h"
#include "swiglu.h"

#include <cmath>

namespace ptxkit::kernels {

std::vector<NamedConfig<SwiGluConfig>> SwiGlu::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5-0.5B: intermediate 4864", Config{.n = 4864}},
      {"llama", "Llama-7B: intermediate 11008", Config{.n = 11008}},
      {"qwen05b_bf16", "Qwen2.5-0.5B in bf16: intermediate 4864",
       Config{.n = 4864, .dtype = DType::kBF16}},
      {"llama_f16", "Llama-7B in f16: intermediate 11008",
       Config{.n = 11008, .dtype = DType::kF16}},
  };
}

std::vector<BenchCase> SwiGlu::bench_cases() {
  return {{.name = "swiglu_64M",
           .config = "qwen05b",
           .sets = {"n=67108864"},
           .shape = "67108864 f32 (silu(g) * u)",
           .target = BenchTarget{.min_pct_of_copy = 80}}};
}

Tolerance SwiGlu::tolerance(const Config& c, const HostTensors&) {
  // One rounding of the output to the format: the device's f32 value and the reference may sit
  // on either side of a rounding boundary.
  switch (c.dtype) {
  case DType::kF16:
    return {1e-6, 1e-5 + 2 * unit_roundoff(c.dtype),
            "ex2.approx (2 ulp) and div.full in silu, out rounded to f16"};
  case DType::kBF16:
    return {1e-6, 1e-5 + 2 * unit_roundoff(c.dtype),
            "ex2.approx (2 ulp) and div.full in silu, out rounded to bf16"};
  case DType::kF32:
    break;
  }
  return {1e-6, 1e-5, "ex2.approx (2 ulp) and div.full in silu"};
}

ptxkit::Expected<void> SwiGlu::validate(const Config&) {
  return {};
}

LaunchDims SwiGlu::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = elementwise::blocks_for(c.n, elementwise::group_size(c.dtype));
  d.block[0] = elementwise::kThreads;
  return d;
}

std::vector<ParamSpec> SwiGlu::params(const Config& c) {
  const ElemType e = elem_type(c.dtype);
  return {
      {.name = "gate", .kind = ParamKind::kInput, .buffer = "gate", .elem = e, .elems = c.n},
      {.name = "up", .kind = ParamKind::kInput, .buffer = "up", .elem = e, .elems = c.n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elem = e, .elems = c.n},
  };
}

HostTensors SwiGlu::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  t.f32["gate"] = rng.uniform_vector(c.n, -8.0f, 8.0f);
  t.f32["up"] = rng.uniform_vector(c.n, -2.0f, 2.0f);
  round_all(c.dtype, t.f32["gate"]);
  round_all(c.dtype, t.f32["up"]);
  return t;
}

double silu_reference(double x) {
  return x / (1.0 + std::exp(-x));
}

std::vector<float> swiglu_reference(const std::vector<float>& gate, const std::vector<float>& up,
                                    DType dtype) {
  std::vector<float> out(gate.size());
  for (std::size_t i = 0; i < gate.size(); ++i)
    out[i] = round_to(dtype, silu_reference(gate[i]) * double{up[i]});
  return out;
}

ptxkit::Expected<HostTensors> SwiGlu::reference(const Config& c, const HostTensors& in) {
  auto g = in.f32.find("gate");
  auto u = in.f32.find("up");
  if (g == in.f32.end() || u == in.f32.end())
    return fail("swiglu reference: inputs 'gate' and 'up' are required");
  if (g->second.size() != c.n || u->second.size() != c.n)
    return fail("swiglu reference: gate has " + std::to_string(g->second.size()) +
                " elements and up " + std::to_string(u->second.size()) +
                "; expected n = " + std::to_string(c.n));
  HostTensors out;
  out.f32["out"] = swiglu_reference(g->second, u->second, c.dtype);
  return out;
}

} // namespace ptxkit::kernels
