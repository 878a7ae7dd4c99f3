// registry.h: the list of every library kernel, filled by static registration.
//
// Each kernel folder has one registration line (PTXKIT_REGISTER_KERNEL(Def)) in its builder file,
// so adding a kernel never edits a central list. ptxkit_kernels is an OBJECT library: its object
// files are linked whole into every target that links it directly (the CLI, the tests), so no
// registration is dropped by the linker. all() is sorted by name, so listing order does not
// depend on static initialization order.
#pragma once

#include <memory>
#include <ptxkit/kernels/kernel.h>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

class KernelRegistry {
public:
  // Every registered kernel, sorted by name.
  [[nodiscard]] static std::vector<const Kernel*> all();
  // The kernel called `name`, or nullptr.
  [[nodiscard]] static const Kernel* find(std::string_view name);
  // "a, b, c": every kernel name, for error messages.
  [[nodiscard]] static std::string names();

  // Used by PTXKIT_REGISTER_KERNEL; asserts that names are unique.
  static bool add(std::unique_ptr<Kernel> kernel);
};

} // namespace ptxkit::kernels

namespace ptxkit::kernels::detail {

// Used by PTXKIT_REGISTER_KERNEL after its static_asserts. A definition that misses a piece has
// already been reported there by name; not instantiating the adapter for it keeps that report the
// only error.
template <class Def>
bool register_definition() {
  if constexpr (KernelDefinition<Def>) {
    return KernelRegistry::add(std::make_unique<KernelAdapter<Def>>());
  } else {
    return false;
  }
}

} // namespace ptxkit::kernels::detail

#define PTXKIT_KERNELS_CONCAT_(a, b) a##b
#define PTXKIT_KERNELS_CONCAT(a, b) PTXKIT_KERNELS_CONCAT_(a, b)
#define PTXKIT_KERNELS_LACKS(Def) "kernel definition " #Def " lacks: "
// Registers KernelAdapter<Def> at static-initialization time. Use once per kernel, at namespace
// scope in the kernel's builder file. Each piece of the contract (KernelDefinition, kernel.h) is
// checked on its own, so the first error names the member that is missing or has another shape.
#define PTXKIT_REGISTER_KERNEL(Def)                                                                \
  static_assert(::ptxkit::kernels::HasConfig<Def>,                                                 \
                PTXKIT_KERNELS_LACKS(Def) "using Config = <a default-constructible struct with "   \
                                          "template <class V, class Self> static void visit(V&, "  \
                                          "Self&)> (reflect.h)");                                  \
  static_assert(::ptxkit::kernels::HasName<Def>,                                                   \
                PTXKIT_KERNELS_LACKS(Def) "static constexpr std::string_view kName");              \
  static_assert(::ptxkit::kernels::HasDescription<Def>,                                            \
                PTXKIT_KERNELS_LACKS(Def) "static constexpr std::string_view kSummary, kLimits");  \
  static_assert(::ptxkit::kernels::HasReferenceConfigs<Def>,                                       \
                PTXKIT_KERNELS_LACKS(Def) "static std::vector<NamedConfig<Config>> "               \
                                          "reference_configs()");                                  \
  static_assert(                                                                                   \
      ::ptxkit::kernels::HasValidate<Def>,                                                         \
      PTXKIT_KERNELS_LACKS(Def) "static ptxkit::Expected<void> validate(const Config&)");          \
  static_assert(::ptxkit::kernels::HasBuild<Def>,                                                  \
                PTXKIT_KERNELS_LACKS(Def) "static ptxkit::Expected<GeneratedPtx> build(const "     \
                                          "Config&, const ptxgen::Target&, const GenOptions&)");   \
  static_assert(::ptxkit::kernels::HasLaunch<Def>,                                                 \
                PTXKIT_KERNELS_LACKS(Def) "static LaunchDims launch(const Config&)");              \
  static_assert(::ptxkit::kernels::HasParams<Def>,                                                 \
                PTXKIT_KERNELS_LACKS(Def) "static std::vector<ParamSpec> params(const Config&)");  \
  static_assert(::ptxkit::kernels::HasInputs<Def>,                                                 \
                PTXKIT_KERNELS_LACKS(Def) "static HostTensors make_inputs(const Config&, "         \
                                          "std::uint64_t seed)");                                  \
  static_assert(::ptxkit::kernels::HasReference<Def>,                                              \
                PTXKIT_KERNELS_LACKS(Def) "static ptxkit::Expected<HostTensors> reference(const "  \
                                          "Config&, const HostTensors&)");                         \
  static_assert(::ptxkit::kernels::HasTolerance<Def>,                                              \
                PTXKIT_KERNELS_LACKS(Def) "static Tolerance tolerance(const Config&, const "       \
                                          "HostTensors& inputs)");                                 \
  static_assert(!::ptxkit::kernels::NamesBenchCases<Def> || ::ptxkit::kernels::HasBenchCases<Def>, \
                "kernel definition " #Def " declares bench_cases, but not as: static "             \
                "std::vector<BenchCase> bench_cases()");                                           \
  [[maybe_unused]] static const bool PTXKIT_KERNELS_CONCAT(ptxkit_kernel_registered_, __LINE__) =  \
      ::ptxkit::kernels::detail::register_definition<Def>()
