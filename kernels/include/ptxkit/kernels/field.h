// field.h: the description of one kernel-config field (name, type, default, baked, limits).
//
// A kernel config is a plain struct whose fields are visited by reflection (reflect.h). Every
// consumer that needs to know about fields (`ptxkit list`, `--set`, the cache key, the
// key-coverage proof, docs/kernels.md) reads this one description, so a field cannot be listed
// but missing from the key, or settable but unvalidated.
#pragma once

#include <cstdint>
#include <optional>
#include <ptxkit/ptxgen/expected.h>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ptxkit::kernels {

// The value types a config field may have (docs/cli.md: "u32|i32|f32|bool|enum").
enum class FieldType { kU32, kI32, kF32, kBool, kEnum };

// "u32", "i32", "f32", "bool", "enum".
[[nodiscard]] std::string_view field_type_name(FieldType type);

// What a kernel author declares about a field, beside its name and C++ type:
//   v.field("eps", c.eps, FieldSpec{.doc = "...", .min = 0.0, .max = 1.0});
//   v.field("rows", c.rows, FieldSpec{.doc = "...", .baked = false, .exempt_reason = "..."});
struct FieldSpec {
  // One line for `ptxkit list` and docs/kernels.md.
  std::string_view doc{};
  // True when the field can change the emitted PTX. Baked fields are all in the cache key;
  // a non-baked field must say why it is not (exempt_reason), and the key-coverage proof checks
  // that no baked immediate of the PTX came from it.
  bool baked = true;
  // Inclusive limits, checked for numeric fields (u32, i32, f32). NaN is always refused.
  std::optional<double> min{};
  std::optional<double> max{};
  // The minimum itself is refused: the limits are (min, max] (eps must be > 0).
  bool min_exclusive = false;
  // For u32/i32 fields: the value must be a multiple of this (0 or 1: any).
  std::uint32_t multiple_of = 0;
  // Required for a non-baked field: why it is not part of the cache key.
  std::string_view exempt_reason{};
};

// An enum field's value is the index into its value names.
struct EnumValue {
  std::uint32_t index = 0;
  friend bool operator==(const EnumValue&, const EnumValue&) = default;
};

// A field's value, type-erased; the alternative always matches the field's FieldType.
using FieldValue = std::variant<std::uint32_t, std::int32_t, float, bool, EnumValue>;

// The reflected description of one field.
struct FieldInfo {
  std::string name;
  FieldType type = FieldType::kU32;
  FieldSpec spec;
  FieldValue default_value;
  std::vector<std::string> enum_values; // kEnum only, in index order
};

// A number in the shortest form that reads back to the same value (1e-06, 10000, 0.1): how
// values appear in messages, never %f's 0.000000.
[[nodiscard]] std::string number_text(double v);
[[nodiscard]] std::string number_text(float v);

// The value of `value` as text: integers in decimal, bools as true/false, enums by name, floats in
// the shortest form that reads back to the same bits (std::to_chars).
[[nodiscard]] std::string format_value(const FieldInfo& field, const FieldValue& value);

// Parses `text` as a value of `field`: u32/i32 in decimal (or 0x hex), f32 in any strtof form,
// bool as true/false/1/0, enum by name. Errors name the field, the text and what is accepted.
// Limits are not checked here (check_limits does that).
[[nodiscard]] ptxkit::Expected<FieldValue> parse_value(const FieldInfo& field,
                                                       std::string_view text);

// Checks `value` against the field's declared limits; the error names the field, the value and
// the valid range.
[[nodiscard]] ptxkit::Expected<void> check_limits(const FieldInfo& field, const FieldValue& value);

// "[1, 128], multiple of 32" style text for the field's limits ("any" when it has none).
[[nodiscard]] std::string describe_limits(const FieldInfo& field);

// The FieldType of a value.
[[nodiscard]] FieldType type_of(const FieldValue& value);

} // namespace ptxkit::kernels
