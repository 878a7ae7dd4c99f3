// isa/arith.h: arithmetic instructions: add sub mul mad fma div rem rcp sqrt rsqrt ex2 lg2 sin cos
// min max (and their .NaN forms) neg abs.
//
// Operand types must match exactly (PTX converts nothing implicitly: use cvt), and each modifier
// combination is checked against the PTX ISA rule for that instruction and type; the
// static_assert messages quote the rule. Forms that need a newer GPU than the builder's target
// (bf16 add/mul: sm_90) are recorded as build errors by finish().
#pragma once

#include "ptxkit/ptxgen/isa/common.h"
#include "ptxkit/ptxgen/isa/modifiers.h"

#include <type_traits>

namespace ptxkit::ptxgen {

namespace detail {
template <class T, bool Wide>
struct MulResult {
  using type = T;
};
template <class T>
struct MulResult<T, true> {
  using type = widened_t<T>;
};
} // namespace detail

template <class B>
class ArithOps {
public:
  // add{.rnd}{.ftz}{.sat}.type d, a, b  (integers: add{.sat}.s32 only takes .sat)
  template <class A, class C, ModSet M = NoMods>
  auto add(const A& a, const C& c, M = {}, Loc loc = Loc::current()) {
    return add_like<M>(Op::kAdd, a, c, loc);
  }
  // sub: as add.
  template <class A, class C, ModSet M = NoMods>
  auto sub(const A& a, const C& c, M = {}, Loc loc = Loc::current()) {
    return add_like<M>(Op::kSub, a, c, loc);
  }
  // mul{.rnd}{.ftz}{.sat}.ftype d, a, b. Integers need a width: mul_lo / mul_hi / mul_wide.
  template <class A, class C, ModSet M = NoMods>
  auto mul(const A& a, const C& c, M = {}, Loc loc = Loc::current()) {
    using T = detail::operand_or_void_t<A>;
    static_assert(!IntType<T>, "PTX: integer mul needs .lo, .hi or .wide: use mul_lo, mul_hi or "
                               "mul_wide");
    return add_like<M>(Op::kMul, a, c, loc);
  }
  // mul.lo.type d, a, b (low half of the product)
  template <class A, class C>
  auto mul_lo(const A& a, const C& c, Loc loc = Loc::current()) {
    return int_mul<Mod::kLo, false, A, C, std::nullptr_t>(Op::kMul, a, c, nullptr, loc);
  }
  // mul.hi.type d, a, b (high half of the product)
  template <class A, class C>
  auto mul_hi(const A& a, const C& c, Loc loc = Loc::current()) {
    return int_mul<Mod::kHi, false, A, C, std::nullptr_t>(Op::kMul, a, c, nullptr, loc);
  }
  // mul.wide.type d, a, b: 16x16->32, 32x32->64
  template <class A, class C>
  auto mul_wide(const A& a, const C& c, Loc loc = Loc::current()) {
    return int_mul<Mod::kWide, true, A, C, std::nullptr_t>(Op::kMul, a, c, nullptr, loc);
  }
  // mad.lo / mad.hi / mad.wide (d = a*b + c, the addend of the result's type)
  template <class A, class C, class D>
  auto mad_lo(const A& a, const C& c, const D& d, Loc loc = Loc::current()) {
    return int_mul<Mod::kLo, false>(Op::kMad, a, c, &d, loc);
  }
  template <class A, class C, class D>
  auto mad_hi(const A& a, const C& c, const D& d, Loc loc = Loc::current()) {
    return int_mul<Mod::kHi, false>(Op::kMad, a, c, &d, loc);
  }
  template <class A, class C, class D>
  auto mad_wide(const A& a, const C& c, const D& d, Loc loc = Loc::current()) {
    return int_mul<Mod::kWide, true>(Op::kMad, a, c, &d, loc);
  }
  // mad.rnd{.ftz}{.sat}.f32 / mad.rnd.f64: a rounding mode is required (PTX, sm_20+).
  template <class A, class C, class D, ModSet M>
  auto mad(const A& a, const C& c, const D& d, M, Loc loc = Loc::current()) {
    return fma_like<M>(Op::kMad, a, c, d, loc);
  }
  // fma.rnd{.ftz}{.sat}.f32 / fma.rnd.f64 / fma.rn{.ftz}{.sat}.f16{x2} / fma.rn.bf16{x2}
  template <class A, class C, class D, ModSet M>
  auto fma(const A& a, const C& c, const D& d, M, Loc loc = Loc::current()) {
    return fma_like<M>(Op::kFma, a, c, d, loc);
  }
  // div.type (integers, no modifiers); div.approx{.ftz}.f32, div.full{.ftz}.f32,
  // div.rnd{.ftz}.f32; div.rnd.f64.
  template <class A, class C, ModSet M = NoMods>
  auto div(const A& a, const C& c, M = {}, Loc loc = Loc::current()) {
    using T = binary_type<A, C>;
    if constexpr (IntType<T>) {
      static_assert(M::none, "PTX: integer div takes no modifiers");
    } else {
      check_precise<T, M, true>();
    }
    return emit_binary<M, T>(Op::kDiv, a, c, loc);
  }
  // rem.type d, a, b (integers)
  template <class A, class C>
  auto rem(const A& a, const C& c, Loc loc = Loc::current()) {
    using T = binary_type<A, C>;
    static_assert(IntType<T>, "PTX: rem is defined for integer types only");
    return emit_binary<NoMods, T>(Op::kRem, a, c, loc);
  }
  // rcp.approx{.ftz}.f32, rcp.rnd{.ftz}.f32, rcp.rnd.f64
  template <class A, ModSet M>
  auto rcp(const A& a, M, Loc loc = Loc::current()) {
    using T = unary_type<A>;
    static_assert(FloatType<T>, "PTX: rcp is defined for f32 and f64");
    check_precise<T, M, false>();
    return emit_unary<M, T>(Op::kRcp, a, loc);
  }
  // sqrt.approx{.ftz}.f32, sqrt.rnd{.ftz}.f32, sqrt.rnd.f64
  template <class A, ModSet M>
  auto sqrt(const A& a, M, Loc loc = Loc::current()) {
    using T = unary_type<A>;
    static_assert(FloatType<T>, "PTX: sqrt is defined for f32 and f64");
    check_precise<T, M, false>();
    return emit_unary<M, T>(Op::kSqrt, a, loc);
  }
  // rsqrt.approx{.ftz}.f32, rsqrt.approx.f64
  template <class A, ModSet M>
  auto rsqrt(const A& a, M, Loc loc = Loc::current()) {
    using T = unary_type<A>;
    static_assert(FloatType<T>, "PTX: rsqrt is defined for f32 and f64");
    static_assert(M::precision == Precision::kApprox && M::rnd == Rnd::kNone && !M::sat,
                  "PTX: rsqrt requires .approx (rsqrt.approx{.ftz}.f32, rsqrt.approx.f64)");
    static_assert(!(M::ftz && std::is_same_v<T, F64>), "PTX: rsqrt.approx.f64 takes no .ftz");
    return emit_unary<M, T>(Op::kRsqrt, a, loc);
  }
  // ex2.approx{.ftz}.f32 (also ex2.approx.f16 / .f16x2)
  template <class A, ModSet M>
  auto ex2(const A& a, M, Loc loc = Loc::current()) {
    using T = unary_type<A>;
    static_assert(std::is_same_v<T, F32> || std::is_same_v<T, F16> || std::is_same_v<T, F16x2>,
                  "PTX: ex2 is defined for f32, f16 and f16x2");
    static_assert(M::precision == Precision::kApprox && M::rnd == Rnd::kNone && !M::sat,
                  "PTX: ex2 requires .approx for f32 (ex2.approx{.ftz}.f32)");
    static_assert(!M::ftz || std::is_same_v<T, F32>, "PTX: ex2.approx.f16 takes no .ftz");
    return emit_unary<M, T>(Op::kEx2, a, loc);
  }
  // lg2.approx{.ftz}.f32
  template <class A, ModSet M>
  auto lg2(const A& a, M, Loc loc = Loc::current()) {
    return approx_f32<M>(Op::kLg2, a, loc);
  }
  // sin.approx{.ftz}.f32
  template <class A, ModSet M>
  auto sin(const A& a, M, Loc loc = Loc::current()) {
    return approx_f32<M>(Op::kSin, a, loc);
  }
  // cos.approx{.ftz}.f32
  template <class A, ModSet M>
  auto cos(const A& a, M, Loc loc = Loc::current()) {
    return approx_f32<M>(Op::kCos, a, loc);
  }
  // min{.ftz}.type / max{.ftz}.type (ints, f32 (.ftz), f64, f16/bf16{x2})
  template <class A, class C, ModSet M = NoMods>
  auto min(const A& a, const C& c, M = {}, Loc loc = Loc::current()) {
    return min_max<M>(Op::kMin, a, c, loc);
  }
  template <class A, class C, ModSet M = NoMods>
  auto max(const A& a, const C& c, M = {}, Loc loc = Loc::current()) {
    return min_max<M>(Op::kMax, a, c, loc);
  }
  // min.NaN.type / max.NaN.type (f32, f16/bf16{x2}; sm_80): a NaN operand makes the result the
  // canonical NaN, where min/max return the other operand, so a reduction keeps its NaNs.
  template <class A, class C>
  auto min_nan(const A& a, const C& c, Loc loc = Loc::current()) {
    return min_max_nan(Op::kMin, a, c, loc);
  }
  template <class A, class C>
  auto max_nan(const A& a, const C& c, Loc loc = Loc::current()) {
    return min_max_nan(Op::kMax, a, c, loc);
  }
  // neg{.ftz}.type / abs{.ftz}.type (signed ints, f32 (.ftz), f64, f16/bf16{x2})
  template <class A, ModSet M = NoMods>
  auto neg(const A& a, M = {}, Loc loc = Loc::current()) {
    return neg_abs<M>(Op::kNeg, a, loc);
  }
  template <class A, ModSet M = NoMods>
  auto abs(const A& a, M = {}, Loc loc = Loc::current()) {
    return neg_abs<M>(Op::kAbs, a, loc);
  }

private:
  B& self() { return static_cast<B&>(*this); }

