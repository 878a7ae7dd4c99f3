// kernel.h: the type-erased interface of a library kernel, and the adapter that makes one from a
// kernel definition struct.
//
// Consumers (the CLI, the key, golden files, the runtime, the tests) see `Kernel`: a name, the
// reflected fields, reference configs, validation, PTX generation, the launch contract, the CPU
// reference, the device tolerance and the benchmark cases, all over type-erased ConfigValues. A
// kernel author writes a plain definition struct with a typed Config (see docs/kernels.md, "How to
// add a kernel"), whose contract is the concept KernelDefinition below, and registers it with
// PTXKIT_REGISTER_KERNEL (registry.h), which checks the contract piece by piece.
#pragma once

#include <concepts>
#include <cstdint>
#include <ptxkit/kernels/bench_case.h>
#include <ptxkit/kernels/field.h>
#include <ptxkit/kernels/host_tensors.h>
#include <ptxkit/kernels/reflect.h>
#include <ptxkit/kernels/tolerance.h>
#include <ptxkit/ptxgen/expected.h>
#include <ptxkit/ptxgen/target.h>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

// A production configuration a kernel is generated, golden-tested and benchmarked at.
struct ReferenceConfig {
  std::string tag;         // short, used in file names: KERNEL.TAG.sm_XX.ptx
  std::string description; // e.g. "Qwen2.5-0.5B: hidden 896, eps 1e-6"
  ConfigValues values;
};

// One immediate in the PTX that came from a config field.
struct BakedImmediate {
  std::size_t ptx_line = 0; // 1-based line in `text`
  std::string instruction;  // the PTX instruction text
  std::string field;        // the config field it came from
  std::string value;        // the immediate as printed
};

// Generated PTX of one kernel instance.
struct GeneratedPtx {
  std::string text;
  std::vector<BakedImmediate> baked;
};

struct GenOptions {
  bool loc = false; // emit .file/.loc provenance lines
};

class Kernel {
public:
  virtual ~Kernel() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view summary() const = 0;
  // Prose on the supported limits beyond per-field ranges (cross-field rules), for docs and list.
  [[nodiscard]] virtual std::string_view limits() const = 0;
  [[nodiscard]] virtual const std::vector<FieldInfo>& fields() const = 0;
  [[nodiscard]] virtual const std::vector<ReferenceConfig>& reference_configs() const = 0;

  // The defaults of every field.
  [[nodiscard]] ConfigValues defaults() const;
  // The index of field `name`, or -1.
  [[nodiscard]] int field_index(std::string_view name) const;
  // The reference config with `tag`, or nullptr.
  [[nodiscard]] const ReferenceConfig* reference_config(std::string_view tag) const;

  // Checks types, per-field limits, then the kernel's cross-field rules. The error names the
  // field, its value and what is valid.
  [[nodiscard]] ptxkit::Expected<void> validate(const ConfigValues& values) const;

  // Validates, then generates the PTX for `target`.
  [[nodiscard]] ptxkit::Expected<GeneratedPtx> generate(const ConfigValues& values,
                                                        const ptxgen::Target& target,
                                                        const GenOptions& options = {}) const;

  // The launch contract: grid/block/dynamic shared memory, and the parameter list.
  [[nodiscard]] virtual LaunchDims launch(const ConfigValues& values) const = 0;
  [[nodiscard]] virtual std::vector<ParamSpec> params(const ConfigValues& values) const = 0;

  // Random, valid inputs at this config's shape (deterministic in `seed`).
  [[nodiscard]] virtual HostTensors make_inputs(const ConfigValues& values,
                                                std::uint64_t seed) const = 0;
  // The CPU reference: the output buffers (the kOutput params) for `inputs`. An error when the
  // inputs do not match the config's shape (sizes, lengths out of range).
  [[nodiscard]] virtual ptxkit::Expected<HostTensors>
  reference(const ConfigValues& values, const HostTensors& inputs) const = 0;

  // How close the device output must be to the reference for these inputs (some tolerances grow
  // with the inputs: RoPE's with the largest position), with the reason.
  [[nodiscard]] virtual Tolerance tolerance(const ConfigValues& values,
                                            const HostTensors& inputs) const = 0;
  // The kernel's cases for `ptxkit bench` (bench_case.h); empty when it states none.
  [[nodiscard]] virtual const std::vector<BenchCase>& bench_cases() const = 0;

protected:
  [[nodiscard]] virtual ptxkit::Expected<void> validate_rules(const ConfigValues& values) const = 0;
  [[nodiscard]] virtual ptxkit::Expected<GeneratedPtx> build(const ConfigValues& values,
                                                             const ptxgen::Target& target,
                                                             const GenOptions& options) const = 0;
};

