// perturb.h: test helper: nearby valid values of a config field (for key and PTX invariance tests).
#pragma once

#include <cmath>
#include <optional>
#include <ptxkit/kernels/kernel.h>
#include <vector>

namespace ptxkit::kernels::testing {

// Candidate values next to values[i]: 1 ulp either side for f32, a step of the field's multiple
// (or 1) and doubling/halving for integers, the other value for bools, every other enum value.
inline std::vector<FieldValue> neighbours(const FieldInfo& f, const FieldValue& v) {
  std::vector<FieldValue> out;
  switch (f.type) {
  case FieldType::kF32: {
    float x = std::get<float>(v);
    out.push_back(std::nextafter(x, INFINITY));
    out.push_back(std::nextafter(x, -INFINITY));
    break;
  }
  case FieldType::kU32: {
    std::uint32_t x = std::get<std::uint32_t>(v);
    std::uint32_t step = f.spec.multiple_of > 1 ? f.spec.multiple_of : 1;
    out.push_back(x + step);
    if (x >= step) out.push_back(x - step);
    out.push_back(x * 2);
    out.push_back(x / 2);
    // Further away, nearest first, for fields whose next values all break a cross-field rule
    // (14 query heads over 2 KV heads: 13, 15 and 7 do not divide, 28 overflows shared memory;
    // the KV heads of 14 query heads: only 7 divides and keeps the group small enough).
    for (std::uint32_t k = 2; k <= 64; ++k) {
      out.push_back(x + k * step);
      if (x >= k * step) out.push_back(x - k * step);
    }
    break;
  }
  case FieldType::kI32: {
    std::int32_t x = std::get<std::int32_t>(v);
    out.push_back(x + 1);
    out.push_back(x - 1);
    break;
  }
  case FieldType::kBool:
    out.push_back(!std::get<bool>(v));
    break;
  case FieldType::kEnum:
    for (std::uint32_t k = 0; k < f.enum_values.size(); ++k)
      if (k != std::get<EnumValue>(v).index) out.push_back(EnumValue{k});
    break;
  }
  return out;
}

// The config `values` with field i moved to the first neighbour that keeps the config valid.
inline std::optional<ConfigValues> perturbed(const Kernel& k, const ConfigValues& values,
                                             std::size_t i) {
  for (const FieldValue& n : neighbours(k.fields()[i], values[i])) {
    ConfigValues copy = values;
    copy[i] = n;
    if (k.validate(copy)) return copy;
  }
  return std::nullopt;
}

// Every config a kernel is tested at: its defaults and its reference configs.
inline std::vector<ConfigValues> test_configs(const Kernel& k) {
  std::vector<ConfigValues> out{k.defaults()};
  for (const auto& r : k.reference_configs())
    out.push_back(r.values);
  return out;
}

} // namespace ptxkit::kernels::testing