  template <class A, class C>
  static consteval auto check_binary_impl() {
    detail::check_operand<A>();
    detail::check_operand<C>();
    using T = detail::operand_or_void_t<A>;
    using U = detail::operand_or_void_t<C>;
    static_assert(std::is_same_v<T, U>,
                  "PTX: both source operands must have the instruction's type; PTX converts "
                  "nothing implicitly (use cvt)");
    return static_cast<T*>(nullptr);
  }
  template <class A, class C>
  using check_binary_t = std::remove_pointer_t<decltype(check_binary_impl<A, C>())>;

  template <class A, class C>
  using binary_type = check_binary_t<A, C>;

  template <class A>
  static consteval auto check_unary_impl() {
    detail::check_operand<A>();
    return static_cast<detail::operand_or_void_t<A>*>(nullptr);
  }
  template <class A>
  using unary_type = std::remove_pointer_t<decltype(check_unary_impl<A>())>;

  // add/sub/mul rules.
  template <ModSet M, class A, class C>
  auto add_like(Op op, const A& a, const C& c, const Loc& loc) {
    using T = binary_type<A, C>;
    static_assert(NumericType<T>, "PTX: add/sub/mul take u/s integer or float types, not "
                                  ".pred or .b types");
    static_assert(M::precision == Precision::kDefault, "PTX: add/sub/mul take no .approx/.full");
    if constexpr (IntType<T>) {
      static_assert(M::rnd == Rnd::kNone && !M::ftz,
                    "PTX: integer add/sub/mul take no rounding or .ftz modifier");
      static_assert(!M::sat || std::is_same_v<T, S32>, "PTX: .sat applies to add/sub.s32 only");
    } else if constexpr (FloatType<T>) {
      static_assert(M::rnd == Rnd::kNone || is_float_rounding(M::rnd),
                    "PTX: float add/sub/mul round with .rn .rz .rm or .rp");
      static_assert(std::is_same_v<T, F32> || (!M::ftz && !M::sat),
                    "PTX: .ftz and .sat apply to f32 only");
    } else {
      static_assert(M::rnd == Rnd::kNone || M::rnd == Rnd::kRn,
                    "PTX: f16/bf16 add/sub/mul round with .rn only");
      static_assert(!is_bf16_v<T> || (!M::ftz && !M::sat), "PTX: bf16 add/sub/mul take no "
                                                           ".ftz/.sat");
      if constexpr (is_bf16_v<T>) self().require(isa::Form::kBf16Arithmetic, loc);
    }
    return emit_binary<M, T>(op, a, c, loc);
  }

