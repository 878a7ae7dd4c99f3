// error_p.h: private helper of the kernels library for building ptxkit::Error values.
#pragma once

#include <ptxkit/ptxgen/expected.h>
#include <string>

namespace ptxkit::kernels {

// An Error without a source position (config and input errors have none).
inline ptxkit::Error fail(std::string message) {
  return ptxkit::Error{std::move(message), {}, 0, 0};
}

} // namespace ptxkit::kernels