// A named typed config of a definition's reference set.
template <class Config>
struct NamedConfig {
  std::string tag;
  std::string description;
  Config config;
};

// The contract of a kernel definition, one concept per piece, so that PTXKIT_REGISTER_KERNEL can
// name the piece that is missing (registry.h). Types are those of namespace ptxkit::kernels.
//
//   using Config = ...;                              // reflected struct (reflect.h)
//   static constexpr std::string_view kName, kSummary, kLimits;
//   static std::vector<NamedConfig<Config>> reference_configs();
//   static ptxkit::Expected<void> validate(const Config&);          // cross-field rules
//   static ptxkit::Expected<GeneratedPtx> build(const Config&, const ptxgen::Target&,
//                                               const GenOptions&);
//   static LaunchDims launch(const Config&);
//   static std::vector<ParamSpec> params(const Config&);
//   static HostTensors make_inputs(const Config&, std::uint64_t seed);
//   static ptxkit::Expected<HostTensors> reference(const Config&, const HostTensors&);
//   static Tolerance tolerance(const Config&, const HostTensors& inputs);
//   static std::vector<BenchCase> bench_cases();     // optional
//
// A definition states `using Config` and the functions from reference_configs() to reference()
// with one line, PTXKIT_KERNEL_FUNCTIONS(TheConfig) (below), and defines them in its .cpp files;
// what is its own (kName, kSummary, kLimits, tolerance(), bench_cases()) it writes out.
template <class Config>
concept ReflectedConfig = std::default_initializable<Config> &&
    requires(detail::Describer& d, Config& c) {
  Config::visit(d, c);
};

template <class Def>
concept DeclaresConfig = requires {
  typename Def::Config;
};

template <class Def>
concept HasConfig = DeclaresConfig<Def> && ReflectedConfig<typename Def::Config>;

template <class Def>
concept HasName = requires {
  { Def::kName } -> std::convertible_to<std::string_view>;
};

template <class Def>
concept HasDescription = requires {
  { Def::kSummary } -> std::convertible_to<std::string_view>;
  { Def::kLimits } -> std::convertible_to<std::string_view>;
};

template <class Def>
concept HasReferenceConfigs = HasConfig<Def> && requires {
  {
    Def::reference_configs()
    } -> std::convertible_to<std::vector<NamedConfig<typename Def::Config>>>;
};

template <class Def>
concept HasValidate = HasConfig<Def> && requires(const typename Def::Config& c) {
  { Def::validate(c) } -> std::convertible_to<ptxkit::Expected<void>>;
};

template <class Def>
concept HasBuild = HasConfig<Def> &&
    requires(const typename Def::Config& c, const ptxgen::Target& target, const GenOptions& o) {
  { Def::build(c, target, o) } -> std::convertible_to<ptxkit::Expected<GeneratedPtx>>;
};

template <class Def>
concept HasLaunch = HasConfig<Def> && requires(const typename Def::Config& c) {
  { Def::launch(c) } -> std::convertible_to<LaunchDims>;
};

template <class Def>
concept HasParams = HasConfig<Def> && requires(const typename Def::Config& c) {
  { Def::params(c) } -> std::convertible_to<std::vector<ParamSpec>>;
};

template <class Def>
concept HasInputs = HasConfig<Def> && requires(const typename Def::Config& c, std::uint64_t seed) {
  { Def::make_inputs(c, seed) } -> std::convertible_to<HostTensors>;
};

template <class Def>
concept HasReference = HasConfig<Def> &&
    requires(const typename Def::Config& c, const HostTensors& in) {
  { Def::reference(c, in) } -> std::convertible_to<ptxkit::Expected<HostTensors>>;
};

template <class Def>
concept HasTolerance = HasConfig<Def> &&
    requires(const typename Def::Config& c, const HostTensors& in) {
  { Def::tolerance(c, in) } -> std::convertible_to<Tolerance>;
};

