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
    for (std::size_t i = vocab; i < 2u * vocab; ++i)
      if (std::isnan(x[i])) x[i] = 0.0f; // row 1 without the planted NaNs (make_inputs)
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
  // The unrolled loop issues its four loads before the group's first packed max, and folds
  // element by element only past the branch for a zero or NaN maximum.
  const auto loop = t.find("$L__scan4_loop:");
  ASSERT_NE(loop, std::string::npos);
  std::size_t at = loop;
  for (int k = 0; k < 4; ++k) {
    at = t.find("ld.global.nc.v4.b32", at + 1);
    ASSERT_NE(at, std::string::npos);
  }
  const auto first_max = t.find("max.NaN.bf16x2", loop);
  EXPECT_LT(at, first_max);
  const auto exact = t.find("$L__group_exact:", loop);
  ASSERT_NE(exact, std::string::npos);
  EXPECT_LT(t.find("bra $L__group_done;", first_max), exact);
  EXPECT_GT(t.find("setp.nan.f32", exact), exact);
  EXPECT_LT(t.find("setp.nan.f32", exact), t.find("$L__scan4_done:", loop));
  // The dtype is in the key; an unknown type is refused.
  auto f32 = config_from_assignments(*part, {});
  auto bf16 = config_from_assignments(*part, {"dtype=bf16"});
  ASSERT_TRUE(f32 && bf16);
  EXPECT_NE(cache_key(*part, *f32, "sm_90"), cache_key(*part, *bf16, "sm_90"));
  auto bad = config_from_assignments(*part, {"dtype=int8"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("dtype"), std::string::npos) << bad.error().message;
}

TEST(ArgmaxInputs, PlantedCasesShowInTheirBlocksPartials) {
  // Positive controls for the half path's group fold (plant_cases in argmax_reference.cpp): each
  // block's partial is the planted element, found by the plain reference scan.
  struct Case {
    std::string_view tag;
    std::uint32_t width;
  };
  for (Case k : {Case{"qwen05b_bf16", 8}, Case{"llama_f16", 8}, Case{"qwen05b", 4}}) {
    const Kernel* part = KernelRegistry::find("argmax_partial");
    ASSERT_NE(part, nullptr);
    ArgmaxPartialConfig c;
    for (const auto& rc : ArgmaxPartial::reference_configs())
      if (rc.tag == k.tag) c = rc.config;
    c.rows = 2;
    HostTensors in = ArgmaxPartial::make_inputs(c, 5);
    auto out = ArgmaxPartial::reference(c, in);
    ASSERT_TRUE(out) << out.error().message;
    const auto& value = out->f32.at("partial_value");
    const auto& index = out->u32.at("partial_index");
    const std::uint32_t blocks = argmax_partial_blocks(c.vocab, c.dtype);
    const std::uint32_t stride = blocks * kArgmaxThreads;
    const std::uint32_t w = k.width;
    for (std::uint32_t r = 0; r < 2; ++r) {
      const std::size_t p = std::size_t{r} * blocks;
      const auto bits = [&](std::uint32_t b) { return std::bit_cast<std::uint32_t>(value[p + b]); };
      EXPECT_EQ(index[p + 1], 256 * w + 1) << k.tag << ": a tie inside the new best's unit";
      EXPECT_EQ(value[p + 1], 20.0f);
      EXPECT_EQ(index[p + 2], 512 * w + (w - 1) / 2 + 1) << k.tag << ": the first NaN";
      EXPECT_EQ(bits(2), 0x7fffffffu);
      EXPECT_EQ(index[p + 3], 768 * w + (w - 1) / 2) << k.tag << ": the -0.0 before +0.0";
      EXPECT_EQ(bits(3), 0u);
      if (blocks > 6) {
        EXPECT_EQ(index[p + 4], (1024 + 3 * stride) * w + w - 1) << k.tag << ": all right";
        EXPECT_EQ(index[p + 5], (5 * 256 + 7 + stride) * w + w / 2) << k.tag;
        EXPECT_EQ(index[p + blocks - 1], (stride - 1) * w) << k.tag << ": a NaN, then more";
        EXPECT_EQ(bits(blocks - 1), 0x7fffffffu);
      }
    }
    // The input itself holds the half values the device reads (NaNs stay NaNs of their sign).
    const auto& x = in.f32.at("x");
    EXPECT_TRUE(std::signbit(x[512 * w + (w - 1) / 2 + 1]));
    EXPECT_TRUE(std::isnan(x[512 * w + (w - 1) / 2 + 1]));
    EXPECT_TRUE(std::signbit(x[768 * w + (w - 1) / 2]));
  }
}

