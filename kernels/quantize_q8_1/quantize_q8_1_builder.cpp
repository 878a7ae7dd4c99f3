// quantize_q8_1_builder.cpp: the Q8_1 quantizer as PTX on ptxgen, and its registration.
//
// Thread t of the grid is lane p = t % 8 of block blk = t / 8: it quantizes x[32*blk + 4p .. +3]
// and writes word 1 + p of the block (lane 0 also word 0, ds). Blocks past the padded length
// exit; the block count is a multiple of 16 and a warp holds 4 whole blocks, so the exit is
// warp-uniform and the 8-lane butterflies stay full. The block's arithmetic is
// common::quantize_q8_1_block (ggml's quantize_row_q8_1_ref operation for operation, roundf
// without a conversion instruction), shared with the GEMVs that quantize x themselves.
#include "common/q8_1_quantize.h"
#include "quantize_q8_1.h"

#include <array>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>

namespace ptxkit::kernels {

using namespace ptxkit::ptxgen;

ptxkit::Expected<GeneratedPtx> QuantizeQ8_1::build(const Config& c, const ptxgen::Target& target,
                                                   const GenOptions& options) {
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kThreads);
  auto x = b.param<Ptr<Global, const F32>>("x");
  auto out = b.param<Ptr<Global, U32>>("x_q8");
  Label finished = b.new_label("finished");

  Reg<U32> tid = b.tid_x();
  Reg<U32> gt = b.mad_lo(b.ctaid_x(), b.imm<U32>(kThreads), tid);
  Reg<U32> blk = b.shr(gt, b.imm<U32>(3));
  Reg<U32> part = b.and_(gt, b.imm<U32>(7));
  b.bra_if(!b.setp(cmp::lt, blk, b.baked<U32>("cols", c.blocks())), finished);

  // The lane's 4 values; a float4 at or past cols (cols % 4 == 0) is read in bounds and zeroed.
  Reg<U32> k = b.shl(gt, b.imm<U32>(2));
  std::array<Reg<F32>, 4> v = b.ld_nc_v4(x + b.min(k, b.baked<U32>("cols", c.cols - 4)));
  Reg<Pred> inside = b.setp(cmp::lt, k, b.baked<U32>("cols", c.cols));
  for (auto& r : v)
    r = b.selp(r, b.imm<F32>(0.0f), inside);

  const common::Q8_1Lane q = common::quantize_q8_1_block(b, v, 8);
  Reg<U32> block_word = b.mul_lo(blk, b.imm<U32>(kQ8_1Words));
  b.st(out + b.add(b.add(block_word, part), b.imm<U32>(1)), q.quants[0]);
  {
    auto lane0 = b.guard(b.setp(cmp::eq, part, b.imm<U32>(0)));
    b.st(out + block_word, q.ds);
  }
  b.place(finished);
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(QuantizeQ8_1);

} // namespace ptxkit::kernels
