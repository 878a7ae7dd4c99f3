// tiny_kernel_p.h: the pieces of a small, complete kernel definition for the compile-fail cases of
// the definition contract (KernelDefinition, kernel.h). Each case derives from TinyParts and
// adds the piece it is about, leaving it out when compiled with -DPTXKIT_COMPILE_FAIL.
#pragma once

#include <cstdint>
#include <ptxkit/kernels/registry.h>
#include <string_view>
#include <vector>

namespace tiny {

using namespace ptxkit::kernels;

struct TinyConfig {
  std::uint32_t n = 4;
  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("n", c.n, FieldSpec{.doc = "elements", .min = 1.0});
  }
};

// Every piece but `reference` and `tolerance`.
struct TinyParts {
  using Config = TinyConfig;
  static constexpr std::string_view kName = "tiny";
  static constexpr std::string_view kSummary = "a copy";
  static constexpr std::string_view kLimits = "none";
  static std::vector<NamedConfig<Config>> reference_configs() { return {{"four", "n 4", {}}}; }
  static ptxkit::Expected<void> validate(const Config&) { return {}; }
  static ptxkit::Expected<GeneratedPtx> build(const Config&, const ptxkit::ptxgen::Target&,
                                              const GenOptions&) {
    return GeneratedPtx{};
  }
  static LaunchDims launch(const Config&) { return {}; }
  static std::vector<ParamSpec> params(const Config& c) {
    return {{.name = "x", .buffer = "x", .elems = c.n},
            {.name = "y", .kind = ParamKind::kOutput, .buffer = "y", .elems = c.n}};
  }
  static HostTensors make_inputs(const Config& c, std::uint64_t) {
    HostTensors t;
    t.f32["x"].assign(c.n, 1.0f);
    return t;
  }
};

inline ptxkit::Expected<HostTensors> copy_reference(const HostTensors& in) {
  HostTensors out;
  out.f32["y"] = in.f32.at("x");
  return out;
}

} // namespace tiny
