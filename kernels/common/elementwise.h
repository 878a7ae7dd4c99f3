// elementwise.h: the launch shape and index guard shared by the flat elementwise kernels
// (residual_add, swiglu): one .v4 group of 4 elements per thread, then a scalar tail.
//
// Why: an elementwise kernel is pure bandwidth, so each thread moves one 16-byte vector per
// buffer (coalesced: consecutive threads, consecutive 16-byte groups) and the grid has one thread
// per group, enough blocks to fill every SM many times over at the sizes that matter. n is baked,
// so the number of full groups (n / 4) and the tail length (n % 4, at most 3) are immediates:
// thread g < n/4 takes the .v4 path; thread g == n/4 handles the n % 4 tail elements one by one
// (scalar loads, so nothing is read past element n - 1); every other thread does nothing. The
// tail code is only emitted when n % 4 != 0. Buffers must be 16-byte aligned (cudaMalloc: 256).
#pragma once

#include <array>
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

// Threads needed for n elements: one per .v4 group, plus one for a partial group.
constexpr std::uint64_t groups_with_tail(std::uint32_t n) {
  return (std::uint64_t{n} + 3) / 4;
}

// Blocks of kThreads for n elements.
constexpr std::uint32_t blocks_for(std::uint32_t n) {
  return static_cast<std::uint32_t>((groups_with_tail(n) + kThreads - 1) / kThreads);
}

// Emits the index computation and the guard around `vec` (called with the first element index
// of this thread's group, a multiple of 4) and `scalar` (called once per tail element with its
// element index). `field` names the config field n is baked from.
template <class Vec, class Scalar>
void for_each_group(KernelBuilder& b, std::uint32_t n, const char* field, Vec vec, Scalar scalar) {
  const std::uint32_t full = n / 4;
  const std::uint32_t tail = n % 4;
  // One emitting call per statement: C++ leaves argument evaluation order unspecified, and the
  // PTX must be the same bytes whichever compiler built the generator.
  Reg<U32> tid = b.tid_x();
  Reg<U32> block = b.ctaid_x();
  Reg<U32> g = b.mad_lo(block, b.imm<U32>(kThreads), tid);
  Label done = b.new_label("done");
  Reg<Pred> in_full = b.setp(cmp::lt, g, b.baked<U32>(field, full));
  if (tail == 0) {
    b.bra_if(!in_full, done);
    vec(b.shl(g, b.imm<U32>(2)));
  } else {
    Label tail_label = b.new_label("tail");
    b.bra_if(!in_full, tail_label);
    vec(b.shl(g, b.imm<U32>(2)));
    b.bra(done);
    b.place(tail_label);
    // Only thread g == n/4 owns the partial group.
    b.bra_if(!b.setp(cmp::eq, g, b.baked<U32>(field, full)), done);
    for (std::uint32_t t = 0; t < tail; ++t)
      scalar(b.baked<U32>(field, full * 4 + t));
  }
  b.place(done);
  b.ret();
}

// A whole elementwise kernel of two f32 inputs (params `x_name`, `y_name`) and one f32 output
// ("output"): output[i] = op(b, x[i], y[i]) for i < n, n baked from the field "n".
template <class Op>
ptxkit::Expected<GeneratedPtx> build_binary(std::string_view name, const ptxgen::Target& target,
                                            const GenOptions& options, std::uint32_t n,
                                            const char* x_name, const char* y_name, Op op) {
  KernelBuilder b(std::string(name), target);
  b.reqntid(kThreads);
  auto x = b.param<Ptr<Global, const F32>>(x_name);
  auto y = b.param<Ptr<Global, const F32>>(y_name);
  auto out = b.param<Ptr<Global, F32>>("output");
  for_each_group(
      b, n, "n",
      [&](Reg<U32> e) {
        auto xv = b.ld_v4(x + e);
        auto yv = b.ld_v4(y + e);
        std::array<Reg<F32>, 4> r = xv;
        for (std::size_t j = 0; j < 4; ++j)
          r[j] = op(b, xv[j], yv[j]);
        b.st_v4(out + e, r);
      },
      [&](Imm<U32> e) {
        Reg<U32> i = b.mov(e);
        Reg<F32> xs = b.ld(x + i);
        Reg<F32> ys = b.ld(y + i);
        Reg<F32> r = op(b, xs, ys);
        b.st(out + i, r);
      });
  return finish_and_print(b, options);
}

} // namespace ptxkit::kernels::elementwise