// The half path's group fold (argmax_builder.cpp: fold_words, first_of_max) mirrored on bf16 bits:
// the packed .NaN max tree, the key test against the best, the per-element fold of a group whose
// maximum is a zero or a NaN, and the descent that compares bits. It must agree with the plain
// scan on every group, ties, zeros of both signs, infinities, subnormals and NaNs included.
namespace mirror {

float value(std::uint16_t h) {
  return std::bit_cast<float>(std::uint32_t{h} << 16);
}
std::uint32_t key(std::uint16_t h) {
  return static_cast<std::uint32_t>(packed(value(h), 0) >> 32);
}
bool is_nan(std::uint16_t h) {
  return std::isnan(value(h));
}
// max.NaN.bf16 (nan) or max.bf16 on one lane; between +0.0 and -0.0 PTX does not say which, so
// the mirror takes either (`pick`).
std::uint16_t max(std::uint16_t a, std::uint16_t b, bool nan, bool pick) {
  if (nan && (is_nan(a) || is_nan(b))) return 0x7fff;
  if (value(a) == value(b)) return pick ? a : b;
  return value(a) > value(b) ? a : b;
}

struct Best {
  std::uint32_t key;
  std::uint32_t index;
};

// halves: the group, two per word, in index order; element i has index first + i.
Best fold(Best best, const std::vector<std::uint16_t>& halves, std::uint32_t first,
          std::uint64_t& coin) {
  const auto flip = [&coin] {
    coin = coin * 6364136223846793005u + 1442695040888963407u;
    return (coin >> 63) != 0;
  };
  const std::size_t words = halves.size() / 2;
  // The tree, lane by lane: lanes[0] the low halves, lanes[1] the high ones.
  const auto lane_max = [&](std::size_t from, std::size_t n, int lane, bool nan) {
    std::uint16_t m = halves[2 * from + lane];
    for (std::size_t i = 1; i < n; ++i)
      m = max(m, halves[2 * (from + i) + lane], nan, flip());
    return m;
  };
  const std::uint16_t m =
      max(lane_max(0, words, 0, true), lane_max(0, words, 1, true), true, flip());
  const std::uint32_t k = key(m);
  if (k <= best.key) return best;
  if (is_nan(m) || value(m) == 0.0f) {
    for (std::size_t i = 0; i < halves.size(); ++i)
      if (key(halves[i]) > best.key) best = {key(halves[i]), first + static_cast<std::uint32_t>(i)};
    return best;
  }
  std::size_t from = 0;
  for (std::size_t n = words; n > 1; n /= 2) {
    const std::uint16_t left =
        max(lane_max(from, n / 2, 0, false), lane_max(from, n / 2, 1, false), false, flip());
    if (left != m) from += n / 2;
  }
  const bool low = halves[2 * from] == m;
  return {k, first + static_cast<std::uint32_t>(2 * from + (low ? 0 : 1))};
}

} // namespace mirror

TEST(ArgmaxOrder, GroupFoldOfHalvesAgreesWithThePlainScan) {
  const std::uint16_t pool[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x3f80, 0x3f80, 0x4000, 0x4000,
                                0xbf80, 0xc000, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81, 0x4040};
  InputRng rng(17);
  std::uint64_t coin = 3;
  int searched = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const std::size_t words = std::size_t{1} << (rng.next_u64() % 5); // 1 .. 16
    std::vector<std::uint16_t> halves(2 * words);
    // Few distinct values per group, so ties and shared maxima are the rule.
    const std::uint64_t palette = rng.next_u64();
    for (auto& h : halves)
      h = pool[(palette >> (4 * (rng.next_u64() % 4))) & 15];
    const std::uint32_t first = 1000;
    const std::uint16_t before = pool[rng.next_u64() % 16];
    mirror::Best best{0, 0};
    if (trial % 3 != 0) best = {mirror::key(before), 7}; // a best from an earlier group
    mirror::Best got = mirror::fold(best, halves, first, coin);
    float v = trial % 3 != 0 ? mirror::value(before) : 0.0f;
    std::uint32_t at = best.index;
    bool empty = trial % 3 == 0;
    for (std::size_t i = 0; i < halves.size(); ++i) {
      const auto idx = first + static_cast<std::uint32_t>(i);
      if (empty || argmax_beats(mirror::value(halves[i]), idx, v, at)) {
        empty = false;
        v = mirror::value(halves[i]);
        at = idx;
      }
    }
    ASSERT_EQ(got.index, at) << "trial " << trial;
    // v is a bf16 value (from the group or the earlier best): its high 16 bits are all of it.
    ASSERT_EQ(got.key,
              mirror::key(static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(v) >> 16)))
        << "trial " << trial;
    searched += got.index >= first && !std::isnan(v) && v != 0.0f;
  }
  EXPECT_GT(searched, 5000); // the descent, not only the per-element fold, was exercised
}

} // namespace
} // namespace ptxkit::kernels
