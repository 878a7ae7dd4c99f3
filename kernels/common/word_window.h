// word_window.h: `count` consecutive u32 words at a word index that is only 4-byte aligned, read
// with 16-byte loads.
//
// Quantized blocks whose size is not a multiple of 16 bytes (Q8_1's 36, Q8_0's 34) start at
// every 4-byte offset modulo 16. Reading a block's words as scalars costs one load instruction
// per word, each spreading a warp over many cache lines; reading the aligned 16-byte chunks that
// cover it costs ceil((count + 3) / 4) ld.global.nc.v4.u32, and the lane's words are then shifted
// down by (index % 4) with two selp levels (by 2, then by 1), no local memory. The chunks read may
// extend up to 12 bytes past the last word wanted: the buffer must hold them.
#pragma once

#include <array>
#include <cstdint>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels::common {

using namespace ptxkit::ptxgen;

// The 16-byte chunks holding words [index, index + count) of `base`: chunk k is at word
// (index & ~3) + 4k. Returns the chunks' words in order and the shift index % 4.
struct WordChunks {
  std::vector<Reg<U32>> words;
  Reg<U32> shift;
};
inline WordChunks load_word_chunks(KernelBuilder& b, Ptr<Global, const U32> base, Reg<U32> index,
                                   std::uint32_t count) {
  Reg<U32> first = b.and_(index, b.imm<U32>(~3u));
  WordChunks out{{}, b.and_(index, b.imm<U32>(3))};
  const std::uint32_t chunks = (count + 3 + 3) / 4;
  for (std::uint32_t k = 0; k < chunks; ++k) {
    Reg<U32> at = k == 0 ? first : b.add(first, b.imm<U32>(4 * k));
    std::array<Reg<U32>, 4> v = b.ld_nc_v4(base + at);
    out.words.insert(out.words.end(), v.begin(), v.end());
  }
  return out;
}

// Words [shift, shift + count) of the chunks' words (shift in 0..3): a lane-dependent shift.
inline std::vector<Reg<U32>> shift_words(KernelBuilder& b, const WordChunks& c,
                                         std::uint32_t count) {
  Reg<Pred> by2 = b.setp(cmp::ne, b.and_(c.shift, b.imm<U32>(2)), b.imm<U32>(0));
  Reg<Pred> by1 = b.setp(cmp::ne, b.and_(c.shift, b.imm<U32>(1)), b.imm<U32>(0));
  std::vector<Reg<U32>> half;
  for (std::uint32_t k = 0; k < count + 1; ++k)
    half.push_back(b.selp(c.words[k + 2], c.words[k], by2));
  std::vector<Reg<U32>> out;
  for (std::uint32_t k = 0; k < count; ++k)
    out.push_back(b.selp(half[k + 1], half[k], by1));
  return out;
}

} // namespace ptxkit::kernels::common
