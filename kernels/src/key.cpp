// key.cpp: cache-key material and hash (the scheme is documented in key.h and docs/kernels.md).
#include <cassert>
#include <cstdio>
#include <cstring>
#include <ptxkit/kernels/key.h>

#ifndef PTXKIT_GENERATOR_VERSION
#error "PTXKIT_GENERATOR_VERSION must be defined by the build"
#endif

namespace ptxkit::kernels {

std::string_view generator_version() {
  return "ptxkit-" PTXKIT_GENERATOR_VERSION;
}

std::uint64_t fnv1a64(std::string_view data) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string key_material(const Kernel& kernel, const ConfigValues& values,
                         std::string_view target) {
  const auto& fields = kernel.fields();
  assert(values.size() == fields.size());
  std::string m = "ptxkit-key-v1\n";
  m += "kernel=" + std::string(kernel.name()) + "\n";
  m += "target=" + std::string(target) + "\n";
  m += "generator=" + std::string(generator_version()) + "\n";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const FieldInfo& f = fields[i];
    if (!f.spec.baked) continue;
    std::string v;
    switch (f.type) {
    case FieldType::kF32: {
      float x = std::get<float>(values[i]);
      std::uint32_t bits = 0;
      std::memcpy(&bits, &x, sizeof bits);
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%08x", bits);
      v = buf;
      break;
    }
    case FieldType::kBool:
      v = std::get<bool>(values[i]) ? "1" : "0";
      break;
    default:
      v = format_value(f, values[i]);
      break;
    }
    m += f.name + ":" + std::string(field_type_name(f.type)) + "=" + v + "\n";
  }
  return m;
}

std::string cache_key(const Kernel& kernel, const ConfigValues& values, std::string_view target) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(fnv1a64(key_material(kernel, values, target))));
  return std::string(kernel.name()) + "-" + buf;
}

} // namespace ptxkit::kernels
