// isa/logic.h: bit operations, shifts, comparisons and selection: and or xor not shl shr setp selp.
//
// `and`, `or`, `xor` and `not` are C++ alternative tokens, so the builder spells them and_, or_,
// xor_, not_. Bit operations print their .b type (and.b32) whatever the integer's signedness;
// shr keeps it (shr.s32 is arithmetic, shr.u32 logical). Shift amounts are u32, as in PTX.
#pragma once

#include "ptxkit/ptxgen/isa/common.h"
#include "ptxkit/ptxgen/isa/modifiers.h"

#include <type_traits>
#include <vector>

namespace ptxkit::ptxgen {

template <class B>
class LogicOps {
public:
  // and.type / or.type / xor.type: pred or b16/b32/b64 (integers print as their .b type)
  template <class A, class C>
  auto and_(const A& a, const C& c, Loc loc = Loc::current()) {
    return bitwise(Op::kAnd, a, c, loc);
  }
  template <class A, class C>
  auto or_(const A& a, const C& c, Loc loc = Loc::current()) {
    return bitwise(Op::kOr, a, c, loc);
  }
  template <class A, class C>
  auto xor_(const A& a, const C& c, Loc loc = Loc::current()) {
    return bitwise(Op::kXor, a, c, loc);
  }
  // not.type d, a
  template <class A>
  auto not_(const A& a, Loc loc = Loc::current()) {
    detail::check_operand<A>();
    using T = detail::operand_or_void_t<A>;
    static_assert(PredType<T> || IntegralType<T>, "PTX: not takes .pred or b16/b32/b64");
    Reg<T> d = self().template new_reg<T>();
    self().emit_op(Op::kNot, {}, {bit_type<T>()}, {Emitter::reg_op(d), Emitter::op(a)}, loc);
    return d;
  }
  // shl.bN d, a, amount (amount: u32)
  template <class A, class S>
  auto shl(const A& a, const S& amount, Loc loc = Loc::current()) {
    return shift(Op::kShl, a, amount, loc);
  }
  // shr.type d, a, amount: .s types shift arithmetically, .u/.b logically
  template <class A, class S>
  auto shr(const A& a, const S& amount, Loc loc = Loc::current()) {
    return shift(Op::kShr, a, amount, loc);
  }

  // popc.bN d, a / clz.bN d, a: population count / leading zeros (result u32)
  template <class A>
  Reg<U32> popc(const A& a, Loc loc = Loc::current()) {
    return count_bits(Op::kPopc, a, loc);
  }
  template <class A>
  Reg<U32> clz(const A& a, Loc loc = Loc::current()) {
    return count_bits(Op::kClz, a, loc);
  }
  // brev.bN d, a: reverse the bits
  template <class A>
  auto brev(const A& a, Loc loc = Loc::current()) {
    detail::check_operand<A>();
    using T = detail::operand_or_void_t<A>;
    static_assert(IntegralType<T> && T::bits >= 32, "PTX: brev takes .b32/.b64");
    Reg<T> d = self().template new_reg<T>();
    self().emit_op(Op::kBrev, {}, {bits_of_t<T>::id}, {Emitter::reg_op(d), Emitter::op(a)}, loc);
    return d;
  }
  // bfe.type d, a, pos, len: extract len bits from pos (.s types sign-extend); pos/len u32
  template <class A, class P, class L>
  auto bfe(const A& a, const P& pos, const L& len, Loc loc = Loc::current()) {
    detail::check_operand<A>();
    using T = detail::operand_or_void_t<A>;
    static_assert(IntType<T> && T::bits >= 32, "PTX: bfe takes .u32 .s32 .u64 .s64");
    check_u32<P>();
    check_u32<L>();
    Reg<T> d = self().template new_reg<T>();
    self().emit_op(Op::kBfe, {}, {T::id},
                   {Emitter::reg_op(d), Emitter::op(a), Emitter::op(pos), Emitter::op(len)}, loc);
    return d;
  }
  // bfi.bN f, a, b, pos, len: insert the low len bits of a into b at pos; pos/len u32
  template <class A, class B2, class P, class L>
  auto bfi(const A& a, const B2& b, const P& pos, const L& len, Loc loc = Loc::current()) {
    detail::check_operand<A>();
    detail::check_operand<B2>();
    using T = detail::operand_or_void_t<A>;
    static_assert(std::is_same_v<T, detail::operand_or_void_t<B2>>,
                  "PTX: both bfi sources have the same type");
    static_assert(IntegralType<T> && T::bits >= 32, "PTX: bfi takes .b32/.b64");
    check_u32<P>();
    check_u32<L>();
    Reg<T> d = self().template new_reg<T>();
    self().emit_op(
        Op::kBfi, {}, {bits_of_t<T>::id},
        {Emitter::reg_op(d), Emitter::op(a), Emitter::op(b), Emitter::op(pos), Emitter::op(len)},
        loc);
    return d;
  }
  // prmt.b32 d, a, b, selector: pick 4 bytes of {b, a} (selector nibbles index bytes 0..7)
  template <class A, class B2, class S>
  auto prmt(const A& a, const B2& b, const S& selector, Loc loc = Loc::current()) {
    detail::check_operand<A>();
    detail::check_operand<B2>();
    using T = detail::operand_or_void_t<A>;
    static_assert(std::is_same_v<T, detail::operand_or_void_t<B2>>,
                  "PTX: both prmt sources have the same type");
    static_assert(IntegralType<T> && T::bits == 32, "PTX: prmt takes .b32");
    check_u32<S>();
    Reg<T> d = self().template new_reg<T>();
    self().emit_op(Op::kPrmt, {}, {TypeId::kB32},
                   {Emitter::reg_op(d), Emitter::op(a), Emitter::op(b), Emitter::op(selector)},
                   loc);
    return d;
  }

