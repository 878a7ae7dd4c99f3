// dtype_test.cpp: the host's f16/bf16 rounding (every f16 and bf16 value, every midpoint between
// neighbours, the edges of each format), and the builder helpers that load half rows as f32 and
// store f32 as halves (common/dtype_access.h): the instructions they emit at each width.
#include "common/dtype_access.h"

#include <bit>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <ptxkit/kernels/dtype.h>
#include <string>

namespace ptxkit::kernels {
namespace {

using ptxgen::BF16;
using ptxgen::F16;
using ptxgen::F32;

bool finite_bits_f16(std::uint16_t b) {
  return (b & 0x7c00) != 0x7c00;
}
bool finite_bits_bf16(std::uint16_t b) {
  return (b & 0x7f80) != 0x7f80;
}

TEST(DTypeHost, EveryF16ValueRoundTrips) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float v = f16_value(bits);
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(f16_value(f16_bits(v)))) << b;
      continue;
    }
    ASSERT_EQ(f16_bits(v), bits) << "f16 bits 0x" << std::hex << b << " value " << v;
  }
}

TEST(DTypeHost, EveryBf16ValueRoundTrips) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float v = bf16_value(bits);
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(bf16_value(bf16_bits(v)))) << b;
      continue;
    }
    ASSERT_EQ(bf16_bits(v), bits) << "bf16 bits 0x" << std::hex << b;
  }
}

// Between two neighbours a and b: the midpoint goes to the one with an even last bit, anything
// just below it to a, just above it to b.
template <class Bits, class Value>
void check_midpoints(Bits to_bits, Value value, bool (*finite)(std::uint16_t)) {
  for (std::uint32_t b = 0; b < 0x7fff; ++b) {
    const auto lo = static_cast<std::uint16_t>(b);
    const auto hi = static_cast<std::uint16_t>(b + 1);
    if (!finite(lo) || !finite(hi)) continue;
    const float a = value(lo);
    const float c = value(hi);
    const float mid = a + (c - a) / 2; // exact: both are f32 values with few bits
    const std::uint16_t even = (lo & 1) == 0 ? lo : hi;
    ASSERT_EQ(to_bits(mid), even) << std::hex << b;
    ASSERT_EQ(to_bits(std::nextafter(mid, 0.0f)), lo) << std::hex << b;
    ASSERT_EQ(to_bits(std::nextafter(mid, std::numeric_limits<float>::infinity())), hi)
        << std::hex << b;
    ASSERT_EQ(to_bits(-mid), static_cast<std::uint16_t>(even | 0x8000)) << std::hex << b;
  }
}

TEST(DTypeHost, F16RoundsToNearestEven) {
  check_midpoints(f16_bits, f16_value, finite_bits_f16);
}
TEST(DTypeHost, Bf16RoundsToNearestEven) {
  check_midpoints(bf16_bits, bf16_value, finite_bits_bf16);
}

TEST(DTypeHost, EdgesOfTheFormats) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(f16_bits(65504.0f), 0x7bff);
  EXPECT_EQ(f16_bits(65519.0f), 0x7bff);
  EXPECT_EQ(f16_bits(65520.0f), 0x7c00); // the tie above the largest finite goes to infinity
  EXPECT_EQ(f16_bits(-inf), 0xfc00);
  EXPECT_EQ(f16_bits(0x1p-24f), 0x0001); // smallest subnormal
  EXPECT_EQ(f16_bits(0x1p-25f), 0x0000); // half of it: a tie, to even (zero)
  EXPECT_EQ(f16_bits(0x1.8p-25f), 0x0001);
  EXPECT_EQ(f16_bits(0x1p-14f), 0x0400); // smallest normal
  EXPECT_EQ(f16_bits(-0.0f), 0x8000);
  EXPECT_EQ(bf16_bits(3.4e38f), 0x7f80); // rounds past the largest finite bf16
  EXPECT_EQ(bf16_bits(1.0f), 0x3f80);
  EXPECT_TRUE(std::isnan(bf16_value(bf16_bits(std::nanf("")))));
  EXPECT_TRUE(std::isnan(f16_value(f16_bits(std::nanf("")))));
  EXPECT_EQ(round_to(DType::kF32, 0.1f), 0.1f);
  EXPECT_EQ(round_to(DType::kBF16, 1.00390625f), 1.0f);   // 1 + 2^-8: a tie, to even
  EXPECT_EQ(round_to(DType::kF16, 1.00048828125f), 1.0f); // 1 + 2^-11
}

