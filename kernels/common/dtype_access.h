// dtype_access.h: activations, weights and caches in a config's element type (f32, f16, bf16),
// loaded into f32 registers and stored from them. The one place where a kernel's element type
// becomes PTX: a kernel builds its body once, templated on the element tag, computes in f32, and
// these helpers widen on load (exact) and round once on store (to nearest even).
//
// Half rows are read in 32-bit words: 2, 4 or 8 halves per thread as one .b32, .v2.b32 or
// .v4.b32 access, so the caller guarantees the alignment of the width in bytes (2 per half).
// bf16 widens by a shift of its word (bf16 is the high half of an f32), f16 with cvt.f32.f16;
// stores pack pairs with cvt.rn.{f16x2,bf16x2}.f32.
#pragma once

#include "common/vector_access.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <type_traits>
#include <vector>

namespace ptxkit::kernels::common {

using namespace ptxkit::ptxgen;

// The element tags a kernel body is instantiated with.
template <class E>
concept StorageElement =
    std::is_same_v<E, F32> || std::is_same_v<E, F16> || std::is_same_v<E, BF16>;
// The half tags, whose elements travel two to a 32-bit word.
template <class E>
concept HalfElement = std::is_same_v<E, F16> || std::is_same_v<E, BF16>;

// Calls f.template operator()<E>() with E the tag of `t` (F32, F16 or BF16): the switch from the
// config's dtype field to a builder body templated on its element type.
template <class F>
decltype(auto) with_dtype(DType t, F&& f) {
  switch (t) {
  case DType::kF16:
    return f.template operator()<F16>();
  case DType::kBF16:
    return f.template operator()<BF16>();
  case DType::kF32:
    break;
  }
  return f.template operator()<F32>();
}

namespace detail {

// The two halves of a word, widened: {element 2i, element 2i + 1} (little-endian: the low half
// is the lower address).
template <class E>
std::array<Reg<F32>, 2> widen_pair(KernelBuilder& b, Reg<B32> word) {
  if constexpr (std::is_same_v<E, BF16>) {
    Reg<B32> lo = b.shl(word, b.imm<U32>(16));
    Reg<B32> hi = b.and_(word, b.imm<B32>(0xffff0000u));
    return {b.bitcast<F32>(lo), b.bitcast<F32>(hi)};
  } else {
    auto halves = b.unpack<F16>(word);
    return {b.cvt<F32>(halves[0]), b.cvt<F32>(halves[1])};
  }
}

template <class E>
Reg<F32> widen_one(KernelBuilder& b, Reg<B16> bits) {
  if constexpr (std::is_same_v<E, BF16>) {
    Reg<U32> word = b.cvt<U32>(b.bitcast<U16>(bits));
    return b.bitcast<F32>(b.shl(word, b.imm<U32>(16)));
  } else {
    return b.cvt<F32>(b.bitcast<F16>(bits));
  }
}

// Two f32 values rounded (nearest even) into one word: lo at the lower address.
template <class E>
Reg<B32> narrow_pair(KernelBuilder& b, Reg<F32> lo, Reg<F32> hi) {
  using Packed = std::conditional_t<std::is_same_v<E, BF16>, BF16x2, F16x2>;
  return b.bitcast<B32>(b.cvt_pack<Packed>(hi, lo));
}

} // namespace detail

// `width` (2, 4 or 8) consecutive halves at p as their raw words, not yet widened: one .b32,
// .v2.b32 or .v4.b32 load (`width * 2` bytes aligned). With widen_words, a kernel can issue a
// batch of loads before widening any: a word widened right after its load holds two f32
// registers instead of one word until its use.
template <HalfElement E>
std::vector<Reg<B32>> load_words(KernelBuilder& b, Ptr<Global, const E> p, std::uint32_t width,
                                 LoadPath path) {
  const bool nc = path == LoadPath::kReadOnly;
  auto w = reinterpret_ptr<B32>(p);
  if (width == 2) return {nc ? b.ld_nc(w) : b.ld(w)};
  if (width == 4) {
    auto v = nc ? b.ld_nc_v2(w) : b.ld_v2(w);
    return {v.begin(), v.end()};
  }
  auto v = nc ? b.ld_nc_v4(w) : b.ld_v4(w);
  return {v.begin(), v.end()};
}

// Words of halves of E (from load_words) as f32, two per word, the lower address first.
template <HalfElement E>
std::vector<Reg<F32>> widen_words(KernelBuilder& b, const std::vector<Reg<B32>>& words) {
  std::vector<Reg<F32>> out;
  for (Reg<B32> word : words)
    for (Reg<F32> x : detail::widen_pair<E>(b, word))
      out.push_back(x);
  return out;
}

// `width` (1, 2, 4 or 8) consecutive elements of E at p, as f32.
template <StorageElement E>
std::vector<Reg<F32>> load_f32(KernelBuilder& b, Ptr<Global, const E> p, std::uint32_t width,
                               LoadPath path) {
  if constexpr (std::is_same_v<E, F32>) {
    if (width <= 4) return load_vector(b, p, width, path);
    std::vector<Reg<F32>> v = load_vector(b, p, 4, path);
    std::vector<Reg<F32>> rest = load_vector(b, p + 4, 4, path);
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  } else {
    if (width == 1) {
      auto h = reinterpret_ptr<B16>(p);
      const bool nc = path == LoadPath::kReadOnly;
      return {detail::widen_one<E>(b, nc ? b.ld_nc(h) : b.ld(h))};
    }
    return widen_words<E>(b, load_words<E>(b, p, width, path));
  }
}

// v.size() (1, 2, 4 or 8) f32 values stored as consecutive elements of E at p, each rounded to
// nearest even.
template <StorageElement E>
void store_f32(KernelBuilder& b, Ptr<Global, E> p, const std::vector<Reg<F32>>& v) {
  if constexpr (std::is_same_v<E, F32>) {
    if (v.size() <= 4) {
      store_vector(b, p, v);
      return;
    }
    store_vector(b, p, {v.begin(), v.begin() + 4});
    store_vector(b, p + 4, {v.begin() + 4, v.end()});
  } else {
    if (v.size() == 1) {
      b.st(reinterpret_ptr<B16>(p), b.bitcast<B16>(b.cvt<E>(v[0], rn)));
      return;
    }
    std::vector<Reg<B32>> words;
    for (std::size_t i = 0; i + 1 < v.size(); i += 2)
      words.push_back(detail::narrow_pair<E>(b, v[i], v[i + 1]));
    auto w = reinterpret_ptr<B32>(p);
    if (words.size() == 1)
      b.st(w, words[0]);
    else if (words.size() == 2)
      b.st_v2(w, {words[0], words[1]});
    else
      b.st_v4(w, {words[0], words[1], words[2], words[3]});
  }
}

} // namespace ptxkit::kernels::common