  template <Mod Width, bool Wide, class A, class C, class D>
  auto int_mul(Op op, const A& a, const C& c, const D* addend, const Loc& loc) {
    using T = binary_type<A, C>;
    static_assert(IntType<T>, "PTX: mul/mad .lo/.hi/.wide take u/s integer types");
    if constexpr (Wide) {
      static_assert(T::bits == 16 || T::bits == 32,
                    "PTX: mul.wide/mad.wide take 16- or 32-bit integers");
    }
    using R = typename detail::MulResult<T, Wide>::type;
    Reg<R> d = self().template new_reg<R>();
    std::vector<Operand> ops{Emitter::reg_op(d), Emitter::op(a), Emitter::op(c)};
    if constexpr (!std::is_same_v<D, std::nullptr_t>) {
      detail::check_operand<D>();
      static_assert(std::is_same_v<detail::operand_or_void_t<D>, R>,
                    "PTX: the mad addend has the result's type (the wide type for .wide)");
      ops.push_back(Emitter::op(*addend));
    }
    self().emit_op(op, {Width}, {T::id}, std::move(ops), loc);
    return d;
  }

  template <ModSet M, class A, class C, class D>
  auto fma_like(Op op, const A& a, const C& c, const D& d, const Loc& loc) {
    using T = binary_type<A, C>;
    detail::check_operand<D>();
    static_assert(std::is_same_v<detail::operand_or_void_t<D>, T>,
                  "PTX: all three fma/mad operands must have the same type");
    static_assert(AnyFloatType<T>, "PTX: float mad/fma take f32/f64 (fma also f16/bf16); "
                                   "integer mad is mad_lo/mad_hi/mad_wide");
    static_assert(M::precision == Precision::kDefault, "PTX: fma/mad take no .approx/.full");
    if constexpr (FloatType<T>) {
      static_assert(is_float_rounding(M::rnd),
                    "PTX: fma.f32/f64 and mad.f32/f64 require a rounding mode (.rn .rz .rm .rp)");
      static_assert(std::is_same_v<T, F32> || (!M::ftz && !M::sat),
                    "PTX: .ftz and .sat apply to f32 only");
    } else {
      static_assert(M::rnd == Rnd::kRn, "PTX: fma on f16/bf16 requires .rn");
      static_assert(!is_bf16_v<T> || (!M::ftz && !M::sat), "PTX: fma.rn.bf16 takes no .ftz/.sat");
    }
    if constexpr (HalfType<T>) {
      if (op == Op::kMad) self().error("PTX: mad is not defined for f16/bf16: use fma", loc);
    }
    Operand sa = detail::source(self(), a, loc);
    Operand sc = detail::source(self(), c, loc);
    Operand sd = detail::source(self(), d, loc);
    Reg<T> r = self().template new_reg<T>();
    std::vector<Mod> mods;
    append_mods<M>(mods);
    self().emit_op(op, std::move(mods), {T::id}, {Emitter::reg_op(r), sa, sc, sd}, loc);
    return r;
  }

