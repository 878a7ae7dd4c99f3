// qkv_rope_append_test.cpp: the fused kernel's reference is the composition it replaces
// (bias_add, rope_neox_batched on Q and K, kv_scatter), the device guard writes nothing for a
// slot past its cache, the host check names the slot, and the PTX has the parameters and the
// branches its config asks for.
#include "kernel_test_util.h"
#include "kv_scatter/kv_scatter.h"
#include "qkv_rope_append/qkv_rope_append.h"

#include <gtest/gtest.h>

namespace ptxkit::kernels {
namespace {

// The four kernels the fused one replaces, on the CPU: x + bias, RoPE on the Q and K heads, K
// and V scattered into the caches (kv_scatter_reference).
HostTensors unfused(const QkvRopeAppendConfig& c, const HostTensors& in) {
  const std::size_t hd = c.head_dim, row = std::size_t{c.heads_in_row()} * hd;
  const std::size_t q_elems = c.num_heads * hd, kv_elems = c.num_kv_heads * hd;
  std::vector<float> q, k, v;
  for (std::size_t s = 0; s < c.batch_size; ++s)
    for (std::size_t i = 0; i < row; ++i) {
      const float x = in.f32.at("qkv")[s * row + i] + (c.has_bias ? in.f32.at("bias")[i] : 0.0f);
      (i < q_elems ? q : i < q_elems + kv_elems ? k : v).push_back(x);
    }
  const std::vector<std::uint32_t>& pos = in.u32.at("positions");
  q = rope_reference({c.head_dim, c.num_heads, c.theta, DType::kF32}, q, pos,
                     RopeDirection::kForward);
  k = rope_reference({c.head_dim, c.num_kv_heads, c.theta, DType::kF32}, k, pos,
                     RopeDirection::kForward);
  HostTensors out;
  out.f32["q"] = in.f32.at("q");
  for (std::size_t s = 0; s < c.batch_size; ++s)
    if (pos[s] < c.max_seq_len)
      std::copy(q.begin() + static_cast<std::ptrdiff_t>(s * q_elems),
                q.begin() + static_cast<std::ptrdiff_t>((s + 1) * q_elems),
                out.f32["q"].begin() + static_cast<std::ptrdiff_t>(s * q_elems));
  out.f32["k_cache"] = in.f32.at("k_cache");
  out.f32["v_cache"] = in.f32.at("v_cache");
  KvScatterConfig kc{.head_dim = c.head_dim,
                     .num_kv_heads = c.num_kv_heads,
                     .max_seq_len = c.max_seq_len,
                     .batch_size = c.batch_size};
  kv_scatter_reference(kc, k, v, pos, out.f32["k_cache"], out.f32["v_cache"]);
  return out;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    d = std::max(d, std::abs(double{a[i]} - double{b[i]}));
  return d;
}

TEST(QkvRopeAppendReference, IsTheCompositionOfTheKernelsItReplaces) {
  for (const auto& named : QkvRopeAppend::reference_configs()) {
    const QkvRopeAppendConfig& c = named.config;
    if (c.max_seq_len > 64) continue; // the caches of the big configs are large for a unit test
    HostTensors in = QkvRopeAppend::make_inputs(c, 11);
    auto fused = QkvRopeAppend::reference(c, in);
    ASSERT_TRUE(fused) << fused.error().message;
    const HostTensors want = unfused(c, in);
    const double tol = QkvRopeAppend::tolerance(c, in).abs;
    for (const char* name : {"q", "k_cache", "v_cache"})
      EXPECT_LE(max_abs_diff(fused->f32.at(name), want.f32.at(name)), tol) << named.tag << name;
  }
  // Smaller versions of the real shapes, with and without biases.
  for (bool bias : {true, false}) {
    QkvRopeAppendConfig c{.head_dim = 64,
                          .num_heads = 14,
                          .num_kv_heads = 2,
                          .theta = 1e6f,
                          .has_bias = bias,
                          .max_seq_len = 9,
                          .batch_size = 4};
    HostTensors in = QkvRopeAppend::make_inputs(c, 3);
    auto fused = QkvRopeAppend::reference(c, in);
    ASSERT_TRUE(fused);
    const HostTensors want = unfused(c, in);
    for (const char* name : {"q", "k_cache", "v_cache"})
      EXPECT_LE(max_abs_diff(fused->f32.at(name), want.f32.at(name)), 1e-6) << name;
  }
}

TEST(QkvRopeAppendReference, PlantedMistakesAreOutsideTheTolerance) {
  // Positive controls for the comparison the device test makes: K not rotated, V rotated, the
  // bias dropped, and a K head written to the wrong position each move some value by more than
  // the tolerance.
  QkvRopeAppendConfig c{.head_dim = 8,
                        .num_heads = 2,
                        .num_kv_heads = 1,
                        .theta = 1e4f,
                        .has_bias = true,
                        .max_seq_len = 8,
                        .batch_size = 2};
  HostTensors in = QkvRopeAppend::make_inputs(c, 5);
  in.u32["positions"] = {7, 5};
  auto good = QkvRopeAppend::reference(c, in);
  ASSERT_TRUE(good);
  const double tol = QkvRopeAppend::tolerance(c, in).abs;
  HostTensors no_bias = in;
  for (float& b : no_bias.f32["bias"])
    b = 0;
  auto dropped = QkvRopeAppend::reference(c, no_bias);
  ASSERT_TRUE(dropped);
  EXPECT_GT(max_abs_diff(dropped->f32.at("v_cache"), good->f32.at("v_cache")), tol);
  EXPECT_GT(max_abs_diff(dropped->f32.at("q"), good->f32.at("q")), tol);
  HostTensors moved = in;
  moved.u32["positions"] = {6, 5};
  auto wrong_pos = QkvRopeAppend::reference(c, moved);
  ASSERT_TRUE(wrong_pos);
  EXPECT_GT(max_abs_diff(wrong_pos->f32.at("k_cache"), good->f32.at("k_cache")), tol);
  // The unrotated K: what a K head would hold if the kernel skipped its rotation.
  const std::size_t hd = 8, row = 4 * hd, k_head = 2;
  const std::size_t at = (0 * 1 + 0) * 8 * hd + 7 * hd; // slot 0, kv 0, position 7
  double moved_by = 0;
  for (std::size_t i = 0; i < hd; ++i) {
    const double raw =
        double{in.f32.at("qkv")[k_head * hd + i]} + in.f32.at("bias")[k_head * hd + i];
    moved_by = std::max(moved_by, std::abs(raw - good->f32.at("k_cache")[at + i]));
  }
  EXPECT_GT(moved_by, tol) << "row " << row;
}

TEST(QkvRopeAppendReference, APositionPastTheCacheIsRefusedOnTheHostAndWritesNothing) {
  QkvRopeAppendConfig c{.head_dim = 4,
                        .num_heads = 1,
                        .num_kv_heads = 1,
                        .theta = 1e4f,
                        .has_bias = false,
                        .max_seq_len = 3,
                        .batch_size = 2};
  HostTensors in = QkvRopeAppend::make_inputs(c, 8);
  in.u32["positions"] = {3, 2};
  auto bad = QkvRopeAppend::check_positions(c, in.u32["positions"]);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("positions[0] = 3"), std::string::npos) << bad.error().message;
  auto out = QkvRopeAppend::reference(c, in);
  ASSERT_TRUE(out);
  for (std::size_t i = 0; i < 4; ++i) // slot 0: q and its caches unchanged
    EXPECT_EQ(out->f32.at("q")[i], in.f32.at("q")[i]);
  for (std::size_t i = 0; i < 12; ++i)
    EXPECT_EQ(out->f32.at("v_cache")[i], in.f32.at("v_cache")[i]);
  for (std::size_t i = 0; i < 4; ++i) // slot 1, position 2: V copied unrotated
    EXPECT_EQ(out->f32.at("v_cache")[12 + 2 * 4 + i], in.f32.at("qkv")[12 + 8 + i]);
  std::vector<std::uint32_t> ok{2, 0};
  EXPECT_TRUE(QkvRopeAppend::check_positions(c, ok));
}

TEST(QkvRopeAppendContract, GridCoversEveryGroupAndParametersFollowTheBias) {
  QkvRopeAppendConfig qwen{};
  qwen.batch_size = 4;
  auto d = QkvRopeAppend::launch(qwen);
  EXPECT_EQ(d.grid[1], 4u);
  EXPECT_GE(d.grid[0] * d.block[0], 18u * 32u / 4u); // (14 + 2 + 2) heads x 8 groups of 4 pairs
  EXPECT_LT((d.grid[0] - 1) * d.block[0], 18u * 32u / 4u);
  auto p = QkvRopeAppend::params(qwen);
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(p[1].name, "bias");
  EXPECT_EQ(p[1].elems, 18u * 64u);
  qwen.has_bias = false;
  EXPECT_EQ(QkvRopeAppend::params(qwen).size(), 5u);
  const std::string with = test_util::kernel_ptx("qkv_rope_append", {});
  const std::string without = test_util::kernel_ptx("qkv_rope_append", {"has_bias=false"});
  EXPECT_NE(with.find(".param .u64 bias"), std::string::npos);
  EXPECT_EQ(without.find(".param .u64 bias"), std::string::npos);
  EXPECT_EQ(test_util::count(with, "add.f32"), 8u); // 4 pairs: x1 and x2 each get their bias
  EXPECT_EQ(test_util::count(without, "add.f32"), 0u);
  // Three destinations, one guard on the position.
  EXPECT_EQ(test_util::count(with, "st.global.v4.f32"), 6u);
  EXPECT_NE(with.find("setp.lt.u32"), std::string::npos);
}

TEST(QkvRopeAppendLimits, OffsetsMustFit32Bits) {
  const Kernel* k = KernelRegistry::find("qkv_rope_append");
  ASSERT_NE(k, nullptr);
  auto huge = config_from_assignments(*k, {"num_kv_heads=1024", "max_seq_len=1048576"});
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("2^31"), std::string::npos);
  EXPECT_FALSE(config_from_assignments(*k, {"head_dim=7"}));
  EXPECT_TRUE(config_from_assignments(*k, {"head_dim=128", "num_heads=32", "num_kv_heads=8"}));
}

} // namespace
} // namespace ptxkit::kernels
