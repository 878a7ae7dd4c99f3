// argmax_test.cpp: argmax_partial / argmax_final: the documented order (ties to the lowest index,
// NaN greatest, -0 == +0), the two stages against the one-pass reference, the packed-key order
// the kernels reduce with, and the launch contracts.
#include "argmax/argmax.h"

#include <bit>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

TEST(ArgmaxReference, TiesGoToTheLowestIndex) {
  auto r = argmax_reference({1.0f, 3.0f, 3.0f, 2.0f, 3.0f}, 1, 5);
  EXPECT_EQ(r.index[0], 1u);
  EXPECT_EQ(r.value[0], 3.0f);
  auto all_equal = argmax_reference(std::vector<float>(10, -7.0f), 1, 10);
  EXPECT_EQ(all_equal.index[0], 0u);
}

TEST(ArgmaxReference, NanIsGreatestAndSignedZerosAreEqual) {
  auto n = argmax_reference({1.0f, kNan, kInf, kNan}, 1, 4);
  EXPECT_EQ(n.index[0], 1u);
  EXPECT_TRUE(std::isnan(n.value[0]));
  auto z = argmax_reference({-5.0f, -0.0f, 0.0f}, 1, 3);
  EXPECT_EQ(z.index[0], 1u);
  EXPECT_FALSE(std::signbit(z.value[0])); // reported as +0.0
  auto m = argmax_reference({-kInf, -kInf}, 1, 2);
  EXPECT_EQ(m.index[0], 0u);
  EXPECT_EQ(m.value[0], -kInf);
}

TEST(ArgmaxReference, PartialsThenFinalEqualOnePass) {
  for (std::uint32_t vocab : {151936u, 32001u, 32000u, 1000u, 1u, 5u}) {
    ArgmaxPartialConfig pc{.vocab = vocab, .rows = 3};
    HostTensors in = ArgmaxPartial::make_inputs(pc, vocab);
    auto& x = in.f32["x"];
    if (vocab > 100) {
      x[vocab + 77] = 1000.0f; // row 1: a maximum inside, tied later in the row
      x[vocab + vocab - 1] = 1000.0f;
      x[2 * vocab + 50] = kNan; // row 2: a NaN wins
    }
    auto partials = ArgmaxPartial::reference(pc, in);
    ASSERT_TRUE(partials) << partials.error().message;
    const std::uint32_t blocks = argmax_partial_blocks(vocab);
    ASSERT_EQ(partials->u32.at("partial_index").size(), 3u * blocks);
    HostTensors fin_in;
    fin_in.f32["partial_value"] = partials->f32.at("partial_value");
    fin_in.u32["partial_index"] = partials->u32.at("partial_index");
    auto fin = ArgmaxFinal::reference({.num_partials = blocks, .rows = 3}, fin_in);
    ASSERT_TRUE(fin) << fin.error().message;
    auto one = argmax_reference(x, 3, vocab);
    EXPECT_EQ(fin->u32.at("index"), one.index) << vocab;
    for (std::size_t r = 0; r < 3; ++r)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(fin->f32.at("max_value")[r]),
                std::bit_cast<std::uint32_t>(one.value[r]))
          << vocab << " row " << r;
    if (vocab > 100) {
      EXPECT_EQ(one.index[1], 77u);
      EXPECT_EQ(one.index[2], 50u);
    }
  }
}

TEST(ArgmaxReference, EachPartialComesFromItsBlocksUnits) {
  const std::uint32_t vocab = 151936; // 37984 .v4 units, 38 blocks of 256 threads x 4 units
  HostTensors in = ArgmaxPartial::make_inputs({.vocab = vocab, .rows = 1}, 3);
  auto p = argmax_partial_reference(in.f32["x"], 1, vocab);
  ASSERT_EQ(p.index.size(), 38u);
  for (std::uint32_t b = 0; b < 38; ++b) {
    std::uint32_t unit = p.index[b] / 4;
    EXPECT_EQ(unit / kArgmaxThreads % 38, b) << "partial " << b;
  }
  // bf16: 18992 units of 8 halves, 19 blocks.
  auto h = argmax_partial_reference(in.f32["x"], 1, vocab, DType::kBF16);
  ASSERT_EQ(h.index.size(), 19u);
  for (std::uint32_t b = 0; b < 19; ++b)
    EXPECT_EQ(h.index[b] / 8 / kArgmaxThreads % 19, b) << "partial " << b;
}

// The kernels' packed key, mirrored on the host: (key(v) << 32) | ~index.
std::uint64_t packed(float v, std::uint32_t i) {
  std::uint32_t bits = v == 0.0f ? 0u : std::bit_cast<std::uint32_t>(v);
  std::uint32_t key = bits >= 0x80000000u ? ~bits : (bits | 0x80000000u);
  if (std::isnan(v)) key = 0xffffffffu;
  return (std::uint64_t{key} << 32) | ~i;
}

TEST(ArgmaxOrder, PackedKeysOrderLikeTheReference) {
  const std::vector<float> values{-kInf,  -1e30f, -2.5f, -1.0f, -1e-40f, -0.0f, 0.0f,
                                  1e-40f, 1.0f,   2.5f,  1e30f, kInf,    kNan,  -kNan};
  for (float a : values)
    for (float b : values)
      for (std::uint32_t ia : {0u, 5u, 0xfffffffeu})
        for (std::uint32_t ib : {1u, 5u, 7u}) {
          if (ia == ib) continue;
          EXPECT_EQ(packed(a, ia) > packed(b, ib), argmax_beats(a, ia, b, ib))
              << a << "@" << ia << " vs " << b << "@" << ib;
        }
  // 0 is the identity: every element, even -inf, beats it.
  EXPECT_GT(packed(-kInf, 0xfffffffeu), 0u);
}

