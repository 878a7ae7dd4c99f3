// nearest_name.h: "did you mean" for names a user types (commands, kernels, fields).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

// The name of `names` closest to `word` when one is close enough to be the intended one: at most
// two edits away (insertions, deletions, substitutions; fewer for short words), or one that
// starts with `word`. nullopt when none is.
[[nodiscard]] std::optional<std::string> nearest_name(std::string_view word,
                                                      const std::vector<std::string>& names);

// " (did you mean 'NAME'?)" for the nearest name, or "" when none is close.
[[nodiscard]] std::string did_you_mean(std::string_view word,
                                       const std::vector<std::string>& names);

} // namespace ptxkit::kernels
