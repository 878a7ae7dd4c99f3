// assign.h: `FIELD=VALUE` assignments (the CLI's --set) applied to a kernel's config values.
//
// Shared by `ptxkit gen`, `key`, `run` and anything else that accepts --set, so every command
// accepts the same spellings and gives the same errors: an unknown field lists the kernel's
// fields with their types and limits; a bad value says what is valid.
#pragma once

#include <ptxkit/kernels/kernel.h>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

// Applies one "FIELD=VALUE" to `values` (parse and per-field limits; cross-field rules are left
// to Kernel::validate).
[[nodiscard]] ptxkit::Expected<void> apply_assignment(const Kernel& kernel, ConfigValues& values,
                                                      std::string_view assignment);

// Defaults, then each assignment in order, then Kernel::validate.
[[nodiscard]] ptxkit::Expected<ConfigValues>
config_from_assignments(const Kernel& kernel, const std::vector<std::string>& assignments);

// "hidden (u32, [4, 65536], multiple of 4), eps (f32, ...)" for error messages.
[[nodiscard]] std::string describe_fields(const Kernel& kernel);

} // namespace ptxkit::kernels
