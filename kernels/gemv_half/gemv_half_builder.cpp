// gemv_half_builder.cpp: gemv_half's PTX, written on ptxgen, and its registration.
//
//   row0 = (%ctaid.x * 4 + warp) * R;  row0 >= n -> exit (whole warp)
//   row i of the warp: min(row0 + i, n - 1)                      (R rows, R = rows_per_warp())
//   unit = lane; while unit < full batches' end: U steps: x units, then R * U W units
//   (ld.global.nc, 16 bytes each when k % 8 == 0), then the fmas, each word widened at its fma,
//   into two accumulators per row
//   the rest: one batch of the remaining full steps and the partial step (clamped, zeroed)
//   acc_i = bfly-reduce(acc_i_even + acc_i_odd)
//   lane 0: y[row0 + i] = round(acc_i) where row0 + i < n
// Batched (M = batch > 1): a group's R * U W units are loaded first, then step by step the M x
// units (vector m at x + m * k) and the fmas, each W word widened once and multiplied into the M
// vectors' accumulators (two per row and vector); lane 0 stores y[m * n + row0 + i] for each m.
#include "common/dtype_access.h"
#include "common/strided_loop.h"
#include "common/warp_reduce.h"
#include "gemv_half.h"

#include <memory>
#include <optional>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <type_traits>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

// One buffer's unit as loaded: halves stay packed in their words until the fma that uses them
// (widened right after the load, every word would hold two f32 registers across the batch and
// ptxas would start only a few of the batch's loads before the arithmetic); f32 elements and
// single halves (k odd) are kept as loaded, already f32.
struct Unit {
  std::vector<Reg<B32>> words;
  std::vector<Reg<F32>> values;
};

template <class E>
Unit load_unit(KernelBuilder& b, Ptr<Global, const E> p, std::uint32_t width) {
  if constexpr (!std::is_same_v<E, F32>) {
    if (width >= 2) return {common::load_words<E>(b, p, width, common::LoadPath::kReadOnly), {}};
  }
  return {{}, common::load_f32<E>(b, p, width, common::LoadPath::kReadOnly)};
}

// Elements 2j and 2j + 1 of a unit as f32 (element 0 alone when the unit is one element),
// widened here, at their use.
template <class E>
std::vector<Reg<F32>> unit_pair(KernelBuilder& b, const Unit& u, std::size_t j) {
  if constexpr (!std::is_same_v<E, F32>) {
    if (!u.words.empty()) return common::widen_words<E>(b, {u.words[j]});
  }
  if (u.values.size() == 1) return {u.values[0]};
  return {u.values[2 * j], u.values[2 * j + 1]};
}

// One step's registers: each vector's unit of x and each row's unit of W. At batch 1 x is loaded
// with the W units; batched, every W unit of a batch is loaded first and each step's M x units
// just before its fmas (from `first`, zeroed outside the row where `inside` is set).
struct Step {
  std::vector<Unit> x; // [vector]
  std::vector<Unit> w; // [row]
  std::optional<Reg<U32>> first;
  std::optional<Reg<Pred>> inside;
};

// A zero word is two +0 halves in bf16 and f16 alike.
void zero_outside(KernelBuilder& b, Unit& unit, Reg<Pred> inside) {
  for (Reg<B32>& word : unit.words)
    word = b.selp(word, b.imm<B32>(0u), inside);
  for (Reg<F32>& e : unit.values)
    e = b.selp(e, b.imm<F32>(0.0f), inside);
}

