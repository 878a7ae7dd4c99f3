// reflect.h: reflection over kernel config structs through their `visit` function.
//
// A config declares its fields once:
//
//   struct RmsNormConfig {
//     std::uint32_t hidden = 896;
//     float eps = 1e-6f;
//     template <class V, class Self> static void visit(V& v, Self& c) {
//       v.field("hidden", c.hidden, FieldSpec{.doc = "...", .min = 4, .multiple_of = 4});
//       v.field("eps", c.eps, FieldSpec{.doc = "...", .min = 0.0});
//     }
//   };
//
// and the visitors here turn that into a description (describe), a type-erased value list
// (to_values) and back (from_values). Field types map to FieldType: std::uint32_t -> u32,
// std::int32_t -> i32, float -> f32, bool -> bool, and an enum E -> enum, where E's value names
// come from an ADL function `std::span<const std::string_view> ptxkit_enum_names(E)` whose i-th
// name is the enumerator with underlying value i.
#pragma once

#include <cassert>
#include <concepts>
#include <cstdint>
#include <ptxkit/kernels/field.h>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ptxkit::kernels {

// The type-erased values of one config, in declaration order (aligned with describe<C>()).
using ConfigValues = std::vector<FieldValue>;

namespace detail {

template <class T>
concept ReflectedEnum = std::is_enum_v<T> && requires(T e) {
  { ptxkit_enum_names(e) } -> std::convertible_to<std::span<const std::string_view>>;
};

template <class T>
constexpr FieldType field_type_of() {
  if constexpr (std::is_same_v<T, std::uint32_t>) {
    return FieldType::kU32;
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return FieldType::kI32;
  } else if constexpr (std::is_same_v<T, float>) {
    return FieldType::kF32;
  } else if constexpr (std::is_same_v<T, bool>) {
    return FieldType::kBool;
  } else {
    static_assert(ReflectedEnum<T>, "a config field must be std::uint32_t, std::int32_t, float, "
                                    "bool, or an enum with ptxkit_enum_names()");
    return FieldType::kEnum;
  }
}

template <class T>
FieldValue to_field_value(const T& v) {
  if constexpr (std::is_enum_v<T>) {
    return EnumValue{static_cast<std::uint32_t>(v)};
  } else {
    return FieldValue{v};
  }
}

template <class T>
T from_field_value(const FieldValue& v) {
  if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(std::get<EnumValue>(v).index);
  } else {
    return std::get<T>(v);
  }
}

class Describer {
public:
  template <class T>
  void field(std::string_view name, T& value, const FieldSpec& spec) {
    FieldInfo info;
    info.name = std::string(name);
    info.type = field_type_of<T>();
    info.spec = spec;
    info.default_value = to_field_value(value);
    if constexpr (std::is_enum_v<T>) {
      for (std::string_view n : std::span<const std::string_view>(ptxkit_enum_names(value)))
        info.enum_values.emplace_back(n);
    }
    // A non-baked field must say why it is not in the key (FieldSpec::exempt_reason).
    assert(spec.baked || !spec.exempt_reason.empty());
    fields.push_back(std::move(info));
  }
  std::vector<FieldInfo> fields;
};

class Reader {
public:
  template <class T>
  void field(std::string_view, T& value, const FieldSpec&) {
    values.push_back(to_field_value(value));
  }
  ConfigValues values;
};

class Writer {
public:
  explicit Writer(const ConfigValues& values) : values_(values) {}
  template <class T>
  void field(std::string_view, T& value, const FieldSpec&) {
    assert(next_ < values_.size());
    value = from_field_value<T>(values_[next_++]);
  }

private:
  const ConfigValues& values_;
  std::size_t next_ = 0;
};

} // namespace detail

// The fields of config type C, with C{}'s values as defaults.
template <class C>
std::vector<FieldInfo> describe() {
  C c{};
  detail::Describer d;
  C::visit(d, c);
  return std::move(d.fields);
}

// The values of `config`, in declaration order.
template <class C>
ConfigValues to_values(const C& config) {
  C copy = config;
  detail::Reader r;
  C::visit(r, copy);
  return std::move(r.values);
}

// The config whose fields hold `values` (which must come from to_values or be checked against
// describe<C>(); the types must match).
template <class C>
C from_values(const ConfigValues& values) {
  C c{};
  detail::Writer w(values);
  C::visit(w, c);
  return c;
}

} // namespace ptxkit::kernels