  // lop3.b32 d, a, b, c, lut: any logic function of three inputs, named by its truth table: lut
  // is the function applied to the masks 0xF0 (a), 0xCC (b) and 0xAA (c), so (a & b) ^ c is
  // (0xF0 & 0xCC) ^ 0xAA = 0x6A. One instruction for what would take two or three.
  template <class A, class B2, class C>
  auto lop3(const A& a, const B2& b, const C& c, std::uint8_t lut, Loc loc = Loc::current()) {
    detail::check_operand<A>();
    detail::check_operand<B2>();
    detail::check_operand<C>();
    using T = detail::operand_or_void_t<A>;
    static_assert(std::is_same_v<T, detail::operand_or_void_t<B2>> &&
                      std::is_same_v<T, detail::operand_or_void_t<C>>,
                  "PTX: the three lop3 sources have the same type");
    static_assert(IntegralType<T> && T::bits == 32, "PTX: lop3 takes .b32");
    Reg<T> d = self().template new_reg<T>();
    self().emit_op(Op::kLop3, {}, {TypeId::kB32},
                   {Emitter::reg_op(d), Emitter::op(a), Emitter::op(b), Emitter::op(c),
                    Emitter::imm_op(imm<U32>(lut))},
                   loc);
    return d;
  }
  // dp4a.atype.btype d, a, b, c: d = c + the dot product of the four bytes of a and of b (each
  // byte signed for .s32, unsigned for .u32); d and c are .s32 when either source is signed.
  template <class A, class B2, class C>
  auto dp4a(const A& a, const B2& b, const C& c, Loc loc = Loc::current()) {
    return dot_product<A, B2, C>(Op::kDp4a, {}, a, b, c, loc);
  }
  // dp2a.lo/.hi.atype.btype d, a, b, c: d = c + the dot product of the two 16-bit halves of a and
  // two bytes of b (its low two bytes for .lo, its high two for .hi).
  template <class A, class B2, class C>
  auto dp2a_lo(const A& a, const B2& b, const C& c, Loc loc = Loc::current()) {
    return dot_product<A, B2, C>(Op::kDp2a, {Mod::kLo}, a, b, c, loc);
  }
  template <class A, class B2, class C>
  auto dp2a_hi(const A& a, const B2& b, const C& c, Loc loc = Loc::current()) {
    return dot_product<A, B2, C>(Op::kDp2a, {Mod::kHi}, a, b, c, loc);
  }