template <class EW, class EX, class EY>
void build_body(KernelBuilder& b, const GemvHalfConfig& c) {
  const std::uint32_t width = c.unit_width();
  const std::uint32_t units = c.units();
  const std::uint32_t rows = c.rows_per_warp();
  const std::uint32_t unroll = c.unroll();
  const std::uint32_t batch = c.batch;
  auto w = b.param<Ptr<Global, const EW>>("w");
  auto x = b.param<Ptr<Global, const EX>>("x");
  auto y = b.param<Ptr<Global, EY>>("y");

  Reg<U32> tid = b.tid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  // One emitting call per argument list: C++ leaves argument evaluation order unspecified.
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<U32> warp_id = b.mad_lo(b.ctaid_x(), b.imm<U32>(GemvHalf::kWarps), warp);
  Reg<U32> row0 = rows == 1 ? warp_id : b.mul_lo(warp_id, b.imm<U32>(rows));
  Label done = b.new_label("done");
  // Warp-uniform: the whole warp leaves, so the shuffles below always have 32 lanes.
  b.bra_if(!b.setp(cmp::lt, row0, b.baked<U32>("n", c.n)), done);

  // The warp's rows; those past n (last warp only) re-read row n - 1 and are never stored.
  std::vector<Reg<U32>> row_ids;
  std::vector<Ptr<Global, const EW>> w_rows;
  for (std::uint32_t i = 0; i < rows; ++i) {
    Reg<U32> raw = i == 0 ? row0 : b.add(row0, b.imm<U32>(i));
    row_ids.push_back(raw);
    Reg<U32> row = i == 0 ? raw : b.min(raw, b.baked<U32>("n", c.n - 1));
    w_rows.push_back(w + b.mul_wide(row, b.baked<U32>("k", c.k))); // 64-bit: n * k > 2^32
  }

  // x's vector m starts k elements after vector m - 1: the offset folds into the address.
  auto load_x = [&](Reg<U32> first) {
    std::vector<Unit> xs;
    auto x_unit = x + first;
    for (std::uint32_t m = 0; m < batch; ++m)
      xs.push_back(load_unit<EX>(b, x_unit + std::int64_t{m} * c.k, width));
    return xs;
  };
  auto load_step = [&](Reg<U32> unit) {
    Reg<U32> first = width == 1 ? unit : b.mul_lo(unit, b.baked<U32>("k", width));
    Step s;
    if (batch == 1)
      s.x = load_x(first);
    else
      s.first = first;
    for (std::uint32_t i = 0; i < rows; ++i)
      s.w.push_back(load_unit<EW>(b, w_rows[i] + first, width));
    return s;
  };

  // Two accumulators per row and vector (even and odd fmas of a batch): at batch 1 two dependency
  // chains of fmas; batched, each vector's products meet its accumulators in batch 1's order.
  std::vector<std::unique_ptr<Var<F32>>> acc; // [(row * batch + vector) * 2 + chain]
  for (std::uint32_t i = 0; i < 2 * rows * batch; ++i)
    acc.emplace_back(new Var<F32>(b.var<F32>(b.imm<F32>(0.0f), "acc")));
  // The fmas of a batch, after all its loads of W: step by step (batched: the step's x units
  // first), word by word (each vector's x word widened once for all rows), row by row (each word
  // of W widened once for all vectors, just before its fmas).
  auto accumulate = [&](std::vector<Step>& steps) {
    std::vector<Reg<F32>> sums;
    for (const auto& a : acc)
      sums.push_back(a->read());
    std::uint32_t fmas = 0;
    for (Step& s : steps) {
      if (s.first) {
        s.x = load_x(*s.first);
        if (s.inside)
          for (Unit& xu : s.x)
            zero_outside(b, xu, *s.inside);
      }
      const std::size_t pairs = (width + 1) / 2;
      for (std::size_t j = 0; j < pairs; ++j) {
        std::vector<std::vector<Reg<F32>>> xs; // [vector]
        for (const Unit& xu : s.x)
          xs.push_back(unit_pair<EX>(b, xu, j));
        for (std::uint32_t i = 0; i < rows; ++i) {
          std::vector<Reg<F32>> ws = unit_pair<EW>(b, s.w[i], j);
          for (std::uint32_t m = 0; m < batch; ++m)
            for (std::size_t e = 0; e < ws.size(); ++e) {
              Reg<F32>& sum = sums[(i * batch + m) * 2 + (fmas + e) % 2];
              sum = b.fma(ws[e], xs[m][e], sum, rn);
            }
        }
        fmas += static_cast<std::uint32_t>(xs[0].size());
      }
    }
    for (std::size_t i = 0; i < acc.size(); ++i)
      acc[i]->assign(sums[i]);
  };

  // Full batches: U steps in which every lane has a unit.
  const std::uint32_t full_steps = units / 32;
  const std::uint32_t batches = full_steps / unroll;
  Var<U32> unit = b.var<U32>(lane, "unit");
  if (batches > 0) {
    common::strided_loop(b, unit, b.baked<U32>("k", batches * 32 * unroll), b.imm<U32>(32 * unroll),
                         {"main_loop", "main_done"}, [&](Reg<U32> u) {
                           std::vector<Step> steps;
                           for (std::uint32_t j = 0; j < unroll; ++j)
                             steps.push_back(load_step(j == 0 ? u : b.add(u, b.imm<U32>(32 * j))));
                           accumulate(steps);
                         });
  }

  // The rest, one batch: the remaining full steps, then the partial step, whose lanes past the
  // row read its last unit and use zeros (0 * 0: even an inf there adds nothing).
  const std::uint32_t rest_full = full_steps - batches * unroll;
  const std::uint32_t partial_lanes = units % 32;
  if (rest_full > 0 || partial_lanes > 0) {
    Reg<U32> u = unit.read();
    std::vector<Step> steps;
    for (std::uint32_t j = 0; j < rest_full; ++j)
      steps.push_back(load_step(j == 0 ? u : b.add(u, b.imm<U32>(32 * j))));
    if (partial_lanes > 0) {
      Reg<U32> up = rest_full == 0 ? u : b.add(u, b.imm<U32>(32 * rest_full));
      Reg<Pred> inside = b.setp(cmp::lt, up, b.baked<U32>("k", units));
      Step s = load_step(b.min(up, b.baked<U32>("k", units - 1)));
      for (Unit& xu : s.x) // batch 1; batched, x is zeroed as it is loaded
        zero_outside(b, xu, inside);
      for (Unit& wu : s.w)
        zero_outside(b, wu, inside);
      s.inside = inside;
      steps.push_back(std::move(s));
    }
    accumulate(steps);
  }

  // Butterfly reductions: every lane ends with each sum; lane 0 stores the valid rows, vector
  // m's at y + m * n.
  Reg<Pred> lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  for (std::uint32_t i = 0; i < rows; ++i) {
    std::vector<Reg<F32>> sums;
    for (std::uint32_t m = 0; m < batch; ++m) {
      const std::size_t a = (i * batch + m) * 2;
      sums.push_back(common::warp_all_sum(b, b.add(acc[a]->read(), acc[a + 1]->read())));
    }
    auto y_row = y + row_ids[i]; // the address outside the guard: only the store is predicated
    Reg<Pred> store =
        i == 0 ? lane0 : b.setp_and(cmp::lt, row_ids[i], b.baked<U32>("n", c.n), lane0);
    auto only_store = b.guard(store);
    for (std::uint32_t m = 0; m < batch; ++m)
      common::store_f32<EY>(b, y_row + std::int64_t{m} * c.n, {sums[m]});
  }
  b.place(done);
  b.ret();
}

} // namespace

ptxkit::Expected<GeneratedPtx> GemvHalf::build(const Config& c, const ptxgen::Target& target,
                                               const GenOptions& options) {
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  // Without an occupancy bound ptxas fits the kernel in 32 registers (the most blocks of 128
  // threads an SM holds) and, to get there, sinks each batch's loads to their first use: only 4
  // of the 16 16-byte loads of a 4096-long row's batch start before its fmas. At least 4 blocks
  // per SM allows up to 128 registers; ptxas then starts all of a batch's loads first (about 80
  // registers: 6 blocks, 24 warps per SM, still 96 KB of weights in flight per SM).
  b.minnctapersm(kMinBlocksPerSm);
  // Weights are f16 or bf16 only (validate()), so no f32-weight body is instantiated.
  auto with_x_and_y = [&]<class EW>() {
    common::with_dtype(c.x_dtype, [&]<class EX>() {
      common::with_dtype(c.y_dtype, [&]<class EY>() { build_body<EW, EX, EY>(b, c); });
    });
  };
  if (c.weight_dtype == DType::kF16)
    with_x_and_y.operator()<F16>();
  else
    with_x_and_y.operator()<BF16>();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(GemvHalf);

} // namespace ptxkit::kernels
