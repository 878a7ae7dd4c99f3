// unified_diff.h: a line-based unified diff (`diff -u` format) for golden-file drift reports.
//
// Golden PTX drift must be reviewable as an ordinary diff: `ptxkit golden check` prints one per
// changed file, with 3 lines of context, as `diff -u` would.
#pragma once

#include <string>
#include <string_view>

namespace ptxkit::cli {

// The unified diff turning `before` into `after`, labelled `before_label`/`after_label`
// (`--- a`, `+++ b` lines). Empty when the texts are equal.
[[nodiscard]] std::string unified_diff(std::string_view before, std::string_view after,
                                       std::string_view before_label, std::string_view after_label,
                                       int context = 3);

} // namespace ptxkit::cli
