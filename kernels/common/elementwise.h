// elementwise.h: the launch shape and index guard shared by the flat elementwise kernels
// (residual_add, swiglu): one 16-byte group per thread (4 floats, or 8 halves), then a scalar
// tail.
//
// Why: an elementwise kernel is pure bandwidth, so each thread moves one 16-byte vector per
// buffer (coalesced: consecutive threads, consecutive 16-byte groups) and the grid has one thread
// per group, enough blocks to fill every SM many times over at the sizes that matter. n is baked,
// so the number of full groups (n / G) and the tail length (n % G, at most G - 1) are immediates:
// thread g < n/G takes the vector path; thread g == n/G handles the n % G tail elements one by
// one (scalar loads, so nothing is read past element n - 1); every other thread does nothing. The
// tail code is only emitted when n % G != 0. Buffers must be 16-byte aligned (cudaMalloc: 256).
// The buffers are of one element type E (f32, f16, bf16; common/dtype_access.h): loaded as f32,
// computed in f32, rounded once on store.
#pragma once

#include "common/dtype_access.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/kernel.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <string>
#include <string_view>

namespace ptxkit::kernels::elementwise {

using namespace ptxkit::ptxgen;

inline constexpr std::uint32_t kThreads = 256;

// Elements per group (one 16-byte access) of `dtype`: 4 floats or 8 halves.
constexpr std::uint32_t group_size(DType dtype) {
  return dtype == DType::kF32 ? 4 : 8;
}

// Threads needed for n elements: one per group of `group` elements, plus one for a partial group.
constexpr std::uint64_t groups_with_tail(std::uint32_t n, std::uint32_t group = 4) {
  return (std::uint64_t{n} + group - 1) / group;
}

// Blocks of kThreads for n elements.
constexpr std::uint32_t blocks_for(std::uint32_t n, std::uint32_t group = 4) {
  return static_cast<std::uint32_t>((groups_with_tail(n, group) + kThreads - 1) / kThreads);
}

// Emits the index computation and the guard around `vec` (called with the first element index
// of this thread's group, a multiple of `group`) and `scalar` (called once per tail element with
// its element index). `field` names the config field n is baked from.
template <class Vec, class Scalar>
void for_each_group(KernelBuilder& b, std::uint32_t n, const char* field, Vec vec, Scalar scalar,
                    std::uint32_t group = 4) {
  const std::uint32_t full = n / group;
  const std::uint32_t tail = n % group;
  const Imm<U32> shift = b.imm<U32>(static_cast<std::uint32_t>(std::countr_zero(group)));
  // One emitting call per statement: C++ leaves argument evaluation order unspecified, and the
  // PTX must be the same bytes whichever compiler built the generator.
  Reg<U32> tid = b.tid_x();
  Reg<U32> block = b.ctaid_x();
  Reg<U32> g = b.mad_lo(block, b.imm<U32>(kThreads), tid);
  Label done = b.new_label("done");
  Reg<Pred> in_full = b.setp(cmp::lt, g, b.baked<U32>(field, full));
  if (tail == 0) {
    b.bra_if(!in_full, done);
    vec(b.shl(g, shift));
  } else {
    Label tail_label = b.new_label("tail");
    b.bra_if(!in_full, tail_label);
    vec(b.shl(g, shift));
    b.bra(done);
    b.place(tail_label);
    // Only thread g == n/G owns the partial group.
    b.bra_if(!b.setp(cmp::eq, g, b.baked<U32>(field, full)), done);
    for (std::uint32_t t = 0; t < tail; ++t)
      scalar(b.baked<U32>(field, full * group + t));
  }
  b.place(done);
  b.ret();
}

// A whole elementwise kernel of two inputs (params `x_name`, `y_name`) and one output
// ("output"), all of `dtype`: output[i] = op(b, x[i], y[i]) in f32 for i < n, n baked from the
// field "n". Plain loads: out may alias an input.
template <class Op>
ptxkit::Expected<GeneratedPtx> build_binary(std::string_view name, const ptxgen::Target& target,
                                            const GenOptions& options, std::uint32_t n,
                                            const char* x_name, const char* y_name, Op op,
                                            DType dtype = DType::kF32) {
  return common::with_dtype(dtype, [&]<class E>() {
    const std::uint32_t group = group_size(dtype);
    KernelBuilder b(std::string(name), target);
    b.reqntid(kThreads);
    auto x = b.param<Ptr<Global, const E>>(x_name);
    auto y = b.param<Ptr<Global, const E>>(y_name);
    auto out = b.param<Ptr<Global, E>>("output");
    for_each_group(
        b, n, "n",
        [&](Reg<U32> e) {
          auto xv = common::load_f32<E>(b, x + e, group, common::LoadPath::kPlain);
          auto yv = common::load_f32<E>(b, y + e, group, common::LoadPath::kPlain);
          std::vector<Reg<F32>> r = xv;
          for (std::size_t j = 0; j < r.size(); ++j)
            r[j] = op(b, xv[j], yv[j]);
          common::store_f32<E>(b, out + e, r);
        },
        [&](Imm<U32> e) {
          Reg<U32> i = b.mov(e);
          Reg<F32> xs = common::load_f32<E>(b, x + i, 1, common::LoadPath::kPlain)[0];
          Reg<F32> ys = common::load_f32<E>(b, y + i, 1, common::LoadPath::kPlain)[0];
          Reg<F32> r = op(b, xs, ys);
          common::store_f32<E>(b, out + i, {r});
        },
        group);
    return finish_and_print(b, options);
  });
}

} // namespace ptxkit::kernels::elementwise
