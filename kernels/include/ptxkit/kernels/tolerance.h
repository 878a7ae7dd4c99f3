// tolerance.h: how close a kernel's device output must be to its CPU reference, and why.
//
// Every kernel states its own (the `tolerance` member of its definition, kernel.h), so a device
// result is judged the same way by `ptxkit run`, `ptxkit bench` and the device tests, and a kernel
// defined outside this repository needs no edit of ptxkit to be judged. An element passes when
// |got - want| <= abs + rel * |want|; a NaN where the reference is finite never passes (outputs are
// poisoned with NaN before a launch). One tolerance covers every output of a kernel.
//
// References accumulate in double; kernels in f32, with the hardware's approximate ex2, rsqrt,
// sin and cos where they say so. A tolerance is the f32 error such a kernel can have, with a
// margin, and far below what an indexing, stride or rescale error produces (those are O(1));
// kernels that only move bits (copies, gathers, selections) state 0.
#pragma once

#include <string_view>

namespace ptxkit::kernels {

struct Tolerance {
  double abs = 0;
  double rel = 0;
  // One line on where the error comes from (e.g. "f32 tree sum, rsqrt.approx"); a literal, since
  // it outlives the call that returned it.
  std::string_view why{};
};

} // namespace ptxkit::kernels
