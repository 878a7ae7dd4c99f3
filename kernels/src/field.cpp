// field.cpp: parsing, printing and limit checks of config field values.
//
// Floats print in the shortest form that reads back to the same bits, so a value shown by
// `ptxkit list` can be pasted into `--set` and reproduce the same key.
#include "error_p.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <ptxkit/kernels/field.h>
#include <string>

namespace ptxkit::kernels {

std::string number_text(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  return std::string(buf, end);
}

std::string number_text(float v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  return std::string(buf, end);
}

namespace {

std::string format_number(double v) {
  return number_text(v);
}

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}

ptxkit::Expected<std::int64_t> parse_integer(const FieldInfo& field, std::string_view text) {
  std::string s(text);
  if (s.empty()) return fail("field '" + field.name + "': empty value, expected an integer");
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 0);
  if (end != s.c_str() + s.size())
    return fail("field '" + field.name + "' (" + std::string(field_type_name(field.type)) +
                "): " + quoted(text) + " is not an integer");
  if (errno == ERANGE) // an integer, but beyond any field's range: said as such
    return fail("field '" + field.name + "' (" + std::string(field_type_name(field.type)) +
                "): " + quoted(text) + " is out of range");
  return static_cast<std::int64_t>(v);
}

} // namespace

std::string_view field_type_name(FieldType type) {
  switch (type) {
  case FieldType::kU32:
    return "u32";
  case FieldType::kI32:
    return "i32";
  case FieldType::kF32:
    return "f32";
  case FieldType::kBool:
    return "bool";
  case FieldType::kEnum:
    return "enum";
  }
  return "?";
}

FieldType type_of(const FieldValue& value) {
  switch (value.index()) {
  case 0:
    return FieldType::kU32;
  case 1:
    return FieldType::kI32;
  case 2:
    return FieldType::kF32;
  case 3:
    return FieldType::kBool;
  default:
    return FieldType::kEnum;
  }
}

std::string format_value(const FieldInfo& field, const FieldValue& value) {
  switch (type_of(value)) {
  case FieldType::kU32:
    return std::to_string(std::get<std::uint32_t>(value));
  case FieldType::kI32:
    return std::to_string(std::get<std::int32_t>(value));
  case FieldType::kF32: {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, std::get<float>(value));
    (void)ec;
    return std::string(buf, end);
  }
  case FieldType::kBool:
    return std::get<bool>(value) ? "true" : "false";
  case FieldType::kEnum: {
    std::uint32_t i = std::get<EnumValue>(value).index;
    if (i < field.enum_values.size()) return field.enum_values[i];
    return "#" + std::to_string(i);
  }
  }
  return "?";
}

ptxkit::Expected<FieldValue> parse_value(const FieldInfo& field, std::string_view text) {
  switch (field.type) {
  case FieldType::kU32: {
    auto v = parse_integer(field, text);
    if (!v) return v.error();
    if (*v < 0 || *v > std::numeric_limits<std::uint32_t>::max())
      return fail("field '" + field.name + "' (u32): " + quoted(text) +
                  " is outside [0, 4294967295]");
    return FieldValue{static_cast<std::uint32_t>(*v)};
  }
  case FieldType::kI32: {
    auto v = parse_integer(field, text);
    if (!v) return v.error();
    if (*v < std::numeric_limits<std::int32_t>::min() ||
        *v > std::numeric_limits<std::int32_t>::max())
      return fail("field '" + field.name + "' (i32): " + quoted(text) +
                  " is outside [-2147483648, 2147483647]");
    return FieldValue{static_cast<std::int32_t>(*v)};
  }
  case FieldType::kF32: {
    std::string s(text);
    errno = 0;
    char* end = nullptr;
    float v = s.empty() ? 0.0f : std::strtof(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size())
      return fail("field '" + field.name + "' (f32): " + quoted(text) +
                  " is not a float (any strtof form, e.g. 1e-6, 10000.0, 0x1p-20)");
    if (errno == ERANGE && std::isinf(v))
      return fail("field '" + field.name + "' (f32): " + quoted(text) +
                  " overflows a 32-bit float");
    // Too small for a float: silently 0 (or a denormal) would then be refused, or worse used,
    // as a value the user never wrote.
    if (errno == ERANGE)
      return fail("field '" + field.name + "' (f32): " + quoted(text) +
                  " underflows a 32-bit float (the smallest normal one is 1.1754944e-38)");
    return FieldValue{v};
  }
  case FieldType::kBool: {
    if (text == "true" || text == "1") return FieldValue{true};
    if (text == "false" || text == "0") return FieldValue{false};
    return fail("field '" + field.name + "' (bool): " + quoted(text) +
                " is not a bool (true, false, 1, 0)");
  }
  case FieldType::kEnum: {
    for (std::size_t i = 0; i < field.enum_values.size(); ++i)
      if (field.enum_values[i] == text) return FieldValue{EnumValue{static_cast<std::uint32_t>(i)}};
    std::string valid;
    for (const auto& n : field.enum_values)
      valid += (valid.empty() ? "" : ", ") + n;
    return fail("field '" + field.name + "' (enum): " + quoted(text) + " is not one of: " + valid);
  }
  }
  return fail("field '" + field.name + "': unknown type");
}

std::string describe_limits(const FieldInfo& field) {
  std::string out;
  if (field.type == FieldType::kEnum) {
    for (const auto& n : field.enum_values)
      out += (out.empty() ? "" : "|") + n;
    return out;
  }
  if (field.type == FieldType::kBool) return "true|false";
  const auto& s = field.spec;
  if (s.min || s.max) {
    out = std::string(s.min && s.min_exclusive ? "(" : "[") +
          (s.min ? format_number(*s.min) : std::string("-inf")) + ", " +
          (s.max ? format_number(*s.max) : std::string("inf")) + "]";
  }
  if (s.multiple_of > 1) {
    out += (out.empty() ? "" : ", ") + std::string("multiple of ") + std::to_string(s.multiple_of);
  }
  return out.empty() ? "any" : out;
}

ptxkit::Expected<void> check_limits(const FieldInfo& field, const FieldValue& value) {
  if (type_of(value) != field.type)
    return fail("field '" + field.name + "': value of type " +
                std::string(field_type_name(type_of(value))) + ", expected " +
                std::string(field_type_name(field.type)));
  double v = 0;
  switch (field.type) {
  case FieldType::kU32:
    v = std::get<std::uint32_t>(value);
    break;
  case FieldType::kI32:
    v = std::get<std::int32_t>(value);
    break;
  case FieldType::kF32:
    v = std::get<float>(value);
    break;
  case FieldType::kBool:
    return {};
  case FieldType::kEnum:
    if (std::get<EnumValue>(value).index >= field.enum_values.size())
      return fail("field '" + field.name + "': enum index out of range");
    return {};
  }
  const auto& s = field.spec;
  bool below = s.min && (s.min_exclusive ? v <= *s.min : v < *s.min);
  bool bad = std::isnan(v) || below || (s.max && v > *s.max);
  if (!bad && s.multiple_of > 1 && field.type == FieldType::kU32)
    bad = std::get<std::uint32_t>(value) % s.multiple_of != 0;
  if (!bad && s.multiple_of > 1 && field.type == FieldType::kI32)
    bad = std::get<std::int32_t>(value) % static_cast<std::int32_t>(s.multiple_of) != 0;
  if (bad)
    return fail("field '" + field.name + "' = " + format_value(field, value) +
                " is outside its limits: valid is " + describe_limits(field));
  return {};
}

} // namespace ptxkit::kernels