// bench_cases is optional, but one that is declared with another shape is a mistake, not an
// absence: NamesBenchCases sees the name, HasBenchCases the right shape.
template <class Def>
concept NamesBenchCases = requires {
  &Def::bench_cases;
};

template <class Def>
concept HasBenchCases = requires {
  { Def::bench_cases() } -> std::convertible_to<std::vector<BenchCase>>;
};

template <class Def>
concept KernelDefinition = HasConfig<Def> && HasName<Def> && HasDescription<Def> &&
    HasReferenceConfigs<Def> && HasValidate<Def> && HasBuild<Def> && HasLaunch<Def> &&
    HasParams<Def> && HasInputs<Def> && HasReference<Def> && HasTolerance<Def> &&
    (!NamesBenchCases<Def> || HasBenchCases<Def>);

// The functions every kernel definition defines: `using Config = ConfigType;` and the
// declarations of reference_configs(), validate(), build(), launch(), params(), make_inputs() and
// reference() (KernelDefinition above), each defined in the kernel's builder or reference file.
// Written inside the definition struct as `PTXKIT_KERNEL_FUNCTIONS(RmsNormConfig);`. tolerance()
// and the optional bench_cases() are not among them: each kernel states its own.
#define PTXKIT_KERNEL_FUNCTIONS(ConfigType)                                                        \
  using Config = ConfigType;                                                                       \
  static std::vector<::ptxkit::kernels::NamedConfig<Config>> reference_configs();                  \
  static ::ptxkit::Expected<void> validate(const Config& c);                                       \
  static ::ptxkit::Expected<::ptxkit::kernels::GeneratedPtx> build(                                \
      const Config& c, const ::ptxkit::ptxgen::Target& target,                                     \
      const ::ptxkit::kernels::GenOptions& options);                                               \
  static ::ptxkit::kernels::LaunchDims launch(const Config& c);                                    \
  static std::vector<::ptxkit::kernels::ParamSpec> params(const Config& c);                        \
  static ::ptxkit::kernels::HostTensors make_inputs(const Config& c, std::uint64_t seed);          \
  static ::ptxkit::Expected<::ptxkit::kernels::HostTensors> reference(                             \
      const Config& c, const ::ptxkit::kernels::HostTensors& in)

// Turns a definition struct (KernelDefinition) into a Kernel.
template <KernelDefinition Def>
class KernelAdapter final : public Kernel {
public:
  using Config = typename Def::Config;

  KernelAdapter() : fields_(describe<Config>()) {
    for (auto& named : Def::reference_configs())
      refs_.push_back({named.tag, named.description, to_values(named.config)});
    if constexpr (HasBenchCases<Def>) bench_cases_ = Def::bench_cases();
  }

  std::string_view name() const override { return Def::kName; }
  std::string_view summary() const override { return Def::kSummary; }
  std::string_view limits() const override { return Def::kLimits; }
  const std::vector<FieldInfo>& fields() const override { return fields_; }
  const std::vector<ReferenceConfig>& reference_configs() const override { return refs_; }

  LaunchDims launch(const ConfigValues& v) const override {
    return Def::launch(from_values<Config>(v));
  }
  std::vector<ParamSpec> params(const ConfigValues& v) const override {
    return Def::params(from_values<Config>(v));
  }
  HostTensors make_inputs(const ConfigValues& v, std::uint64_t seed) const override {
    return Def::make_inputs(from_values<Config>(v), seed);
  }
  ptxkit::Expected<HostTensors> reference(const ConfigValues& v,
                                          const HostTensors& inputs) const override {
    return Def::reference(from_values<Config>(v), inputs);
  }
  Tolerance tolerance(const ConfigValues& v, const HostTensors& inputs) const override {
    return Def::tolerance(from_values<Config>(v), inputs);
  }
  const std::vector<BenchCase>& bench_cases() const override { return bench_cases_; }

protected:
  ptxkit::Expected<void> validate_rules(const ConfigValues& v) const override {
    return Def::validate(from_values<Config>(v));
  }
  ptxkit::Expected<GeneratedPtx> build(const ConfigValues& v, const ptxgen::Target& target,
                                       const GenOptions& options) const override {
    return Def::build(from_values<Config>(v), target, options);
  }

private:
  std::vector<FieldInfo> fields_;
  std::vector<ReferenceConfig> refs_;
  std::vector<BenchCase> bench_cases_;
};

} // namespace ptxkit::kernels
