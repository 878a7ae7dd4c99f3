// gemv_f32_builder.cpp: gemv_f32's PTX, written on ptxgen, and its registration.
//
//   row = %ctaid.x * 4 + warp;  row >= n -> exit (whole warp)
//   unit = lane; while unit + 32*(U-1) < units: U units (W and x, ld.global.nc), fma into acc
//   (U = unroll_for(units): 8 on long rows, 4 on short ones)
//   while unit < units: 1 unit                                   (the guarded tail)
//   acc = bfly-reduce(acc); lane 0: y[row] = acc
// Batched (M = batch > 1), 2 rows per warp:
//   row0 = (%ctaid.x * 4 + warp) * 2;  row0 >= n -> exit (whole warp); row1 = min(row0 + 1, n - 1)
//   unit = lane; while unit + 32*(U-1) < units: the 2 * U units of W, then per unit the M units of
//   x (vector m at x + m * k) and the fmas: each weight into acc[row][m]
//   (U = batched_unroll(): the loads of an iteration fit beside the 2 M accumulators)
//   while unit < units: 1 unit                                   (the guarded tail)
//   acc[i][m] = bfly-reduce(acc[i][m]); lane 0: y[m * n + row_i] = acc[i][m] where row_i < n
#include "common/strided_loop.h"
#include "common/vector_access.h"
#include "common/warp_reduce.h"
#include "gemv_f32.h"

#include <memory>
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

