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

#define PTXKIT_KERNELS_CONCAT_(a, b) a##b
#define PTXKIT_KERNELS_CONCAT(a, b) PTXKIT_KERNELS_CONCAT_(a, b)
// Registers KernelAdapter<Def> at static-initialization time. Use once per kernel, at namespace
// scope in the kernel's builder file.
#define PTXKIT_REGISTER_KERNEL(Def)                                                                \
  [[maybe_unused]] static const bool PTXKIT_KERNELS_CONCAT(ptxkit_kernel_registered_, __LINE__) =  \
      ::ptxkit::kernels::KernelRegistry::add(                                                      \
          std::make_unique<::ptxkit::kernels::KernelAdapter<Def>>())