TEST(ArgmaxContract, BlocksCoverTheVocabularyAndFeedTheFinalStage) {
  EXPECT_EQ(argmax_partial_blocks(151936), 38u); // 37984 units, 1024 per block
  EXPECT_EQ(argmax_partial_blocks(32000), 8u);
  EXPECT_EQ(argmax_partial_blocks(32001), 32u); // scalar: 32001 units
  EXPECT_EQ(argmax_partial_blocks(1), 1u);
  EXPECT_EQ(argmax_partial_blocks(1u << 30), kArgmaxMaxBlocks);
  EXPECT_EQ(argmax_partial_blocks(151936, DType::kBF16), 19u); // 8 halves per unit
  EXPECT_EQ(argmax_partial_blocks(32001, DType::kF16), 32u);   // odd: single halves
  auto d = ArgmaxPartial::launch({.vocab = 151936, .rows = 2});
  EXPECT_EQ(d.grid[0], 38u);
  EXPECT_EQ(d.grid[1], 2u);
  EXPECT_EQ(d.block[0], kArgmaxThreads);
  auto f = ArgmaxFinal::launch({.num_partials = 149, .rows = 2});
  EXPECT_EQ(f.grid[0], 2u);
  auto fp = ArgmaxFinal::params({.num_partials = 149, .rows = 2});
  ASSERT_EQ(fp.size(), 4u);
  EXPECT_EQ(fp[0].elems, 298u);
  EXPECT_EQ(fp[3].elem, ElemType::kU32);
  // The reference configs of the final stage match the partial stage's block counts.
  const Kernel* fin = KernelRegistry::find("argmax_final");
  const Kernel* part = KernelRegistry::find("argmax_partial");
  ASSERT_NE(fin, nullptr);
  ASSERT_NE(part, nullptr);
  for (const auto& rc : ArgmaxPartial::reference_configs()) {
    const auto* match = fin->reference_config(rc.tag);
    ASSERT_NE(match, nullptr) << rc.tag;
    EXPECT_EQ(std::get<std::uint32_t>(match->values[0]),
              argmax_partial_blocks(rc.config.vocab, rc.config.dtype))
        << rc.tag;
  }
}

TEST(ArgmaxHalf, HalfLogitsAreWidenedExactlyAndComparedAsF32) {
  // Ties everywhere (eighths) and a NaN: the half partials equal the f32 partials of the same
  // values, because widening is exact and the order is the same.
  ArgmaxPartialConfig c{.vocab = 4000, .rows = 2, .dtype = DType::kBF16};
  HostTensors in = ArgmaxPartial::make_inputs(c, 9);
  for (float x : in.f32.at("x"))
    ASSERT_EQ(round_to(DType::kBF16, x), x);
  in.f32["x"][4000 + 123] = kNan;
  auto half = ArgmaxPartial::reference(c, in);
  ASSERT_TRUE(half);
  const std::uint32_t blocks = argmax_partial_blocks(4000, DType::kBF16); // 500 units: 1 block
  ASSERT_EQ(half->u32.at("partial_index").size(), 2u * blocks);
  auto one = argmax_reference(in.f32.at("x"), 2, 4000);
  auto fin = argmax_final_reference({half->f32.at("partial_value"), half->u32.at("partial_index")},
                                    2, blocks);
  EXPECT_EQ(fin.index, one.index);
  EXPECT_EQ(fin.index[1], 123u);
  auto p = ArgmaxPartial::params(c);
  EXPECT_EQ(p[0].elem, ElemType::kBF16);
  EXPECT_EQ(p[1].elem, ElemType::kF32); // the partials stay f32 / u32
  EXPECT_EQ(p[2].elem, ElemType::kU32);
}

TEST(ArgmaxHalf, Bf16LogitsAreReadAsWordsFourUnitsInFlight) {
  const Kernel* part = KernelRegistry::find("argmax_partial");
  ASSERT_NE(part, nullptr);
  auto ptx = part->generate(part->reference_config("qwen05b_bf16")->values,
                            *ptxgen::Target::parse("sm_90"));
  ASSERT_TRUE(ptx) << ptx.error().to_string();
  const std::string& t = ptx->text;
  EXPECT_NE(t.find("ld.global.nc.v4.b32"), std::string::npos);
  EXPECT_EQ(t.find("ld.global.nc.v4.f32"), std::string::npos);
  EXPECT_EQ(t.find("ld.global.nc.f32"), std::string::npos);
  // The unrolled loop issues its four loads before the first comparison.
  const auto loop = t.find("$L__scan4_loop:");
  ASSERT_NE(loop, std::string::npos);
  std::size_t at = loop;
  for (int k = 0; k < 4; ++k) {
    at = t.find("ld.global.nc.v4.b32", at + 1);
    ASSERT_NE(at, std::string::npos);
  }
  EXPECT_LT(at, t.find("max.u64", loop));
  // The dtype is in the key; an unknown type is refused.
  auto f32 = config_from_assignments(*part, {});
  auto bf16 = config_from_assignments(*part, {"dtype=bf16"});
  ASSERT_TRUE(f32 && bf16);
  EXPECT_NE(cache_key(*part, *f32, "sm_90"), cache_key(*part, *bf16, "sm_90"));
  auto bad = config_from_assignments(*part, {"dtype=int8"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("dtype"), std::string::npos) << bad.error().message;
}

} // namespace
} // namespace ptxkit::kernels
