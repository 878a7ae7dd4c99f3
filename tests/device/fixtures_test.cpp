// fixtures_test.cpp: the parts of the device suite that need no GPU, so they run everywhere: the
// fixtures really have the properties they promise (and would catch the stale-maximum defect),
// every kernel's stated tolerance is sane, the bench runs every kernel's own cases, the
// device-to-target mapping, and the guard word is a NaN.
#include "attention_fixture.h"
#include "device_bench.h"
#include "device_check.h"
#include "device_harness.h"

#include <bit>
#include <cmath>
#include <gtest/gtest.h>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/runtime/compare.h>
#include <ptxkit/verifier/verified_ptx.h>
#include <set>

namespace ptxkit::device_tests {
namespace {

TEST(Tolerances, SaneAndExplainedForEveryKernel) {
  for (const auto* k : kernels::KernelRegistry::all()) {
    const auto values = k->reference_configs().front().values;
    // Only RoPE's tolerance reads the inputs; skip building the others' (a 544 MB table).
    const auto inputs =
        k->name().starts_with("rope") ? k->make_inputs(values, 1) : kernels::HostTensors{};
    const kernels::Tolerance t = k->tolerance(values, inputs);
    EXPECT_GE(t.abs, 0) << k->name();
    EXPECT_GE(t.rel, 0) << k->name();
    // RoPE's grows with the position (f32 inv_freq): at most ~0.03 at the inputs' 2^17.
    EXPECT_LT(t.abs, k->name().starts_with("rope") ? 0.05 : 0.01) << k->name();
    // f32 arithmetic, plus one rounding of the output into the coarsest format (bf16) when the
    // config's output is half.
    EXPECT_LT(t.rel, 1e-3 + 2 * kernels::unit_roundoff(kernels::DType::kBF16)) << k->name();
    EXPECT_FALSE(t.why.empty()) << k->name();
    const runtime::Tolerance rt = cli::device::to_runtime(t);
    EXPECT_EQ(rt.abs, t.abs);
    EXPECT_EQ(rt.rel, t.rel);
  }
}

TEST(Tolerances, RopeGrowsWithPositionGemvWithK) {
  const auto& rope = kernel_named("rope_neox_batched");
  const auto v = rope.reference_configs().front().values;
  auto in = rope.make_inputs(v, 3);
  for (auto& p : in.u32["positions"])
    p = 0;
  const double at0 = rope.tolerance(v, in).abs;
  in.u32["positions"][0] = 100000;
  const double far = rope.tolerance(v, in).abs;
  EXPECT_NEAR(at0, 1e-5 * std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(far, (1e-5 + 1.5e-2) * std::sqrt(2.0), 1e-9);
  const auto& gemv = kernel_named("gemv_f32");
  const auto gv = config_of(gemv, "llama");
  EXPECT_NEAR(gemv.tolerance(gv, {}).abs, 4e-7 * 4096, 1e-12);
  const auto& q4k = kernel_named("q4k_gemv");
  EXPECT_NEAR(q4k.tolerance(config_of(q4k, "qwen05b_down"), {}).abs, 4e-7 * 4864, 1e-12);
}

// `ptxkit bench` has no list of single-kernel cases: every kernel's own (and the back-to-back
// twin it asks for) is a case that launches that kernel, so a kernel defined elsewhere is timed.
TEST(BenchCases, EveryKernelsOwnCasesAreRunWithTheirKernel) {
  const auto& listed = cli::device::bench_cases();
  auto kernels_of = [&](const std::string& name) -> const std::vector<std::string>* {
    for (const auto& c : listed)
      if (c.name == name) return &c.kernels;
    return nullptr;
  };
  std::size_t own = 0;
  for (const auto* k : kernels::KernelRegistry::all()) {
    for (const auto& c : k->bench_cases()) {
      const std::vector<std::string> want = {std::string(k->name())};
      const auto* got = kernels_of(c.name);
      ASSERT_NE(got, nullptr) << c.name;
      EXPECT_EQ(*got, want) << c.name;
      ++own;
      if (!c.back_to_back) continue;
      for (const char* twin : {"_back_to_back", "_warm_l2"}) {
        got = kernels_of(c.name + twin);
        ASSERT_NE(got, nullptr) << c.name << twin;
        EXPECT_EQ(*got, want) << c.name << twin;
        ++own;
      }
    }
  }
  // Besides them: the flash-decoding pipelines (f32, f16, bf16 K/V at two shapes each), the
  // decoder's step (f32, bf16 and Q4_K weights at batch 1 and 4) and the launch overhead.
  EXPECT_EQ(listed.size(), own + 6 + 6 + 1);
  EXPECT_NE(kernels_of("decode_step_qwen05b_q4k_b1"), nullptr);
  EXPECT_EQ(listed.back().name, "launch_overhead");
  EXPECT_NE(kernels_of("flash_decode_4x12_2x2048"), nullptr);
}

TEST(Targets, HighestPlainTargetTheDeviceRuns) {
  using runtime::ComputeCapability;
  EXPECT_EQ(cli::device::target_for(ComputeCapability{9, 0})->name(), "sm_90");
  EXPECT_EQ(cli::device::target_for(ComputeCapability{8, 0})->name(), "sm_80");
  EXPECT_EQ(cli::device::target_for(ComputeCapability{8, 6})->name(), "sm_86");
  auto old = cli::device::target_for(ComputeCapability{7, 5});
  ASSERT_FALSE(old.has_value());
  EXPECT_EQ(old.error().kind, runtime::ErrorKind::kDeviceUnsupported);
  EXPECT_TRUE(old.error().is_unavailable());
}

TEST(LoadPath, EveryReferenceInstanceVerifiesForLoadAtSm90) {
  // What the device tests load: a refusal here would fail every one of them on the GPU.
  const auto target = cli::device::target_for(runtime::ComputeCapability{9, 0});
  ASSERT_TRUE(target.has_value());
  std::size_t verified = 0;
  for (const auto* k : kernels::KernelRegistry::all())
    for (const auto& rc : k->reference_configs()) {
      auto ptx = k->generate(rc.values, *target);
      ASSERT_TRUE(ptx.has_value()) << k->name() << "[" << rc.tag << "]";
      auto v = verifier::verify_for_load(ptx->text, std::string(k->name()) + ".ptx");
      EXPECT_TRUE(v.ok()) << k->name() << "[" << rc.tag
                          << "]: " << (v.ok() ? "" : v.error().message);
      verified += v.ok();
    }
  EXPECT_GE(verified, 19u);
}

TEST(GuardWord, IsANaN) {
  EXPECT_TRUE(std::isnan(std::bit_cast<float>(cli::device::kGuardWord)));
}

TEST(AttentionFixture, ScoresStrictlyIncreasePerSlotAndHead) {
  AttentionShape sh;
  const auto in = increasing_score_attention(sh, 42);
  for (std::uint32_t s = 0; s < sh.batch; ++s)
    for (std::uint32_t h = 0; h < sh.num_heads; ++h) {
      const auto sc = attention_scores(sh, in, s, h);
      ASSERT_EQ(sc.size(), sh.seq_lens[s]);
      for (std::size_t p = 1; p < sc.size(); ++p)
        ASSERT_GT(sc[p], sc[p - 1]) << "slot " << s << " head " << h << " position " << p;
      if (sc.size() == sh.max_seq_len) {
        EXPECT_GT(sc.back() - sc.front(), 15.0); // the running max moves a long way
        EXPECT_LT(sc.back() - sc.front(), 60.0); // but the softmax is not one-hot
      }
    }
}

TEST(AttentionFixture, LengthsHeadsSlotsAndGroupsAllDiffer) {
  AttentionShape sh;
  const auto in = increasing_score_attention(sh, 7);
  const std::set<std::uint32_t> lens(sh.seq_lens.begin(), sh.seq_lens.end());
  EXPECT_EQ(lens.size(), sh.batch);
  EXPECT_TRUE(lens.count(1) && lens.count(sh.max_seq_len));
  const auto& q = in.f32.at("q");
  const auto& k = in.f32.at("k_cache");
  const auto& v = in.f32.at("v_cache");
  const std::size_t d = sh.head_dim, len = sh.max_seq_len;
  auto row = [&](const std::vector<float>& b, std::size_t i) {
    return std::vector<float>(b.begin() + static_cast<std::ptrdiff_t>(i * d),
                              b.begin() + static_cast<std::ptrdiff_t>((i + 1) * d));
  };
  EXPECT_NE(row(q, 0), row(q, 1));       // heads 0 and 1 of slot 0
  EXPECT_NE(row(k, 0), row(k, len));     // slot 0: group 0 vs group 1, position 0
  EXPECT_NE(row(k, 0), row(k, 2 * len)); // group 0: slot 0 vs slot 1
  EXPECT_NE(row(v, 5), row(v, len + 5));
  EXPECT_NE(row(v, 5), row(v, 2 * len + 5));
}

TEST(AttentionFixture, CatchesAStuckRescale) {
  // The stale-maximum defect modelled on the CPU lands far outside the attention tolerance on every
  // slot longer than one position; the reference itself is the one-pass kernel's.
  AttentionShape sh;
  const auto in = increasing_score_attention(sh, 11);
  const auto& k = kernel_named("batched_incremental_attention");
  auto want = k.reference(config_of(k, "qwen15b_coder"), in);
  ASSERT_TRUE(want.has_value()) << want.error().to_string();
  const auto stuck = stuck_rescale_attention(sh, in);
  const auto& ref = want->f32.at("out");
  ASSERT_EQ(stuck.size(), ref.size());
  const std::size_t per_slot = std::size_t{sh.num_heads} * sh.head_dim;
  for (std::uint32_t s = 0; s < sh.batch; ++s) {
    double worst = 0;
    for (std::size_t i = s * per_slot; i < (s + 1) * per_slot; ++i)
      worst = std::max(worst, std::abs(double{stuck[i]} - ref[i]));
    if (sh.seq_lens[s] == 1)
      EXPECT_LT(worst, 1e-6) << "one position: no rescale happens";
    else
      EXPECT_GT(worst, 0.1) << "slot " << s << " (seq_len " << sh.seq_lens[s] << ")";
  }
}

} // namespace
} // namespace ptxkit::device_tests
