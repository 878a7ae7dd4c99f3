// miskeyed_kernels.cpp: deliberately mis-keyed TEST kernels (the bugs of hand-written keys) and
// their repaired twins, registered only in the keys test binary, never in the library.
//
// In this framework a key can lose a field in two ways, and both are reproduced realistically:
//   - a field the builder bakes is declared exempt (baked = false) with a plausible but wrong
//     reason: the real RMSNorm builder behind a config whose eps says "tolerance only";
//   - a caller keys modules with its own key function instead of cache_key (the
//     hand-written `format!("rope_neox_{}_{}", head_dim, num_heads)`): key_lint_test.cpp aims
//     the proof at such functions over the real rope_neox kernel.
// The opposite bug, a batch size in the key that never reaches the PTX, is the real RMSNorm
// builder behind a config with a baked `batch` field that only sets the launch grid.
#include "miskeyed_kernels.h"

#include <cstdio>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels::keytest {
namespace {

// The shared body of the RMSNorm test kernels: every one forwards to the library's RmsNorm
// (builder, validation, launch contract, reference, tolerance) through Config::real().
template <class C, const char* Name>
struct RmsNormVariant {
  using Config = C;
  static constexpr std::string_view kName = Name;
  static constexpr std::string_view kSummary = "key-lint test kernel over the library RMSNorm";
  static constexpr std::string_view kLimits = "those of rmsnorm";
  static std::vector<NamedConfig<Config>> reference_configs() {
    return {{"qwen05b", "hidden 896, eps 1e-6", Config{}},
            {"llama", "hidden 4096, eps 1e-5", Config::with(4096, 1e-5f)}};
  }
  static ptxkit::Expected<void> validate(const Config& c) { return RmsNorm::validate(c.real()); }
  static ptxkit::Expected<GeneratedPtx> build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
    return RmsNorm::build(c.real(), target, options);
  }
  static LaunchDims launch(const Config& c) { return RmsNorm::launch(c.real()); }
  static std::vector<ParamSpec> params(const Config& c) { return RmsNorm::params(c.real()); }
  static HostTensors make_inputs(const Config& c, std::uint64_t seed) {
    return RmsNorm::make_inputs(c.real(), seed);
  }
  static ptxkit::Expected<HostTensors> reference(const Config& c, const HostTensors& in) {
    return RmsNorm::reference(c.real(), in);
  }
  static Tolerance tolerance(const Config& c, const HostTensors& in) {
    return RmsNorm::tolerance(c.real(), in);
  }
};

constexpr FieldSpec kHiddenSpec{.doc = "row length", .min = 4.0, .max = 65536.0, .multiple_of = 4};

// The RMSNorm key bug: eps declared exempt with a reason that sounds right and is not (the
// builder bakes eps into `add.f32 ..., 0f358637BD`).
struct EpsExemptConfig {
  std::uint32_t hidden = 896;
  float eps = 1e-6f;
  static EpsExemptConfig with(std::uint32_t h, float e) { return {h, e}; }
  RmsNormConfig real() const { return {hidden, eps, 1}; }
  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("hidden", c.hidden, kHiddenSpec);
    v.field("eps", c.eps,
            FieldSpec{.doc = "added to mean(x^2)",
                      .baked = false,
                      .min = 0.0,
                      .max = 1.0,
                      .exempt_reason = "a numerical tolerance only: it guards the rsqrt against "
                                       "zero and does not change the kernel's code"});
  }
};

// Its repaired twin: eps baked (the default), so cache_key hashes its bits.
struct EpsKeyedConfig {
  std::uint32_t hidden = 896;
  float eps = 1e-6f;
  static EpsKeyedConfig with(std::uint32_t h, float e) { return {h, e}; }
  RmsNormConfig real() const { return {hidden, eps, 1}; }
  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("hidden", c.hidden, kHiddenSpec);
    v.field("eps", c.eps, FieldSpec{.doc = "added to mean(x^2)", .min = 0.0, .max = 1.0});
  }
};