  // div/rcp/sqrt: f32 needs exactly one of .approx, .full (div only) or a rounding mode; f64
  // needs a rounding mode.
  template <class T, ModSet M, bool AllowFull>
  static constexpr void check_precise() {
    static_assert(FloatType<T>, "PTX: div/rcp/sqrt take integer (div only), f32 or f64 types");
    static_assert(!M::sat, "PTX: div/rcp/sqrt take no .sat");
    if constexpr (std::is_same_v<T, F32>) {
      static_assert(AllowFull || M::precision != Precision::kFull,
                    "PTX: .full exists for div.f32 only");
      static_assert((M::precision != Precision::kDefault) != is_float_rounding(M::rnd),
                    "PTX: div/rcp/sqrt.f32 need exactly one of .approx, .full (div) or a "
                    "rounding mode (.rn .rz .rm .rp)");
    } else {
      static_assert(is_float_rounding(M::rnd) && M::precision == Precision::kDefault && !M::ftz,
                    "PTX: div/rcp/sqrt.f64 need a rounding mode (.rn .rz .rm .rp) and take no "
                    ".approx/.ftz");
    }
  }

  template <ModSet M, class A>
  auto approx_f32(Op op, const A& a, const Loc& loc) {
    using T = unary_type<A>;
    static_assert(std::is_same_v<T, F32>, "PTX: lg2/sin/cos are defined for f32 only");
    static_assert(M::precision == Precision::kApprox && M::rnd == Rnd::kNone && !M::sat,
                  "PTX: lg2/sin/cos require .approx for f32 (op.approx{.ftz}.f32)");
    return emit_unary<M, T>(op, a, loc);
  }

