// isa/matrix.h: warp-level matrix multiply-accumulate on the tensor cores (mma.sync) and the
// shared-memory fragment load that feeds it (ldmatrix).
//
// A fragment is a std::array with one register per register of the instruction's vector
// operand, and the register type says what the fragment holds, so mixing fragments of different
// element types does not compile: f16 operands are packed .f16x2 pairs, bf16 ones .bf16x2, 8-bit
// integer operands are four bytes in a .s32 (signed bytes) or .u32 (unsigned bytes) register, as
// for dp4a. ldmatrix returns the fragment type of its pointer's element, so a bf16 tile read
// from shared memory feeds a bf16 mma without a bitcast, and never an f16 one.
//
// Both instructions are warp collectives (`.sync.aligned`): every lane of the warp executes the
// same instruction, unpredicated, in convergent code.
#pragma once

#include "ptxkit/ptxgen/isa/common.h"

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace ptxkit::ptxgen {

namespace detail {
// The register type of an ldmatrix fragment: two 16-bit elements of the pointee per register.
template <class E>
struct MatrixFragment {
  using type = B32;
};
template <>
struct MatrixFragment<F16> {
  using type = F16x2;
};
template <>
struct MatrixFragment<BF16> {
  using type = BF16x2;
};
template <class E>
using matrix_fragment_t = typename MatrixFragment<E>::type;

// The 8-bit integer element an mma register of bytes holds: s8 in .s32, u8 in .u32.
template <class T>
constexpr TypeId byte_element() {
  return std::is_same_v<T, S32> ? TypeId::kS8 : TypeId::kU8;
}
} // namespace detail

template <class B>
class MatrixOps {
public:
  // mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 d, a, b, c: d = a * b + c
  // for a 16x16 row-major A, a 16x8 column-major B and 16x8 f32 accumulators, spread over the
  // warp (each lane holds 4 A registers, 2 B registers, 4 accumulators). A and B are both
  // .f16x2 or both .bf16x2.
  template <class A, class Bm>
  std::array<Reg<F32>, 4> mma_m16n8k16(const std::array<Reg<A>, 4>& a,
                                       const std::array<Reg<Bm>, 2>& b,
                                       const std::array<Reg<F32>, 4>& c, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<A, F16x2> || std::is_same_v<A, BF16x2>,
                  "PTX: mma.m16n8k16 multiplies f16 or bf16: the A fragment is 4 packed .f16x2 "
                  "or .bf16x2 registers");
    static_assert(std::is_same_v<A, Bm>,
                  "PTX: the mma A and B fragments hold the same element type (.f16 or .bf16)");
    constexpr bool kBf16 = std::is_same_v<A, BF16x2>;
    self().require(kBf16 ? isa::Form::kMmaBf16 : isa::Form::kMmaM16n8k16F16, loc);
    constexpr TypeId element = kBf16 ? TypeId::kBF16 : TypeId::kF16;
    return mma<F32>(Mod::kM16n8k16, {TypeId::kF32, element, element, TypeId::kF32}, a, b, c, loc);
  }

  // mma.sync.aligned.m16n8k32.row.col.s32.{s8,u8}.{s8,u8}.s32 d, a, b, c: the integer form,
  // 16x32 A by 32x8 B of bytes with s32 accumulators. A .s32 fragment holds signed bytes, a
  // .u32 one unsigned bytes (A and B may differ).
  template <class A, class Bm>
  std::array<Reg<S32>, 4> mma_m16n8k32(const std::array<Reg<A>, 4>& a,
                                       const std::array<Reg<Bm>, 2>& b,
                                       const std::array<Reg<S32>, 4>& c, Loc loc = Loc::current()) {
    static_assert((std::is_same_v<A, S32> || std::is_same_v<A, U32>)&&(std::is_same_v<Bm, S32> ||
                                                                       std::is_same_v<Bm, U32>),
                  "PTX: mma.m16n8k32 multiplies bytes: the A and B fragments are .s32 (signed "
                  "bytes) or .u32 (unsigned bytes) registers");
    self().require(isa::Form::kMmaM16n8k32Int8, loc);
    return mma<S32>(
        Mod::kM16n8k32,
        {TypeId::kS32, detail::byte_element<A>(), detail::byte_element<Bm>(), TypeId::kS32}, a, b,
        c, loc);
  }

  // ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16 {r...}, [p]: N 8x8 matrices of 16-bit
  // elements from shared memory, one register per matrix per lane. Lanes 0-7 give the row
  // addresses of the first matrix, 8-15 of the second, and so on (each row 16-byte aligned).
  template <int N, class S, class T>
  auto ldmatrix(Ptr<S, T> p, Loc loc = Loc::current()) {
    return load_matrix<N, false>(p, loc);
  }
  // ldmatrix...trans: the same, each matrix transposed (a row-major tile as a column-major B).
  template <int N, class S, class T>
  auto ldmatrix_trans(Ptr<S, T> p, Loc loc = Loc::current()) {
    return load_matrix<N, true>(p, loc);
  }

private:
  B& self() { return static_cast<B&>(*this); }

  template <class T, std::size_t N>
  static std::vector<std::uint32_t> ids(const std::array<Reg<T>, N>& regs) {
    std::vector<std::uint32_t> out;
    for (const Reg<T>& r : regs)
      out.push_back(r.id());
    return out;
  }

  // Fresh registers, allocated in order (Reg has no default state to fill an array with).
  template <class T, std::size_t... I>
  std::array<Reg<T>, sizeof...(I)> new_regs(std::index_sequence<I...>) {
    return {((void)I, self().template new_reg<T>())...};
  }

  template <class D, class A, class Bm>
  std::array<Reg<D>, 4> mma(Mod shape, std::vector<TypeId> types, const std::array<Reg<A>, 4>& a,
                            const std::array<Reg<Bm>, 2>& b, const std::array<Reg<D>, 4>& c,
                            const Loc& loc) {
    std::array<Reg<D>, 4> d = new_regs<D>(std::make_index_sequence<4>{});
    self().emit_op(Op::kMma, {Mod::kSync, Mod::kAligned, shape, Mod::kRow, Mod::kCol},
                   std::move(types),
                   {Emitter::vec_op(ids(d)), Emitter::vec_op(ids(a)), Emitter::vec_op(ids(b)),
                    Emitter::vec_op(ids(c))},
                   loc);
    return d;
  }

  template <int N, bool Trans, class S, class T>
  auto load_matrix(Ptr<S, T> p, const Loc& loc) {
    static_assert(N == 1 || N == 2 || N == 4, "PTX: ldmatrix loads .x1, .x2 or .x4 matrices");
    static_assert(std::is_same_v<S, Shared>,
                  "PTX: ldmatrix reads shared memory: the address is a Ptr<Shared, ...>");
    using E = std::remove_const_t<T>;
    static_assert(E::bits == 16, "PTX: ldmatrix.m8n8 loads 16-bit elements (.b16): point at "
                                 "f16, bf16 or 16-bit integers");
    using R = detail::matrix_fragment_t<E>;
    std::array<Reg<R>, N> out = new_regs<R>(std::make_index_sequence<N>{});
    constexpr Mod kCount = N == 1 ? Mod::kX1 : N == 2 ? Mod::kX2 : Mod::kX4;
    std::vector<Mod> mods{Mod::kSync, Mod::kAligned, Mod::kM8n8, kCount};
    if constexpr (Trans) mods.push_back(Mod::kTrans);
    mods.push_back(Mod::kShared);
    self().emit_op(Op::kLdmatrix, std::move(mods), {TypeId::kB16},
                   {Emitter::vec_op(ids(out)), Emitter::addr_op(p.base().id(), p.offset())}, loc);
    return out;
  }
};

} // namespace ptxkit::ptxgen