TEST(DTypeHost, NamesAndSizes) {
  EXPECT_EQ(dtype_name(DType::kBF16), "bf16");
  EXPECT_EQ(dtype_bytes(DType::kF16), 2u);
  EXPECT_EQ(elem_type(DType::kBF16), ElemType::kBF16);
  EXPECT_EQ(elem_bytes(ElemType::kF16), 2u);
  EXPECT_EQ(elem_bytes(ElemType::kU32), 4u);
  EXPECT_EQ(unit_roundoff(DType::kBF16), 0x1p-8);
}

// A kernel that copies `width` elements per thread from x to y through f32 registers.
template <class E>
std::string copy_kernel(std::uint32_t width) {
  using namespace ptxgen; // NOLINT: the builder's vocabulary
  KernelBuilder b("copy", *Target::parse("sm_90"));
  auto x = b.param<Ptr<Global, const E>>("x");
  auto y = b.param<Ptr<Global, E>>("y");
  Reg<U32> i = b.mul_lo(b.tid_x(), b.imm<U32>(width));
  auto v = common::load_f32<E>(b, x + i, width, common::LoadPath::kReadOnly);
  EXPECT_EQ(v.size(), width);
  common::store_f32<E>(b, y + i, v);
  b.ret();
  auto m = b.finish();
  EXPECT_TRUE(m) << (m ? "" : m.error().to_string());
  return m ? ptxgen::print(*m).text : std::string();
}

TEST(DTypeAccess, Bf16WidensByShiftAndNarrowsByPackedCvt) {
  const std::string one = copy_kernel<BF16>(1);
  EXPECT_NE(one.find("ld.global.nc.b16"), std::string::npos) << one;
  EXPECT_NE(one.find("cvt.rn.bf16.f32"), std::string::npos) << one;
  EXPECT_NE(one.find("st.global.b16"), std::string::npos) << one;
  const std::string eight = copy_kernel<BF16>(8);
  EXPECT_NE(eight.find("ld.global.nc.v4.b32"), std::string::npos) << eight;
  EXPECT_NE(eight.find("shl.b32"), std::string::npos) << eight;
  EXPECT_NE(eight.find("and.b32"), std::string::npos) << eight;
  EXPECT_NE(eight.find("cvt.rn.bf16x2.f32"), std::string::npos) << eight;
  EXPECT_NE(eight.find("st.global.v4.b32"), std::string::npos) << eight;
  EXPECT_EQ(eight.find("cvt.f32.bf16"), std::string::npos) << eight;
}

TEST(DTypeAccess, F16WidensWithCvt) {
  const std::string four = copy_kernel<F16>(4);
  EXPECT_NE(four.find("ld.global.nc.v2.b32"), std::string::npos) << four;
  EXPECT_NE(four.find("cvt.f32.f16"), std::string::npos) << four;
  EXPECT_NE(four.find("cvt.rn.f16x2.f32"), std::string::npos) << four;
  EXPECT_NE(four.find("st.global.v2.b32"), std::string::npos) << four;
  const std::string two = copy_kernel<F16>(2);
  EXPECT_NE(two.find("ld.global.nc.b32"), std::string::npos) << two;
}

TEST(DTypeAccess, F32KeepsItsVectorAccesses) {
  const std::string eight = copy_kernel<F32>(8);
  EXPECT_NE(eight.find("ld.global.nc.v4.f32"), std::string::npos) << eight;
  EXPECT_NE(eight.find("st.global.v4.f32"), std::string::npos) << eight;
  EXPECT_EQ(eight.find("cvt."), std::string::npos) << eight;
}

TEST(DTypeAccess, WithDtypePicksTheTag) {
  auto bits = [](DType t) { return common::with_dtype(t, []<class E>() { return E::bits; }); };
  EXPECT_EQ(bits(DType::kF32), 32u);
  EXPECT_EQ(bits(DType::kF16), 16u);
  EXPECT_EQ(bits(DType::kBF16), 16u);
}

} // namespace
} // namespace ptxkit::kernels
