// argmax_test.cpp: argmax_partial / argmax_final: the documented order (ties to the lowest index,
// NaN greatest, -0 == +0), the two stages against the one-pass reference, the packed-key order
// the kernels reduce with, and the launch contracts.
#include "argmax/argmax.h"

#include <bit>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
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
  const std::uint32_t vocab = 151936; // 37984 .v4 units, 149 blocks of 256 threads
  HostTensors in = ArgmaxPartial::make_inputs({.vocab = vocab, .rows = 1}, 3);
  auto p = argmax_partial_reference(in.f32["x"], 1, vocab);
  ASSERT_EQ(p.index.size(), 149u);
  for (std::uint32_t b = 0; b < 149; ++b) {
    std::uint32_t unit = p.index[b] / 4;
    EXPECT_EQ(unit / kArgmaxThreads % 149, b) << "partial " << b;
  }
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
  EXPECT_EQ(argmax_partial_blocks(151936), 149u);
  EXPECT_EQ(argmax_partial_blocks(32000), 32u);
  EXPECT_EQ(argmax_partial_blocks(32001), 126u); // scalar: 32001 units
  EXPECT_EQ(argmax_partial_blocks(1), 1u);
  EXPECT_EQ(argmax_partial_blocks(1u << 30), kArgmaxMaxBlocks);
  auto d = ArgmaxPartial::launch({.vocab = 151936, .rows = 2});
  EXPECT_EQ(d.grid[0], 149u);
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
  for (const auto& rc : part->reference_configs()) {
    const auto* match = fin->reference_config(rc.tag);
    ASSERT_NE(match, nullptr) << rc.tag;
    EXPECT_EQ(std::get<std::uint32_t>(match->values[0]),
              argmax_partial_blocks(std::get<std::uint32_t>(rc.values[0])));
  }
}

} // namespace
} // namespace ptxkit::kernels
