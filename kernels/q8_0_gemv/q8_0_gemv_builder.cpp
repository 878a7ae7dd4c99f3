// q8_0_gemv_builder.cpp: the Q8_0 x Q8_1 GEMV as PTX on ptxgen, and its registration.
//
// Warp w of block %ctaid.x computes rows R*(8*ctaid + w) .. +R-1 (R = rows_per_warp(); a row
// past the matrix is clamped to the last for loading and its store skipped). Row r starts at
// byte r * 34*nb of W (nb = cols/32); its pointer is that offset rounded down to 16 bytes, the
// remainder m = (r * 34*nb) % 16 kept per row. In step s, lane l takes block j = 32*s + l:
//   x:  words 9j .. 9j+8 of the Q8_1 buffer (ds, 8 quant words), by common::load_word_chunks
//       (three v4 loads) and shift_words, once per step for all R rows;
//   W:  the block's byte offset o = m + 34j in the row's aligned window: words o/4 .. o/4 + 8
//       (three v4 loads, shifted); o % 4 is 0 or 2. With 0, d is the low half of word 0 and the
//       quants start at byte 2: quant word i = prmt(w[i], w[i+1], 0x5432); with 2, d is the high
//       half and quant word i = w[i+1] = prmt(w[i], w[i+1], 0x7654): one selector per lane.
//   acc += (d_w * d_x) * f32(dp4a chain of the 8 word pairs)     (as ggml's vec_dot_q8_0_q8_1)
// Steps with 32 whole blocks run in a loop; one last step (nb % 32 != 0) clamps j to nb - 1 and
// zeroes d_x for lanes past the row (they add exactly 0). Row sums: shfl.down to lane 0.
#include "common/warp_reduce.h"
#include "common/word_window.h"
#include "q8_0_gemv.h"

#include <memory>
#include <optional>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

struct RowState {
  RowState(KernelBuilder& b, Ptr<Global, const U32> p, Reg<U32> m)
      : aligned(p), misalign(m), acc(b.var<F32>(b.imm<F32>(0.0f), "row_acc")) {}
  Ptr<Global, const U32> aligned; // the row's first byte rounded down to 16
  Reg<U32> misalign;              // the row's first byte % 16
  Var<F32> acc;
};

// The lane's Q8_1 block of one step: d_x (0 for a lane past the row) and its 8 quant words.
struct XBlock {
  Reg<F32> d;
  std::vector<Reg<S32>> q;
};

XBlock load_x_block(KernelBuilder& b, Ptr<Global, const U32> xq, Reg<U32> j,
                    std::optional<Reg<Pred>> inside) {
  const common::WordChunks chunks =
      common::load_word_chunks(b, xq, b.mul_lo(j, b.imm<U32>(kQ8_1Words)), kQ8_1Words);
  const std::vector<Reg<U32>> words = common::shift_words(b, chunks, kQ8_1Words);
  XBlock out{b.cvt<F32>(b.unpack<F16>(words[0])[0]), {}};
  if (inside) out.d = b.selp(out.d, b.imm<F32>(0.0f), *inside);
  for (std::uint32_t i = 1; i < kQ8_1Words; ++i)
    out.q.push_back(b.bitcast<S32>(words[i]));
  return out;
}

// The lane's block j of one row, loaded (three v4 loads) but not yet realigned.
struct WBlock {
  common::WordChunks chunks;
  Reg<U32> off; // the block's byte offset in the row's aligned window
};

// One step's loads: the x block and block j of every row, all issued before any arithmetic so
// that a lane has (rows + 1) * 48 bytes per step in flight.
struct StepLoads {
  XBlock x;
  std::vector<WBlock> w;
};
StepLoads load_step(KernelBuilder& b, Ptr<Global, const U32> xq, Reg<U32> j,
                    std::optional<Reg<Pred>> inside,
                    const std::vector<std::unique_ptr<RowState>>& rows) {
  StepLoads out{load_x_block(b, xq, j, inside), {}};
  Reg<U32> j_bytes = b.mul_lo(j, b.imm<U32>(kQ8_0Bytes));
  for (const auto& r : rows) {
    Reg<U32> off = b.add(r->misalign, j_bytes);
    out.w.push_back({common::load_word_chunks(b, r->aligned, b.shr(off, b.imm<U32>(2)), 9), off});
  }
  return out;
}

