// types.h: the PTX register type tags (Pred, U32, F32, ...) and the concepts that classify them.
//
// A PTX type is a C++ type, so `Reg<F32>` and `Reg<U32>` are different handle types and an
// instruction that mixes them does not compile. Each tag names its ISA table record (TypeId),
// from which its kind and width come, and the C++ type an immediate of it is written with.
#pragma once

#include "ptxkit/ptxgen/isa/table.h"

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace ptxkit::ptxgen {

using isa::TypeKind;

// A tag's kind and width are its ISA table record's; the tag adds the C++ type of immediates.
#define PTXKIT_DEFINE_TYPE_TAG(Name, Id, Cpp)                                                      \
  struct Name {                                                                                    \
    static constexpr TypeId id = TypeId::Id;                                                       \
    static constexpr TypeKind kind = isa::kind(TypeId::Id);                                        \
    static constexpr unsigned bits = type_bits(TypeId::Id);                                        \
    using cpp_type = Cpp;                                                                          \
  }

PTXKIT_DEFINE_TYPE_TAG(Pred, kPred, bool);
PTXKIT_DEFINE_TYPE_TAG(B16, kB16, std::uint16_t);
PTXKIT_DEFINE_TYPE_TAG(B32, kB32, std::uint32_t);
PTXKIT_DEFINE_TYPE_TAG(B64, kB64, std::uint64_t);
PTXKIT_DEFINE_TYPE_TAG(U16, kU16, std::uint16_t);
PTXKIT_DEFINE_TYPE_TAG(U32, kU32, std::uint32_t);
PTXKIT_DEFINE_TYPE_TAG(U64, kU64, std::uint64_t);
PTXKIT_DEFINE_TYPE_TAG(S16, kS16, std::int16_t);
PTXKIT_DEFINE_TYPE_TAG(S32, kS32, std::int32_t);
PTXKIT_DEFINE_TYPE_TAG(S64, kS64, std::int64_t);
PTXKIT_DEFINE_TYPE_TAG(F16, kF16, float);             // immediates rounded to nearest f16
PTXKIT_DEFINE_TYPE_TAG(F16x2, kF16x2, std::uint32_t); // immediates as raw bits
PTXKIT_DEFINE_TYPE_TAG(BF16, kBF16, float);           // immediates rounded to nearest bf16
PTXKIT_DEFINE_TYPE_TAG(BF16x2, kBF16x2, std::uint32_t);
PTXKIT_DEFINE_TYPE_TAG(F32, kF32, float);
PTXKIT_DEFINE_TYPE_TAG(F64, kF64, double);

#undef PTXKIT_DEFINE_TYPE_TAG

// Any of the tags above.
template <class T>
concept PtxType = requires {
  { T::id } -> std::convertible_to<TypeId>;
  { T::kind } -> std::convertible_to<TypeKind>;
};

template <class T>
concept PredType = PtxType<T> && T::kind == TypeKind::kPred;
template <class T>
concept BitsType = PtxType<T> && T::kind == TypeKind::kBits;
template <class T>
concept UnsignedType = PtxType<T> && T::kind == TypeKind::kUnsigned;
template <class T>
concept SignedType = PtxType<T> && T::kind == TypeKind::kSigned;
// u16..s64: arithmetic integer types.
template <class T>
concept IntType = UnsignedType<T> || SignedType<T>;
// b16..s64: anything held in an integer register that is not a float.
template <class T>
concept IntegralType = IntType<T> || BitsType<T>;
// f32, f64.
template <class T>
concept FloatType = PtxType<T> && T::kind == TypeKind::kFloat;
// f16, bf16, f16x2, bf16x2.
template <class T>
concept HalfType = PtxType<T> &&(T::kind == TypeKind::kHalf || T::kind == TypeKind::kHalf2);
// Any floating-point type, packed or not.
template <class T>
concept AnyFloatType = FloatType<T> || HalfType<T>;
template <class T>
concept NumericType = IntType<T> || AnyFloatType<T>;

template <class T>
inline constexpr bool is_bf16_v = std::is_same_v<T, BF16> || std::is_same_v<T, BF16x2>;

// The unsigned integer type of a width: 16 -> U16, 32 -> U32, 64 -> U64.
template <unsigned Bits>
struct UnsignedOfWidth;
template <>
struct UnsignedOfWidth<16> {
  using type = U16;
};
template <>
struct UnsignedOfWidth<32> {
  using type = U32;
};
template <>
struct UnsignedOfWidth<64> {
  using type = U64;
};

// The bit-size type of a width: 16 -> B16, 32 -> B32, 64 -> B64.
template <unsigned Bits>
struct BitsOfWidth;
template <>
struct BitsOfWidth<16> {
  using type = B16;
};
template <>
struct BitsOfWidth<32> {
  using type = B32;
};
template <>
struct BitsOfWidth<64> {
  using type = B64;
};
template <class T>
using bits_of_t = typename BitsOfWidth<T::bits>::type;

// The double-width integer type that mul.wide / mad.wide produce.
template <class T>
struct Widened;
template <>
struct Widened<U16> {
  using type = U32;
};
template <>
struct Widened<U32> {
  using type = U64;
};
template <>
struct Widened<S16> {
  using type = S32;
};
template <>
struct Widened<S32> {
  using type = S64;
};
template <class T>
using widened_t = typename Widened<T>::type;

} // namespace ptxkit::ptxgen