// batch > 1: W read once for M vectors, 2 rows per warp sharing each x load. Vector m's
// accumulator of a row takes its products in batch 1's order (unit by unit, element by element)
// and goes through the same butterfly, so its sum is bitwise batch 1's.
void build_batched(KernelBuilder& b, const GemvF32Config& c) {
  const bool vec4 = c.k % 4 == 0;
  const std::uint32_t units = vec4 ? c.k / 4 : c.k;
  const std::uint32_t batch = c.batch;
  const std::uint32_t rows = GemvF32::rows_per_warp(batch);
  auto w = b.param<Ptr<Global, const F32>>("w");
  auto x = b.param<Ptr<Global, const F32>>("x");
  auto y = b.param<Ptr<Global, F32>>("y");

  Reg<U32> tid = b.tid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  // One emitting call per argument list: C++ leaves argument evaluation order unspecified.
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<U32> warp_id = b.mad_lo(b.ctaid_x(), b.imm<U32>(GemvF32::kWarps), warp);
  Reg<U32> row0 = b.mul_lo(warp_id, b.imm<U32>(rows));
  Label done = b.new_label("done");
  // Warp-uniform: the whole warp leaves, so the shuffles below always have 32 lanes.
  b.bra_if(!b.setp(cmp::lt, row0, b.baked<U32>("n", c.n)), done);

  // The warp's rows; one past n (last warp only) re-reads row n - 1 and is never stored.
  std::vector<Reg<U32>> row_ids;
  std::vector<Ptr<Global, const F32>> w_rows;
  for (std::uint32_t i = 0; i < rows; ++i) {
    Reg<U32> raw = i == 0 ? row0 : b.add(row0, b.imm<U32>(i));
    row_ids.push_back(raw);
    Reg<U32> row = i == 0 ? raw : b.min(raw, b.baked<U32>("n", c.n - 1));
    w_rows.push_back(w + b.mul_wide(row, b.baked<U32>("k", c.k))); // 64-bit: n * k > 2^32
  }

  std::vector<std::unique_ptr<Var<F32>>> acc; // [row * batch + vector]
  for (std::uint32_t i = 0; i < rows * batch; ++i)
    acc.emplace_back(new Var<F32>(b.var<F32>(b.imm<F32>(0.0f), "acc")));
  Var<U32> unit = b.var<U32>(lane, "unit");

  // The units `us` whose W is loaded (wv[j][row]): per unit, the M x units, then the fmas.
  // x's vectors lie k floats apart: the offset folds into the address.
  using Units = std::vector<std::vector<std::vector<Reg<F32>>>>; // [unit][row][element]
  auto load_w = [&](Reg<U32> u) {
    std::vector<std::vector<Reg<F32>>> per_row;
    for (std::uint32_t i = 0; i < rows; ++i)
      per_row.push_back(load_unit(b, w_rows[i], u, vec4));
    return per_row;
  };
  auto accumulate = [&](const std::vector<Reg<U32>>& us, const Units& wv) {
    std::vector<Reg<F32>> sums;
    for (const auto& v : acc)
      sums.push_back(v->read());
    for (std::size_t j = 0; j < us.size(); ++j) {
      auto x_unit = x + (vec4 ? b.shl(us[j], b.imm<U32>(2)) : us[j]);
      std::vector<std::vector<Reg<F32>>> xv; // [vector][element]
      for (std::uint32_t m = 0; m < batch; ++m)
        xv.push_back(common::load_vector(b, x_unit + std::int64_t{m} * c.k, vec4 ? 4 : 1,
                                         common::LoadPath::kReadOnly));
      for (std::uint32_t i = 0; i < rows; ++i)
        for (std::uint32_t m = 0; m < batch; ++m)
          for (std::size_t e = 0; e < wv[j][i].size(); ++e)
            sums[i * batch + m] = b.fma(wv[j][i][e], xv[m][e], sums[i * batch + m], rn);
    }
    for (std::size_t i = 0; i < acc.size(); ++i)
      acc[i]->assign(sums[i]);
  };

  // Main loop: U units per lane while all of them lie inside the row; the loads of W come first.
  const std::uint32_t kUnroll = GemvF32::batched_unroll(units, vec4, batch);
  if (units > 32 * (kUnroll - 1)) {
    common::strided_loop(b, unit, b.baked<U32>("k", units - 32 * (kUnroll - 1)),
                         b.imm<U32>(32 * kUnroll), {"main_loop", "main_done"}, [&](Reg<U32> u) {
                           std::vector<Reg<U32>> us;
                           Units wv;
                           for (std::uint32_t j = 0; j < kUnroll; ++j) {
                             us.push_back(j == 0 ? u : b.add(u, b.imm<U32>(32 * j)));
                             wv.push_back(load_w(us.back()));
                           }
                           accumulate(us, wv);
                         });
  }
  // Tail: one unit at a time, guarded by unit < units.
  common::strided_loop(b, unit, b.baked<U32>("k", units), b.imm<U32>(32),
                       {"tail_loop", "tail_done"},
                       [&](Reg<U32> u) { accumulate({u}, {load_w(u)}); });

  // A butterfly per row and vector: every lane ends with each sum; lane 0 stores the valid rows,
  // vector m's at y + m * n.
  Reg<Pred> lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  for (std::uint32_t i = 0; i < rows; ++i) {
    std::vector<Reg<F32>> sums;
    for (std::uint32_t m = 0; m < batch; ++m)
      sums.push_back(common::warp_all_sum(b, acc[i * batch + m]->read()));
    auto y_row = y + row_ids[i]; // the address outside the guard: only the stores are predicated
    Reg<Pred> store =
        i == 0 ? lane0 : b.setp_and(cmp::lt, row_ids[i], b.baked<U32>("n", c.n), lane0);
    auto only_store = b.guard(store);
    for (std::uint32_t m = 0; m < batch; ++m)
      b.st(y_row + std::int64_t{m} * c.n, sums[m]);
  }
  b.place(done);
  b.ret();
}

} // namespace

ptxkit::Expected<GeneratedPtx> GemvF32::build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
  const bool vec4 = c.k % 4 == 0;
  const std::uint32_t units = vec4 ? c.k / 4 : c.k;
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  if (c.batch > 1) {
    // Without an occupancy bound ptxas fits a batched iteration in about 40 registers by issuing
    // each W load just before its fmas: one load of W in flight per warp. At least 4 blocks per
    // SM allows up to 128 registers, and ptxas then issues all of an iteration's loads first.
    b.minnctapersm(kBatchedMinBlocksPerSm);
    build_batched(b, c);
    return finish_and_print(b, options);
  }
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
