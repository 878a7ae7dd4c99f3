// main.cpp: an application that launches kernels whose PTX was generated, verified and validated
// by ptxas at build time and compiled into it (consumer_ptx.h, written by ptxkit_generate_ptx
// ... EMBED). Each kernel is loaded through ptxkit's runtime (verified again on load, launches
// checked against its launch contract), run on inputs from its definition, and compared with its
// CPU reference under its stated tolerance.
//
// Exit codes: 0 every kernel matched, 1 a mismatch or a launch failure, 3 no CUDA device.
#include "consumer_ptx.h"

#include <cstdio>
#include <map>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/runtime/runtime.h>
#include <string>
#include <vector>

namespace {

namespace rt = ptxkit::runtime;
namespace kn = ptxkit::kernels;

std::vector<std::string> split_config(std::string_view config) {
  std::vector<std::string> out;
  while (!config.empty()) {
    const std::size_t comma = config.find(',');
    out.emplace_back(config.substr(0, comma));
    config = comma == std::string_view::npos ? std::string_view{} : config.substr(comma + 1);
  }
  return out;
}

// Runs one embedded kernel and compares its outputs; returns an error message, empty when it
// matched.
std::string run_one(const rt::Context& ctx, const rt::Stream& stream, rt::KernelCache& cache,
                    const rt::EmbeddedKernel& embedded) {
  const kn::Kernel* kernel = kn::KernelRegistry::find(embedded.kernel);
  if (kernel == nullptr) return "no kernel definition is linked into this app";
  auto values = kn::config_from_assignments(*kernel, split_config(embedded.config));
  if (!values) return values.error().to_string();
  auto function = rt::load_embedded(cache, embedded);
  if (!function) return function.error().message;

  const kn::HostTensors inputs = kernel->make_inputs(*values, 2026);
  std::map<std::string, rt::DeviceBuffer<float>> buffers;
  rt::ArgPack args;
  for (const rt::EmbeddedParam& p : embedded.params) {
    if (p.kind == "pointer_array" || p.elem != "f32")
      return "this app handles f32 buffer parameters only (" + std::string(p.name) + ")";
    const std::string name(p.buffer);
    if (!buffers.count(name)) {
      auto b = rt::DeviceBuffer<float>::allocate(ctx, p.elems);
      if (!b) return b.error().message;
      auto in = inputs.f32.find(name);
      auto filled = in != inputs.f32.end() ? b->upload(in->second) : b->fill_u32(0x7fffffffu);
      if (!filled) return filled.error().message;
      buffers.emplace(name, std::move(*b));
    }
    args.buffer(buffers.at(name));
  }
  if (auto launched = function->launch_args(stream, embedded.launch_dims(), args.refs()); !launched)
    return launched.error().message;
  if (auto done = stream.synchronize(); !done) return done.error().message;

  auto want = kernel->reference(*values, inputs);
  if (!want) return want.error().to_string();
  const kn::Tolerance tol = kernel->tolerance(*values, inputs);
  for (const auto& [name, expected] : want->f32) {
    std::vector<float> got(expected.size());
    if (auto d = buffers.at(name).download(got); !d) return d.error().message;
    const rt::Comparison c = rt::compare(got, expected, rt::Tolerance{tol.abs, tol.rel});
    std::printf("  %s: %s\n", name.c_str(), c.summary().c_str());
    if (!c.ok()) return "output '" + name + "' differs from the CPU reference";
  }
  return {};
}

} // namespace

int main() {
  auto ctx = rt::Context::open_default();
  if (!ctx) {
    std::fprintf(stderr, "consumer-app: no CUDA device, nothing launched: %s\n",
                 ctx.error().message.c_str());
    return ctx.error().is_unavailable() ? 3 : 1;
  }
  auto stream = rt::Stream::create(*ctx);
  if (!stream) {
    std::fprintf(stderr, "consumer-app: %s\n", stream.error().message.c_str());
    return 1;
  }
  rt::KernelCache cache(*ctx);
  int failed = 0;
  for (const rt::EmbeddedKernel* k : consumer_ptx::all) {
    std::printf("%s (%s, %s, key %s)\n", std::string(k->kernel).c_str(),
                std::string(k->config).c_str(), std::string(k->target).c_str(),
                std::string(k->key).c_str());
    const std::string error = run_one(*ctx, *stream, cache, *k);
    if (!error.empty()) {
      std::fprintf(stderr, "consumer-app: %s: %s\n", std::string(k->kernel).c_str(), error.c_str());
      ++failed;
    }
  }
  std::printf("consumer-app: %zu kernels, %d failed\n", std::size(consumer_ptx::all), failed);
  return failed == 0 ? 0 : 1;
}
