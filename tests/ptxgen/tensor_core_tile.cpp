// tensor_core_tile.cpp: the bf16 tile kernel (see tensor_core_tile.h).
//
// Fragment layouts are the PTX ISA's for mma.m16n8k16 with .row A and .col B: lane l holds A
// rows l/4 and l/4 + 8, B columns l/4, and accumulators of row l/4 (c0, c1) and l/4 + 8 (c2, c3)
// at columns 2 * (l % 4) and the one after.
#include "tensor_core_tile.h"

#include <array>

namespace ptxkit::ptxgen::testing {

Expected<Kernel> build_bf16_tile_mma(Target target) {
  constexpr std::uint32_t kChunkElems = 8; // one 16-byte cp.async moves 8 bf16
  KernelBuilder b("bf16_tile_mma", target);
  b.reqntid(32);
  auto a = b.param<Ptr<Global, const BF16>>("a");
  auto bm = b.param<Ptr<Global, const BF16>>("b");
  auto d = b.param<Ptr<Global, F32>>("d");
  Ptr<Shared, BF16> a_tile = b.shared_array<BF16>("a_tile", 16 * 16, 16);
  Ptr<Shared, BF16> b_tile = b.shared_array<BF16>("b_tile", 16 * 8, 16);
  Reg<U32> lane = b.tid_x();

  // Stage both tiles: A is 32 chunks of 16 bytes, one per lane; B is 16, one per lower lane.
  Reg<U32> chunk = b.mul_lo(lane, b.imm<U32>(kChunkElems));
  b.cp_async<16>(a_tile + chunk, a + chunk, cache::cg);
  {
    auto lower_half = b.guard(b.setp(cmp::lt, lane, b.imm<U32>(16)));
    b.cp_async<16>(b_tile + chunk, bm + chunk, cache::cg);
  }
  b.cp_async_commit_group();
  b.cp_async_wait_group(0);
  b.bar_sync(); // the other lanes' chunks are visible after their waits and this barrier

  // A: four 8x8 matrices (rows 0-7 / 8-15 by columns 0-7 / 8-15); lane l gives the address of
  // row l % 16 at column 8 * (l / 16).
  Reg<U32> row = b.and_(lane, b.imm<U32>(15));
  Reg<U32> a_offset =
      b.add(b.shl(row, b.imm<U32>(4)), b.shl(b.shr(lane, b.imm<U32>(4)), b.imm<U32>(3)));
  std::array<Reg<BF16x2>, 4> a_frag = b.ldmatrix<4>(a_tile + a_offset);
  // B is stored k-major (row-major 16x8): transposed, rows k 0-7 and 8-15 are the two column
  // fragments; lanes 0-15 give the rows' addresses.
  std::array<Reg<BF16x2>, 2> b_frag = b.ldmatrix_trans<2>(b_tile + b.shl(row, b.imm<U32>(3)));

  Reg<F32> zero = b.mov(b.imm<F32>(0.0f));
  std::array<Reg<F32>, 4> acc = b.mma_m16n8k16(a_frag, b_frag, {zero, zero, zero, zero});

  // d[r][c] for r = l / 4 (c0, c1) and r + 8 (c2, c3), c = 2 * (l % 4) and c + 1.
  Reg<U32> group = b.shr(lane, b.imm<U32>(2));
  Reg<U32> col = b.shl(b.and_(lane, b.imm<U32>(3)), b.imm<U32>(1));
  Ptr<Global, F32> top = d + b.add(b.shl(group, b.imm<U32>(3)), col);
  b.st_v2(top, {acc[0], acc[1]});
  b.st_v2(top + 8 * 8, {acc[2], acc[3]});
  b.ret();
  return b.finish();
}

} // namespace ptxkit::ptxgen::testing
