// target.cpp: the supported-target table and Target::parse.
//
// The table was checked against ptxas 13.0 (`ptxas -arch=<t>` on a module with `.target <t>` and
// the `.version` below); tests/ptxgen assembles the every-instruction kernel for each entry.
#include "ptxkit/ptxgen/target.h"

#include "text_p.h"

#include <array>

namespace ptxkit::ptxgen {
namespace {

struct TargetInfo {
  std::string_view name;
  unsigned sm;
  bool arch_specific;
  unsigned ptx_major;
  unsigned ptx_minor;
};

constexpr std::array<TargetInfo, 15> kTargets = {{
    {"sm_80", 80, false, 8, 0},
    {"sm_86", 86, false, 8, 0},
    {"sm_87", 87, false, 8, 0},
    {"sm_88", 88, false, 8, 0},
    {"sm_89", 89, false, 8, 0},
    {"sm_90", 90, false, 8, 0},
    {"sm_90a", 90, true, 8, 0},
    {"sm_100", 100, false, 8, 6},
    {"sm_100a", 100, true, 8, 6},
    {"sm_103", 103, false, 8, 8},
    {"sm_103a", 103, true, 8, 8},
    {"sm_110", 110, false, 9, 0},
    {"sm_120", 120, false, 8, 7},
    {"sm_120a", 120, true, 8, 7},
    {"sm_121", 121, false, 8, 8},
}};

} // namespace

Expected<Target> Target::parse(std::string_view name) {
  for (unsigned i = 0; i < kTargets.size(); ++i) {
    if (kTargets[i].name == name) return Target(i);
  }
  std::string list;
  for (const TargetInfo& t : kTargets) {
    if (!list.empty()) list += ", ";
    list += t.name;
  }
  return Error{detail::cat("unsupported target '", name, "' (supported: ", list, ")"), "", 0, 0};
}

const std::vector<Target>& Target::all_supported() {
  static const std::vector<Target> all = [] {
    std::vector<Target> v;
    for (unsigned i = 0; i < kTargets.size(); ++i)
      v.push_back(Target(i));
    return v;
  }();
  return all;
}

std::string_view Target::name() const {
  return kTargets[index_].name;
}
unsigned Target::sm() const {
  return kTargets[index_].sm;
}
bool Target::arch_specific() const {
  return kTargets[index_].arch_specific;
}
unsigned Target::ptx_major() const {
  return kTargets[index_].ptx_major;
}
unsigned Target::ptx_minor() const {
  return kTargets[index_].ptx_minor;
}
std::string Target::ptx_version() const {
  return detail::cat(ptx_major(), ".", ptx_minor());
}

} // namespace ptxkit::ptxgen