  // setp.cmp{.ftz}.type p, a, b
  template <Comparison K, class A, class C, ModSet M = NoMods>
  Reg<Pred> setp(K k, const A& a, const C& c, M m = {}, Loc loc = Loc::current()) {
    return compare(k, a, c, m, Mod::kEq, nullptr, loc);
  }
  // setp.cmp.and{.ftz}.type p, a, b, q: p = (a cmp b) && q (q may be `!q`)
  template <Comparison K, class A, class C, ModSet M = NoMods>
  Reg<Pred> setp_and(K k, const A& a, const C& c, Guard q, M m = {}, Loc loc = Loc::current()) {
    return compare(k, a, c, m, Mod::kOpAnd, &q, loc);
  }
  // setp.cmp.or{.ftz}.type p, a, b, q: p = (a cmp b) || q
  template <Comparison K, class A, class C, ModSet M = NoMods>
  Reg<Pred> setp_or(K k, const A& a, const C& c, Guard q, M m = {}, Loc loc = Loc::current()) {
    return compare(k, a, c, m, Mod::kOpOr, &q, loc);
  }

  // selp.type d, a, b, p: d = p ? a : b
  template <class A, class C>
  auto selp(const A& a, const C& c, Reg<Pred> p, Loc loc = Loc::current()) {
    detail::check_operand<A>();
    detail::check_operand<C>();
    using T = detail::operand_or_void_t<A>;
    static_assert(std::is_same_v<T, detail::operand_or_void_t<C>>,
                  "PTX: selp selects between two operands of the same type");
    static_assert(IntegralType<T> || FloatType<T>, "PTX: selp takes b/u/s 16-64 bit, f32, f64");
    Reg<T> d = self().template new_reg<T>();
    self().emit_op(Op::kSelp, {}, {T::id},
                   {Emitter::reg_op(d), Emitter::op(a), Emitter::op(c), Emitter::reg_op(p)}, loc);
    return d;
  }

private:
  B& self() { return static_cast<B&>(*this); }

  // dp4a / dp2a: the sources' types decide the result's (signed when either is).
  template <class A, class B2, class C>
  auto dot_product(Op op, std::vector<Mod> mods, const A& a, const B2& b, const C& c,
                   const Loc& loc) {
    detail::check_operand<A>();
    detail::check_operand<B2>();
    detail::check_operand<C>();
    using TA = detail::operand_or_void_t<A>;
    using TB = detail::operand_or_void_t<B2>;
    constexpr bool kIntSources = (std::is_same_v<TA, U32> || std::is_same_v<TA, S32>)&&(
        std::is_same_v<TB, U32> || std::is_same_v<TB, S32>);
    static_assert(kIntSources, "PTX: dp4a/dp2a take .u32 or .s32 sources");
    using D = std::conditional_t<std::is_same_v<TA, S32> || std::is_same_v<TB, S32>, S32, U32>;
    static_assert(std::is_same_v<detail::operand_or_void_t<C>, D>,
                  "PTX: the dp4a/dp2a addend and result are .s32 when either source is signed, "
                  ".u32 otherwise");
    Reg<D> d = self().template new_reg<D>();
    self().emit_op(op, std::move(mods), {TA::id, TB::id},
                   {Emitter::reg_op(d), Emitter::op(a), Emitter::op(b), Emitter::op(c)}, loc);
    return d;
  }

  template <class T>
  static constexpr TypeId bit_type() {
    if constexpr (PredType<T>) {
      return TypeId::kPred;
    } else {
      return bits_of_t<T>::id;
    }
  }