// A step's blocks against its x block: realign, 8 dp4a, one f32 fma per row.
void accumulate_step(KernelBuilder& b, const StepLoads& s,
                     std::vector<std::unique_ptr<RowState>>& rows) {
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const WBlock& wb = s.w[k];
    const std::vector<Reg<U32>> w = common::shift_words(b, wb.chunks, 9);
    // o % 4 == 2: d is the high half of word 0 and the quants are word-aligned.
    Reg<Pred> odd_half = b.setp(cmp::ne, b.and_(wb.off, b.imm<U32>(2)), b.imm<U32>(0));
    Reg<U32> sel = b.selp(b.imm<U32>(0x7654), b.imm<U32>(0x5432), odd_half);
    auto halves = b.unpack<F16>(w[0]);
    Reg<F32> dw = b.selp(b.cvt<F32>(halves[1]), b.cvt<F32>(halves[0]), odd_half);
    std::optional<Reg<S32>> dot;
    for (std::size_t i = 0; i < 8; ++i) {
      Reg<S32> q = b.bitcast<S32>(b.prmt(w[i], w[i + 1], sel));
      dot = dot ? b.dp4a(q, s.x.q[i], *dot) : b.dp4a(q, s.x.q[i], b.imm<S32>(0));
    }
    // |dot| <= 32 * 128 * 128 = 2^19: the conversion is exact.
    Reg<F32> scale = b.mul(dw, s.x.d);
    rows[k]->acc.assign(b.fma(scale, b.cvt<F32>(*dot, rn), rows[k]->acc.read(), rn));
  }
}

} // namespace

ptxkit::Expected<GeneratedPtx> Q8_0Gemv::build(const Config& c, const ptxgen::Target& target,
                                               const GenOptions& options) {
  const std::uint32_t nb = c.blocks_per_row();
  const std::uint32_t full_steps = nb / 32;
  const bool tail_step = nb % 32 != 0;
  const std::uint32_t rows_per_warp = c.rows_per_warp();
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  auto w = b.param<Ptr<Global, const U32>>("w_q8_0");
  auto xq = b.param<Ptr<Global, const U32>>("x_q8");
  auto y = b.param<Ptr<Global, F32>>("y");

  Reg<U32> tid = b.tid_x();
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<Pred> lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  Reg<U32> warp_global = b.mad_lo(b.ctaid_x(), b.imm<U32>(kWarps), warp);
  Reg<U32> row0 = b.mul_lo(warp_global, b.imm<U32>(rows_per_warp));
  const Imm<U32> num_rows = b.baked<U32>("rows", c.rows);
  const Imm<U32> row_bytes = b.baked<U32>("cols", static_cast<std::uint32_t>(c.row_bytes()));

  std::vector<Reg<U32>> row_in;
  std::vector<Reg<Pred>> row_exists;
  std::vector<std::unique_ptr<RowState>> rows;
  for (std::uint32_t r = 0; r < rows_per_warp; ++r) {
    Reg<U32> row = r == 0 ? row0 : b.add(row0, b.imm<U32>(r));
    row_exists.push_back(b.setp(cmp::lt, row, num_rows));
    row_in.push_back(b.min(row, b.baked<U32>("rows", c.rows - 1)));
    Reg<U64> start = b.mul_wide(row_in.back(), row_bytes);
    Reg<U64> aligned_words = b.shl(b.shr(start, b.imm<U32>(4)), b.imm<U32>(2));
    Reg<U32> misalign = b.and_(b.mul_lo(row_in.back(), row_bytes), b.imm<U32>(15));
    rows.push_back(std::make_unique<RowState>(b, w + aligned_words, misalign));
  }

  // Full steps in a loop over the warp's first block of each step (a multiple of 32, the same
  // in every lane), so its exit is visibly warp-uniform. (Issuing two steps' loads per iteration
  // measured no faster on the H200.)
  if (full_steps > 0) {
    Var<U32> base = b.var<U32>(b.mov(b.imm<U32>(0)), "block_base");
    Label loop = b.new_label("block_loop");
    Label done = b.new_label("block_done");
    b.place(loop);
    Reg<U32> base_now = base.read();
    b.bra_if(!b.setp(cmp::lt, base_now, b.baked<U32>("cols", full_steps * 32)), done);
    Reg<U32> j = b.add(base_now, lane);
    accumulate_step(b, load_step(b, xq, j, std::nullopt, rows), rows);
    base.assign(b.add(base_now, b.imm<U32>(32)));
    b.bra(loop);
    b.place(done);
  }
  if (tail_step) {
    Reg<U32> j = full_steps == 0 ? lane : b.add(lane, b.baked<U32>("cols", full_steps * 32));
    Reg<Pred> inside = b.setp(cmp::lt, j, b.baked<U32>("cols", nb));
    Reg<U32> j_in = b.min(j, b.baked<U32>("cols", nb - 1));
    accumulate_step(b, load_step(b, xq, j_in, inside, rows), rows);
  }

  for (std::uint32_t r = 0; r < rows_per_warp; ++r) {
    Reg<F32> t = common::warp_sum_to_lane0(b, rows[r]->acc.read());
    auto only_lane0 = b.guard(b.and_(lane0, row_exists[r]));
    b.st(y + row_in[r], t);
  }
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(Q8_0Gemv);

} // namespace ptxkit::kernels
