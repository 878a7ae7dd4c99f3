// ptxgen_test_util.h: what the builder's tests share.
#pragma once

#include "ptxkit/ptxgen/target.h"

namespace ptxkit::ptxgen {

// A supported target by name ("sm_90"); the tests name only supported ones.
inline Target target(const char* name) {
  return Target::parse(name).value();
}

} // namespace ptxkit::ptxgen