  template <ModSet M, class A, class C>
  auto min_max(Op op, const A& a, const C& c, const Loc& loc) {
    using T = binary_type<A, C>;
    static_assert(NumericType<T>, "PTX: min/max take u/s integer or float types");
    static_assert(M::rnd == Rnd::kNone && M::precision == Precision::kDefault && !M::sat,
                  "PTX: min/max take no rounding, .approx or .sat");
    static_assert(!M::ftz || std::is_same_v<T, F32> || std::is_same_v<T, F16> ||
                      std::is_same_v<T, F16x2>,
                  "PTX: min/max .ftz applies to f32 and f16 only");
    return emit_binary<M, T>(op, a, c, loc);
  }

  template <class A, class C>
  auto min_max_nan(Op op, const A& a, const C& c, const Loc& loc) {
    using T = binary_type<A, C>;
    static_assert(std::is_same_v<T, F32> || HalfType<T>,
                  "PTX: min/max .NaN applies to f32, f16 and bf16 (and f16x2, bf16x2) only");
    self().require(isa::Form::kMinMaxNan, loc);
    Operand sa = detail::source(self(), a, loc);
    Operand sc = detail::source(self(), c, loc);
    Reg<T> d = self().template new_reg<T>();
    self().emit_op(op, {Mod::kPropagateNan}, {T::id}, {Emitter::reg_op(d), sa, sc}, loc);
    return d;
  }

  template <ModSet M, class A>
  auto neg_abs(Op op, const A& a, const Loc& loc) {
    using T = unary_type<A>;
    static_assert(SignedType<T> || AnyFloatType<T>, "PTX: neg/abs take signed integer or float "
                                                    "types");
    static_assert(M::rnd == Rnd::kNone && M::precision == Precision::kDefault && !M::sat,
                  "PTX: neg/abs take no rounding, .approx or .sat");
    static_assert(!M::ftz || std::is_same_v<T, F32> || std::is_same_v<T, F16> ||
                      std::is_same_v<T, F16x2>,
                  "PTX: neg/abs .ftz applies to f32 and f16 only");
    return emit_unary<M, T>(op, a, loc);
  }

  template <ModSet M, class T, class A, class C>
  Reg<T> emit_binary(Op op, const A& a, const C& c, const Loc& loc) {
    Operand sa = detail::source(self(), a, loc);
    Operand sc = detail::source(self(), c, loc);
    Reg<T> d = self().template new_reg<T>();
    std::vector<Mod> mods;
    append_mods<M>(mods);
    self().emit_op(op, std::move(mods), {T::id}, {Emitter::reg_op(d), sa, sc}, loc);
    return d;
  }
  template <ModSet M, class T, class A>
  Reg<T> emit_unary(Op op, const A& a, const Loc& loc) {
    Operand sa = detail::source(self(), a, loc);
    Reg<T> d = self().template new_reg<T>();
    std::vector<Mod> mods;
    append_mods<M>(mods);
    self().emit_op(op, std::move(mods), {T::id}, {Emitter::reg_op(d), sa}, loc);
    return d;
  }
};

} // namespace ptxkit::ptxgen
