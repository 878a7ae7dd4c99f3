// gemv_f32_builder.cpp: gemv_f32's PTX, written on ptxgen, and its registration.
//
//   row = %ctaid.x * 4 + warp;  row >= n -> exit (whole warp)
//   unit = lane; while unit + 32*(U-1) < units: U units (W and x, ld.global.nc), fma into acc
//   (U = unroll_for(units): 8 on long rows, 4 on short ones)
//   while unit < units: 1 unit                                   (the guarded tail)
//   acc = bfly-reduce(acc); lane 0: y[row] = acc
#include "common/strided_loop.h"
#include "common/vector_access.h"
#include "common/warp_reduce.h"
#include "gemv_f32.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

// W and x are read-only for the whole launch (y must not alias them).
std::vector<Reg<F32>> load_unit(KernelBuilder& b, Ptr<Global, const F32> base, Reg<U32> unit,
                                bool vec4) {
  return common::load_unit(b, base, unit, vec4, common::LoadPath::kReadOnly);
}

} // namespace

ptxkit::Expected<GeneratedPtx> GemvF32::build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
  const bool vec4 = c.k % 4 == 0;
  const std::uint32_t units = vec4 ? c.k / 4 : c.k;
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  auto w = b.param<Ptr<Global, const F32>>("w");
  auto x = b.param<Ptr<Global, const F32>>("x");
  auto y = b.param<Ptr<Global, F32>>("y");

  Reg<U32> tid = b.tid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  // One emitting call per argument list: C++ leaves argument evaluation order unspecified.
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<U32> row = b.mad_lo(b.ctaid_x(), b.imm<U32>(kWarps), warp);
  Label done = b.new_label("done");
  // Warp-uniform: the whole warp leaves, so the shuffles below always have 32 lanes.
  b.bra_if(!b.setp(cmp::lt, row, b.baked<U32>("n", c.n)), done);
  auto w_row = w + b.mul_wide(row, b.baked<U32>("k", c.k)); // 64-bit: n * k may exceed 2^32
  const Imm<U32> units_imm = b.baked<U32>("k", units);

  Var<F32> acc = b.var<F32>(b.imm<F32>(0.0f), "acc");
  Var<U32> unit = b.var<U32>(lane, "unit");
  auto accumulate = [&](Reg<F32> sum, const std::vector<Reg<F32>>& wv,
                        const std::vector<Reg<F32>>& xv) {
    for (std::size_t e = 0; e < wv.size(); ++e)
      sum = b.fma(wv[e], xv[e], sum, rn);
    return sum;
  };

  // Main loop: kUnroll units per lane while all of them lie inside the row.
  const std::uint32_t kUnroll = unroll_for(units);
  if (units > 32 * (kUnroll - 1)) {
    common::strided_loop(b, unit, b.baked<U32>("k", units - 32 * (kUnroll - 1)),
                         b.imm<U32>(32 * kUnroll), {"main_loop", "main_done"}, [&](Reg<U32> u) {
                           std::vector<std::vector<Reg<F32>>> wv, xv;
                           for (std::uint32_t j = 0; j < kUnroll;
                                ++j) { // all loads first: kUnroll in flight
                             Reg<U32> uj = j == 0 ? u : b.add(u, b.imm<U32>(32 * j));
                             wv.push_back(load_unit(b, w_row, uj, vec4));
                             xv.push_back(load_unit(b, x, uj, vec4));
                           }
                           Reg<F32> sum = acc.read();
                           for (std::uint32_t j = 0; j < kUnroll; ++j)
                             sum = accumulate(sum, wv[j], xv[j]);
                           acc.assign(sum);
                         });
  }
  // Tail: one unit at a time, guarded by unit < units.
  common::strided_loop(b, unit, units_imm, b.imm<U32>(32), {"tail_loop", "tail_done"},
                       [&](Reg<U32> u) {
                         std::vector<Reg<F32>> wv = load_unit(b, w_row, u, vec4);
                         std::vector<Reg<F32>> xv = load_unit(b, x, u, vec4);
                         acc.assign(accumulate(acc.read(), wv, xv));
                       });

  // Butterfly reduction: every lane ends with the row's sum; lane 0 stores it.
  Reg<F32> sum = common::warp_all_sum(b, acc.read());
  auto y_row = y + row; // the address outside the guard: only the store is predicated
  {
    auto only_lane0 = b.guard(b.setp(cmp::eq, lane, b.imm<U32>(0)));
    b.st(y_row, sum);
  }
  b.place(done);
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(GemvF32);

} // namespace ptxkit::kernels
