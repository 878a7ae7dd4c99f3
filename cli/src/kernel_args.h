// kernel_args.h: resolving the CLI's kernel name, --set assignments and --target values.
//
// Shared by gen, key and golden so that every command gives the same exit-2 messages, each
// listing what is valid (docs/cli.md: an unknown kernel, field or bad value is exit 2 with a
// message that lists what is valid).
#pragma once

#include <ptxkit/kernels/kernel.h>
#include <ptxkit/ptxgen/expected.h>
#include <string>
#include <vector>

namespace ptxkit::cli {

// An Error without a source position.
inline ptxkit::Error make_error(std::string message) {
  return ptxkit::Error{std::move(message), {}, 0, 0};
}

// The target `gen`/`key` use when no --target is given.
inline constexpr const char* kDefaultTarget = "sm_90";

// The kernel named `name`; the error lists every kernel.
[[nodiscard]] ptxkit::Expected<const kernels::Kernel*> find_kernel(const std::string& name);

// The kernel's defaults with `assignments` applied, validated.
[[nodiscard]] ptxkit::Expected<kernels::ConfigValues>
config_from_cli(const kernels::Kernel& kernel, const std::vector<std::string>& assignments);

// A target by name ("sm_90"); the error lists every supported target.
[[nodiscard]] ptxkit::Expected<ptxgen::Target> target_from_cli(const std::string& name);

// The canonical name of a target ("sm_90a").
[[nodiscard]] std::string target_name(const ptxgen::Target& target);

// Every supported target, in the builder's order.
[[nodiscard]] std::vector<ptxgen::Target> all_targets();

} // namespace ptxkit::cli
