// key_lint_values.cpp: the values the differential key proof tries for each field.
//
// A key that hashes a float's decimal text with too few digits, or rounds it, maps neighbouring
// floats to one key while the PTX (which prints the exact bits, 0f358637BD) differs: so floats are
// tried one and two ulps away in both directions. Integer keys that drop low bits, or only hold
// the value up to a multiple, are caught by +-1 and +-multiple_of. The boundaries of the valid
// range (and one step inside them) exercise the code paths kernels switch on at their limits.
// Values the config validation refuses are kept here; the proof counts them as refused.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ptxkit/kernels/key_lint.h>

namespace ptxkit::kernels {
namespace {

bool same_value(const FieldValue& a, const FieldValue& b) {
  if (a.index() != b.index()) return false;
  if (const float* fa = std::get_if<float>(&a)) {
    float fb = std::get<float>(b);
    return std::memcmp(fa, &fb, sizeof fb) == 0; // bits: -0.0 differs from 0.0
  }
  return a == b;
}

void add_unique(std::vector<FieldValue>& out, const FieldValue& base, const FieldValue& v) {
  if (same_value(v, base)) return;
  for (const auto& o : out)
    if (same_value(o, v)) return;
  out.push_back(v);
}

template <class T>
void add_integers(std::vector<FieldValue>& out, const FieldInfo& f, T base) {
  using L = std::numeric_limits<T>;
  const double lo = f.spec.min ? std::max(*f.spec.min, double(L::min())) : double(L::min());
  const double hi = f.spec.max ? std::min(*f.spec.max, double(L::max())) : double(L::max());
  const std::int64_t step = f.spec.multiple_of > 1 ? f.spec.multiple_of : 1;
  std::vector<std::int64_t> candidates = {std::int64_t(base) + 1,
                                          std::int64_t(base) - 1,
                                          std::int64_t(base) + step,
                                          std::int64_t(base) - step,
                                          std::int64_t(base) * 2,
                                          std::int64_t(base) / 2 / step * step,
                                          std::int64_t(lo),
                                          std::int64_t(lo) + step,
                                          std::int64_t(hi),
                                          std::int64_t(hi) - step,
                                          std::int64_t(hi) / step * step};
  for (std::int64_t c : candidates) {
    if (c < std::int64_t(L::min()) || c > std::int64_t(L::max())) continue;
    add_unique(out, FieldValue{T(base)}, FieldValue{static_cast<T>(c)});
  }
}

void add_floats(std::vector<FieldValue>& out, const FieldInfo& f, float base) {
  const float inf = std::numeric_limits<float>::infinity();
  // Limits beyond the float range are clamped before the conversion (which would be undefined).
  const double fmax = std::numeric_limits<float>::max();
  const float lo = static_cast<float>(std::clamp(f.spec.min.value_or(-fmax), -fmax, fmax));
  const float hi = static_cast<float>(std::clamp(f.spec.max.value_or(fmax), -fmax, fmax));
  const float up = std::nextafter(base, inf);
  const float down = std::nextafter(base, -inf);
  std::vector<float> candidates = {up,
                                   down,
                                   std::nextafter(up, inf),
                                   std::nextafter(down, -inf),
                                   base * 2.0f,
                                   base * 0.5f,
                                   base * 10.0f,
                                   lo,
                                   std::nextafter(lo, inf),
                                   hi,
                                   std::nextafter(hi, -inf),
                                   0.0f,
                                   1.0f};
  for (float c : candidates) {
    if (!std::isfinite(c)) continue;
    add_unique(out, FieldValue{base}, FieldValue{c});
  }
}

} // namespace

std::vector<FieldValue> perturbations(const FieldInfo& field, const FieldValue& base) {
  std::vector<FieldValue> out;
  switch (field.type) {
  case FieldType::kU32:
    add_integers(out, field, std::get<std::uint32_t>(base));
    break;
  case FieldType::kI32:
    add_integers(out, field, std::get<std::int32_t>(base));
    break;
  case FieldType::kF32:
    add_floats(out, field, std::get<float>(base));
    break;
  case FieldType::kBool:
    out.push_back(FieldValue{!std::get<bool>(base)});
    break;
  case FieldType::kEnum:
    for (std::uint32_t i = 0; i < field.enum_values.size(); ++i)
      add_unique(out, base, FieldValue{EnumValue{i}});
    break;
  }
  return out;
}

} // namespace ptxkit::kernels