  // setp with an optional .and/.or combination with a predicate (combine == nullptr: none)
  template <Comparison K, class A, class C, ModSet M>
  Reg<Pred> compare(K, const A& a, const C& c, M, Mod bool_op, const Guard* combine,
                    const Loc& loc) {
    detail::check_operand<A>();
    detail::check_operand<C>();
    using T = detail::operand_or_void_t<A>;
    static_assert(std::is_same_v<T, detail::operand_or_void_t<C>>,
                  "PTX: setp compares two operands of the same type (use cvt first)");
    static_assert(!PredType<T> && !std::is_same_v<T, F16x2> && !std::is_same_v<T, BF16x2>,
                  "PTX: setp compares b/u/s integers or scalar floats (use and_/or_ for .pred)");
    static_assert(!K::float_only || AnyFloatType<T>,
                  "PTX: unordered comparisons (equ neu ltu leu gtu geu num nan) are for floats");
    static_assert(!K::ordering || !BitsType<T>,
                  "PTX: .b types compare with eq/ne only; use a .u or .s type to order");
    static_assert(M::rnd == Rnd::kNone && M::precision == Precision::kDefault && !M::sat,
                  "PTX: setp takes only .ftz");
    static_assert(!M::ftz || std::is_same_v<T, F32> || std::is_same_v<T, F16>,
                  "PTX: setp .ftz applies to f32 and f16 only");
    if constexpr (is_bf16_v<T>) self().require(isa::Form::kBf16Compare, loc);
    Operand sa = detail::source(self(), a, loc);
    Operand sc = detail::source(self(), c, loc);
    Reg<Pred> p = self().template new_reg<Pred>();
    std::vector<Mod> mods{K::mod};
    if (combine) mods.push_back(bool_op);
    append_mods<M>(mods);
    std::vector<Operand> ops{Emitter::reg_op(p), sa, sc};
    if (combine) {
      ops.push_back(Emitter::reg_op(combine->reg));
      ops.back().negated = combine->negated;
    }
    self().emit_op(Op::kSetp, std::move(mods), {T::id}, std::move(ops), loc);
    return p;
  }

  template <class X>
  static constexpr void check_u32() {
    detail::check_operand<X>();
    static_assert(std::is_same_v<detail::operand_or_void_t<X>, U32>,
                  "PTX: bit positions, lengths and prmt selectors are .u32 operands");
  }

  template <class A>
  Reg<U32> count_bits(Op op, const A& a, const Loc& loc) {
    detail::check_operand<A>();
    using T = detail::operand_or_void_t<A>;
    static_assert(IntegralType<T> && T::bits >= 32, "PTX: popc/clz take .b32/.b64");
    Reg<U32> d = self().template new_reg<U32>();
    self().emit_op(op, {}, {bits_of_t<T>::id}, {Emitter::reg_op(d), Emitter::op(a)}, loc);
    return d;
  }

  template <class A, class C>
  auto bitwise(Op op, const A& a, const C& c, const Loc& loc) {
    detail::check_operand<A>();
    detail::check_operand<C>();
    using T = detail::operand_or_void_t<A>;
    static_assert(std::is_same_v<T, detail::operand_or_void_t<C>>,
                  "PTX: both and/or/xor operands must have the same type");
    static_assert(PredType<T> || IntegralType<T>, "PTX: and/or/xor take .pred or b16/b32/b64");
    Reg<T> d = self().template new_reg<T>();
    self().emit_op(op, {}, {bit_type<T>()}, {Emitter::reg_op(d), Emitter::op(a), Emitter::op(c)},
                   loc);
    return d;
  }

  template <class A, class S>
  auto shift(Op op, const A& a, const S& amount, const Loc& loc) {
    detail::check_operand<A>();
    detail::check_operand<S>();
    using T = detail::operand_or_void_t<A>;
    static_assert(IntegralType<T>, "PTX: shl/shr shift b/u/s 16-64 bit integers");
    static_assert(std::is_same_v<detail::operand_or_void_t<S>, U32>,
                  "PTX: the shift amount is a .u32 operand");
    Reg<T> d = self().template new_reg<T>();
    TypeId t = T::id;
    if (op == Op::kShl || BitsType<T>) t = bits_of_t<T>::id;
    self().emit_op(op, {}, {t}, {Emitter::reg_op(d), Emitter::op(a), Emitter::op(amount)}, loc);
    return d;
  }
};

} // namespace ptxkit::ptxgen
