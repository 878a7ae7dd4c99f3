// gemv_batch.h: the `batch` field of the dense GEMVs (gemv_f32, gemv_half), stated once.
//
// A decoder that steps M sequences at once multiplies every weight matrix by M activation
// vectors. Launching a batch-1 GEMV M times reads the weights M times; with `batch` = M the
// kernel reads each weight once and multiplies it into M accumulators. x is [batch, k] and y is
// [batch, n], row-major, each vector contiguous. Baked: the accumulator count and the vectors'
// offsets are in the PTX.
#pragma once

#include <cstdint>
#include <ptxkit/kernels/field.h>

namespace ptxkit::kernels::common {

// The most vectors one launch takes: 8 keeps the accumulators (and the x words of a step) in
// registers without spills at sm_90.
inline constexpr std::uint32_t kGemvMaxBatch = 8;

constexpr FieldSpec gemv_batch_field() {
  return FieldSpec{.doc = "activation vectors per launch (x [batch, k], y [batch, n]): each "
                          "weight is read once and multiplied into batch accumulators",
                   .min = 1.0,
                   .max = double{kGemvMaxBatch}};
}

} // namespace ptxkit::kernels::common
