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
  };
}

std::vector<BenchCase> SwiGlu::bench_cases() {
  return {{.name = "swiglu_64M",
           .config = "qwen05b",
           .sets = {"n=67108864"},
           .shape = "67108864 f32 (silu(g) * u)",
           .target = BenchTarget{.min_pct_of_copy = 80}}};
}

ptxkit::Expected<void> SwiGlu::validate(const Config&) {
  return {};
}

LaunchDims SwiGlu::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = elementwise::blocks_for(c.n);
  d.block[0] = elementwise::kThreads;
  return d;
}

std::vector<ParamSpec> SwiGlu::params(const Config& c) {
  return {
      {.name = "gate", .kind = ParamKind::kInput, .buffer = "gate", .elems = c.n},
      {.name = "up", .kind = ParamKind::kInput, .buffer = "up", .elems = c.n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elems = c.n},
  };
}

HostTensors SwiGlu::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  t.f32["gate"] = rng.uniform_vector(c.n, -8.0f, 8.0f);
  t.f32["up"] = rng.uniform_vector(c.n, -2.0f, 2.0f);
  return t;
}

double silu_reference(double x) {
  return x / (1.0 + std::exp(-x));
}

std::vector<float> swiglu_reference(const std::vector<float>& gate, const std::vector<float>& up) {
  std::vector<float> out(gate.size());
  for (std::size_t i = 0; i < gate.size(); ++i)
    out[i] = static_cast<float>(silu_reference(gate[i]) * double{up[i]});
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
  out.f32["out"] = swiglu_reference(g->second, u->second);
  return out;
}

} // namespace ptxkit::kernels
