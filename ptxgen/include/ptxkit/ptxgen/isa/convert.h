// isa/convert.h: values in and between types: immediates (structural and baked), mov, cvt,
// bitcast, f16x2 packing.
//
// cvt's PTX rules are checked at compile time: float->int and int->float need a rounding mode
// (.rni.. resp. .rn..), narrowing float->float needs .rn.., widening float->float takes none,
// int->int takes none (.sat allowed). Baked immediates remember the config field they came from,
// so a printed module can list every PTX line that depends on a config value.
#pragma once

#include "ptxkit/ptxgen/isa/common.h"
#include "ptxkit/ptxgen/isa/modifiers.h"

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace ptxkit::ptxgen {

namespace detail {
std::uint16_t f32_to_f16_bits(float v);  // round to nearest even
std::uint16_t f32_to_bf16_bits(float v); // round to nearest even
std::string value_text(double v);        // shortest text that reads back to v
std::string value_text(float v);
std::string value_text(std::int64_t v);
std::string value_text(std::uint64_t v);

template <PtxType T>
constexpr std::uint64_t imm_bits(typename T::cpp_type v) {
  if constexpr (std::is_same_v<T, F32>) {
    return std::bit_cast<std::uint32_t>(v);
  } else if constexpr (std::is_same_v<T, F64>) {
    return std::bit_cast<std::uint64_t>(v);
  } else if constexpr (std::is_same_v<T, F16>) {
    return f32_to_f16_bits(v);
  } else if constexpr (std::is_same_v<T, BF16>) {
    return f32_to_bf16_bits(v);
  } else if constexpr (T::bits == 64) {
    return static_cast<std::uint64_t>(v);
  } else {
    using UnsignedBits = std::conditional_t<T::bits == 16, std::uint16_t, std::uint32_t>;
    return static_cast<UnsignedBits>(v);
  }
}
template <PtxType T>
std::string imm_text(typename T::cpp_type v) {
  if constexpr (std::is_floating_point_v<typename T::cpp_type>) {
    return value_text(v);
  } else if constexpr (std::is_signed_v<typename T::cpp_type>) {
    return value_text(static_cast<std::int64_t>(v));
  } else {
    return value_text(static_cast<std::uint64_t>(v));
  }
}
} // namespace detail

// A structural immediate (no config field behind it): imm<F32>(1.0f), imm<U32>(7).
template <PtxType T>
constexpr Imm<T> imm(typename T::cpp_type value) {
  static_assert(!PredType<T>, "PTX: there are no .pred immediates; use setp or a constant compare");
  return Imm<T>(detail::imm_bits<T>(value), -1);
}

template <class B>
class ConvertOps {
public:
  // Structural immediate (same as the free function imm<T>).
  template <PtxType T>
  Imm<T> imm(typename T::cpp_type value) const {
    return ptxgen::imm<T>(value);
  }
  // An immediate from a config field: remembered with the field's name, reported by the printer.
  template <PtxType T>
  Imm<T> baked(std::string_view field, typename T::cpp_type value) {
    static_assert(!PredType<T>, "PTX: there are no .pred immediates");
    return Imm<T>(detail::imm_bits<T>(value),
                  self().add_baked(std::string(field), detail::imm_text<T>(value)));
  }

  // mov.type d, a: a fresh register holding a (an immediate or another register's value).
  template <class A>
  auto mov(const A& a, Loc loc = Loc::current()) {
    detail::check_operand<A>();
    using T = detail::operand_or_void_t<A>;
    Reg<T> d = self().template new_reg<T>();
    self().emit_mov(d.id(), T::id, Emitter::op(a), loc);
    return d;
  }

  // cvt{.rnd|.irnd}{.ftz}{.sat}.To.From d, a
  template <PtxType To, class A, ModSet M = NoMods>
  Reg<To> cvt(const A& a, M = {}, Loc loc = Loc::current()) {
    detail::check_operand<A>();
    using From = detail::operand_or_void_t<A>;
    static_assert(NumericType<From> && NumericType<To>,
                  "PTX: cvt converts u/s integers and floats; use bitcast for .b types and "
                  "selp for .pred");
    static_assert(From::kind != TypeKind::kHalf2 && To::kind != TypeKind::kHalf2,
                  "PTX: packed f16x2/bf16x2 are made with cvt_pack, not cvt");
    static_assert(M::precision == Precision::kDefault, "PTX: cvt takes no .approx/.full");
    constexpr bool from_f = AnyFloatType<From>;
    constexpr bool to_f = AnyFloatType<To>;
    if constexpr (from_f && !to_f) {
      static_assert(is_int_rounding(M::rnd),
                    "PTX: cvt from float to integer requires an integer rounding mode (.rni .rzi "
                    ".rmi .rpi)");
    } else if constexpr (!from_f && to_f) {
      static_assert(is_float_rounding(M::rnd),
                    "PTX: cvt from integer to float requires a rounding mode (.rn .rz .rm .rp)");
    } else if constexpr (from_f && to_f) {
      if constexpr (std::is_same_v<From, To>) {
        static_assert(is_int_rounding(M::rnd), "PTX: cvt between the same float type rounds to "
                                               "an integral value and requires .rni .rzi .rmi "
                                               "or .rpi (else use mov)");
      } else if constexpr (To::bits > From::bits) {
        static_assert(M::rnd == Rnd::kNone, "PTX: widening float cvt is exact and takes no "
                                            "rounding modifier");
      } else {
        static_assert(is_float_rounding(M::rnd), "PTX: narrowing float cvt requires a rounding "
                                                 "mode (.rn .rz .rm .rp)");
      }
    } else {
      static_assert(!std::is_same_v<From, To>, "PTX: cvt between identical types: use mov");
      static_assert(M::rnd == Rnd::kNone, "PTX: integer-to-integer cvt takes no rounding mode");
    }
    static_assert(!M::ftz || std::is_same_v<From, F32> || std::is_same_v<To, F32>,
                  "PTX: cvt .ftz applies when the source or destination is f32");
    if constexpr (is_bf16_v<From> || is_bf16_v<To>) {
      if constexpr (!(std::is_same_v<From, F32> && std::is_same_v<To, BF16>)&&!(
                        std::is_same_v<From, BF16> && std::is_same_v<To, F32>)) {
        self().require(isa::Form::kBf16Conversion, loc);
      }
    }
    Operand sa = detail::source(self(), a, loc);
    Reg<To> d = self().template new_reg<To>();
    std::vector<Mod> mods;
    append_mods<M>(mods);
    self().emit_op(Op::kCvt, std::move(mods), {To::id, From::id}, {Emitter::reg_op(d), sa}, loc);
    return d;
  }

  // cvt.rn{.relu}.f16x2.f32 / .bf16x2.f32 d, hi, lo: two f32 into one packed register.
  template <PtxType To>
  Reg<To> cvt_pack(Reg<F32> hi, Reg<F32> lo, Loc loc = Loc::current()) {
    static_assert(To::kind == TypeKind::kHalf2, "PTX: cvt_pack makes f16x2 or bf16x2");
    Reg<To> d = self().template new_reg<To>();
    self().emit_op(Op::kCvt, {Mod::kRn}, {To::id, TypeId::kF32},
                   {Emitter::reg_op(d), Emitter::reg_op(hi), Emitter::reg_op(lo)}, loc);
    return d;
  }

  // mov.bN d, a: reinterpret the bits of a as type To (same width).
  template <PtxType To, PtxType From>
  Reg<To> bitcast(Reg<From> a, Loc loc = Loc::current()) {
    static_assert(!PredType<From> && !PredType<To>, "PTX: .pred has no bit pattern to cast");
    static_assert(From::bits == To::bits, "bitcast needs types of the same width (use cvt)");
    Reg<To> d = self().template new_reg<To>();
    self().emit_op(Op::kMov, {}, {bits_of_t<To>::id}, {Emitter::reg_op(d), Emitter::reg_op(a)},
                   loc);
    return d;
  }

  // mov.b32 d, {lo, hi}: two 16-bit halves into one 32-bit register.
  template <PtxType To, PtxType Half>
  Reg<To> pack(Reg<Half> lo, Reg<Half> hi, Loc loc = Loc::current()) {
    static_assert(To::bits == 32 && Half::bits == 16, "pack joins two 16-bit values into 32 bits");
    Reg<To> d = self().template new_reg<To>();
    self().emit_op(Op::kMov, {}, {TypeId::kB32},
                   {Emitter::reg_op(d), Emitter::vec_op({lo.id(), hi.id()})}, loc);
    return d;
  }
  // mov.b32 {lo, hi}, a: one 32-bit register into two 16-bit halves ({lo, hi}).
  template <PtxType Half, PtxType From>
  std::array<Reg<Half>, 2> unpack(Reg<From> a, Loc loc = Loc::current()) {
    static_assert(From::bits == 32 && Half::bits == 16, "unpack splits 32 bits into two halves");
    Reg<Half> lo = self().template new_reg<Half>();
    Reg<Half> hi = self().template new_reg<Half>();
    self().emit_op(Op::kMov, {}, {TypeId::kB32},
                   {Emitter::vec_op({lo.id(), hi.id()}), Emitter::reg_op(a)}, loc);
    return {lo, hi};
  }

private:
  B& self() { return static_cast<B&>(*this); }
};

} // namespace ptxkit::ptxgen
