// tensor_core_tile.h: a one-warp kernel that multiplies a 16x16 bf16 tile by a 16x8 one on the
// tensor cores: cp.async stages both tiles in shared memory, ldmatrix loads the fragments and
// mma.sync m16n8k16 accumulates in f32. The builder test of the matrix and async-copy families
// used together as a kernel uses them (test_tensor_core_tile.cpp assembles it with ptxas).
#pragma once

#include "ptxkit/ptxgen/ptxgen.h"

namespace ptxkit::ptxgen::testing {

// .entry bf16_tile_mma(a, b, d): d (16x8 f32, row-major) = a (16x16 bf16, row-major) times
// b (16x8 bf16, row-major), launched as one warp (32 threads).
Expected<Kernel> build_bf16_tile_mma(Target target);

} // namespace ptxkit::ptxgen::testing
