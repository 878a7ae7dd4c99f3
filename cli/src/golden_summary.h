// golden_summary.h: what a golden file's change amounts to, in two lines above its diff.
//
// Why: a generator change can touch hundreds of golden lines; a reviewer (often in another
// project, reviewing the golden files of its own kernels) first needs to know which instance
// changed, whether its cache key moved, and whether the instruction mix and register budget
// grew, before reading the diff itself. The classification is line-based on purpose: golden
// files are generator output, one instruction per line, so no parser is needed to count them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace ptxkit::cli {

// The parts of a PTX text a reviewer compares.
struct PtxShape {
  // Instruction lines per opcode, modifiers included ("fma.rn.f32"); a guard (@%p1) is skipped.
  // Directives, labels, braces, parameter lists and comments are not instructions.
  std::map<std::string, std::uint64_t> opcodes;
  // Registers declared per class: `.reg .f32 %f<54>;` adds 54 to "%f"; `.reg .b32 %x;` adds 1 to
  // "%x" (digits at the end of a plain name are dropped, so %t1 and %t2 are both "%t").
  std::map<std::string, std::uint64_t> registers;
};

[[nodiscard]] PtxShape ptx_shape(std::string_view ptx);

// "+2 fma.rn.f32, +1 add.f32, -1 mul.f32": every opcode whose count changed, the largest change
// first, then by name; "unchanged" when none did.
[[nodiscard]] std::string instruction_changes(const PtxShape& before, const PtxShape& after);

// "%f 24 -> 26, %r 10 -> 12": every register class whose count changed (absent counts as 0), by
// name; "unchanged" when none did.
[[nodiscard]] std::string register_changes(const PtxShape& before, const PtxShape& after);

// The two lines (each ending in '\n') printed above the diff of a golden file that changed from
// `before` to `after`, both whole golden files with their `// ptxkit golden:` lines:
//   kernel=K config=T target=S key=OLD -> NEW        (or key=KEY (unchanged))
//   instructions: <instruction_changes>; registers: <register_changes>
// Kernel, config and target come from the new header (the old one when the new has none); a field
// neither header gives, or a key missing on one side, prints as "?".
[[nodiscard]] std::string golden_change_summary(std::string_view before, std::string_view after);

} // namespace ptxkit::cli