// The opposite bug: a batch size declared baked (so in the key) that only sets grid.y.
struct BatchKeyedConfig {
  std::uint32_t hidden = 896;
  float eps = 1e-6f;
  std::uint32_t batch = 1;
  static BatchKeyedConfig with(std::uint32_t h, float e) { return {h, e, 8}; }
  RmsNormConfig real() const { return {hidden, eps, batch}; }
  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("hidden", c.hidden, kHiddenSpec);
    v.field("eps", c.eps, FieldSpec{.doc = "added to mean(x^2)", .min = 0.0, .max = 1.0});
    v.field("batch", c.batch, FieldSpec{.doc = "rows per launch", .min = 1.0, .max = 65535.0});
  }
};

// Its repaired twin: batch exempt, with the true reason.
struct BatchExemptConfig {
  std::uint32_t hidden = 896;
  float eps = 1e-6f;
  std::uint32_t batch = 1;
  static BatchExemptConfig with(std::uint32_t h, float e) { return {h, e, 8}; }
  RmsNormConfig real() const { return {hidden, eps, batch}; }
  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("hidden", c.hidden, kHiddenSpec);
    v.field("eps", c.eps, FieldSpec{.doc = "added to mean(x^2)", .min = 0.0, .max = 1.0});
    v.field("batch", c.batch,
            FieldSpec{.doc = "rows per launch",
                      .baked = false,
                      .min = 1.0,
                      .max = 65535.0,
                      .exempt_reason = "launch shape only: grid.y, the row is %ctaid.y"});
  }
};

constexpr char kEpsExemptName[] = "test_rmsnorm_eps_exempt";
constexpr char kEpsKeyedName[] = "test_rmsnorm_eps_keyed";
constexpr char kBatchKeyedName[] = "test_rmsnorm_batch_keyed";
constexpr char kBatchExemptName[] = "test_rmsnorm_batch_exempt";

using EpsExempt = RmsNormVariant<EpsExemptConfig, kEpsExemptName>;
using EpsKeyed = RmsNormVariant<EpsKeyedConfig, kEpsKeyedName>;
using BatchKeyed = RmsNormVariant<BatchKeyedConfig, kBatchKeyedName>;
using BatchExempt = RmsNormVariant<BatchExemptConfig, kBatchExemptName>;

PTXKIT_REGISTER_KERNEL(EpsExempt);
PTXKIT_REGISTER_KERNEL(EpsKeyed);
PTXKIT_REGISTER_KERNEL(BatchKeyed);
PTXKIT_REGISTER_KERNEL(BatchExempt);

std::string u32(const ConfigValues& v, int i) {
  return std::to_string(std::get<std::uint32_t>(v[static_cast<std::size_t>(i)]));
}

} // namespace

std::string handwritten_rope_key(const Kernel& k, const ConfigValues& v, std::string_view target) {
  // aprender-train 0.37.0: format!("rope_neox_{}_{}", head_dim, num_heads): theta left out.
  return std::string(k.name()) + "_" + u32(v, k.field_index("head_dim")) + "_" +
         u32(v, k.field_index("num_heads")) + "_" + std::string(target);
}

std::string rounded_theta_rope_key(const Kernel& k, const ConfigValues& v,
                                   std::string_view target) {
  // A half repair: theta is in the key, but printed with %g (6 significant digits), so
  // neighbouring floats share a key while the PTX carries their exact bits.
  char buf[32];
  std::snprintf(
      buf, sizeof buf, "%g",
      static_cast<double>(std::get<float>(v[static_cast<std::size_t>(k.field_index("theta"))])));
  return handwritten_rope_key(k, v, target) + "_theta" + buf;
}

std::string repaired_rope_key(const Kernel& k, const ConfigValues& v, std::string_view target) {
  // The repair by hand: theta's exact bits (what cache_key does for every baked field).
  float theta = std::get<float>(v[static_cast<std::size_t>(k.field_index("theta"))]);
  std::uint32_t bits = 0;
  std::memcpy(&bits, &theta, sizeof bits);
  // And the element type, a field the kernel gained later: a repaired hand-written key must be
  // kept up to date by hand, which is what the lint is for.
  const auto dtype = std::get<EnumValue>(v[static_cast<std::size_t>(k.field_index("dtype"))]).index;
  return handwritten_rope_key(k, v, target) + "_theta" + std::to_string(bits) + "_dtype" +
         std::to_string(dtype);
}

} // namespace ptxkit::kernels::keytest
