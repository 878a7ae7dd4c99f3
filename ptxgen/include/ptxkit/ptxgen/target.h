// target.h: the GPU targets ptxkit generates for, and the PTX ISA version each one is printed with.
//
// Only targets ptxas 13.0 accepts are listed (checked by assembling with each). The `.version` is
// the oldest PTX ISA that both the target and the builder's instruction set need: 8.0 for
// sm_80..sm_90a (the builder uses PTX 7.8/8.0 forms such as cvt with .bf16), and the minimum the
// target itself requires above that (sm_100: 8.6, sm_120: 8.7, sm_103/sm_121: 8.8, sm_110: 9.0).
// The arch-conditional `f` variants are not listed: nothing here uses family features.
#pragma once

#include "ptxkit/ptxgen/expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::ptxgen {

class Target {
public:
  // "sm_90a" -> Target; an unsupported name is an error listing the supported ones.
  static Expected<Target> parse(std::string_view name);
  // Every supported target, in ascending order (sm_80 first).
  static const std::vector<Target>& all_supported();

  std::string_view name() const;   // "sm_90a"
  unsigned sm() const;             // 90 for sm_90 and sm_90a
  bool arch_specific() const;      // the `a` suffix
  unsigned ptx_major() const;      // 8 for `.version 8.0`
  unsigned ptx_minor() const;      // 0 for `.version 8.0`
  std::string ptx_version() const; // "8.0"

  friend bool operator==(const Target& a, const Target& b) { return a.index_ == b.index_; }

private:
  explicit Target(unsigned index) : index_(index) {}
  unsigned index_;
};

} // namespace ptxkit::ptxgen
