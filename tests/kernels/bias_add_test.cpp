// bias_add_test.cpp: the bias add's reference (broadcast over rows, zero bias is the identity),
// its limits, launch contract and the loads of its PTX.
#include "bias_add/bias_add.h"
#include "kernel_test_util.h"

#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(BiasAddReference, TheBiasIsAddedToEveryRow) {
  auto out = bias_add_reference({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f},
                                {0.5f, -1.0f, 0.0f, 2.0f});
  EXPECT_EQ(out, (std::vector<float>{1.5f, 1.0f, 3.0f, 6.0f, 5.5f, 5.0f, 7.0f, 10.0f}));
}

TEST(BiasAddReference, ZeroBiasIsTheIdentity) {
  BiasAddConfig c{.cols = 12, .rows = 3};
  HostTensors in = BiasAdd::make_inputs(c, 7);
  in.f32["bias"].assign(c.cols, 0.0f);
  auto out = BiasAdd::reference(c, in);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->f32.at("out"), in.f32.at("x"));
}

TEST(BiasAddReference, RefusesInputsOfTheWrongSize) {
  BiasAddConfig c{.cols = 8, .rows = 2};
  HostTensors in = BiasAdd::make_inputs(c, 1);
  in.f32["bias"].pop_back();
  auto bad = BiasAdd::reference(c, in);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("cols = 8"), std::string::npos) << bad.error().message;
}

TEST(BiasAddLimits, ColsAreWholeV4Chunks) {
  const Kernel* k = KernelRegistry::find("bias_add");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(config_from_assignments(*k, {"cols=6"}));
  EXPECT_FALSE(config_from_assignments(*k, {"cols=16388"}));
  EXPECT_FALSE(config_from_assignments(*k, {"rows=0"}));
  EXPECT_TRUE(config_from_assignments(*k, {"cols=4", "rows=2147483647"}));
}

TEST(BiasAddContract, OneBlockPerRowSizedToTheRow) {
  BiasAddConfig c{.cols = 1152, .rows = 5};
  auto d = BiasAdd::launch(c);
  EXPECT_EQ(d.grid[0], 5u);
  EXPECT_EQ(d.block[0], 256u); // 288 chunks: capped at 256 threads, two chunks for some
  EXPECT_EQ(BiasAdd::launch(BiasAddConfig{.cols = 896}).block[0], 224u);
  auto p = BiasAdd::params(c);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].elems, std::size_t{5} * 1152);
  EXPECT_EQ(p[1].elems, 1152u);
  EXPECT_EQ(p[2].kind, ParamKind::kOutput);
}

TEST(BiasAddPtx, PlainLoadsOfXReadOnlyLoadsOfBias) {
  const Kernel* k = KernelRegistry::find("bias_add");
  ASSERT_NE(k, nullptr);
  auto ptx = k->generate(k->reference_config("qwen05b_qkv")->values,
                         ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx) << ptx.error().to_string();
  const std::string& t = ptx->text;
  EXPECT_NE(t.find("ld.global.v4.f32"), std::string::npos);    // x: out may alias it
  EXPECT_NE(t.find("ld.global.nc.v4.f32"), std::string::npos); // bias
  EXPECT_NE(t.find("st.global.v4.f32"), std::string::npos);
  EXPECT_NE(t.find(", 1152;"), std::string::npos); // cols baked
}

using test_util::count;

TEST(BiasAddHalf, TheAddIsRoundedOnceToTheFormat) {
  BiasAddConfig c{.cols = 1152, .rows = 2, .dtype = DType::kBF16};
  HostTensors in = BiasAdd::make_inputs(c, 4);
  for (const char* name : {"x", "bias"})
    for (float v : in.f32.at(name))
      ASSERT_EQ(v, round_to(DType::kBF16, v)) << name;
  auto out = BiasAdd::reference(c, in);
  ASSERT_TRUE(out);
  // Positive control: the f32 sums of two bf16 values often need more than 8 bits.
  auto f32 = bias_add_reference(in.f32.at("x"), in.f32.at("bias"));
  std::size_t rounded = 0;
  for (std::size_t i = 0; i < f32.size(); ++i) {
    EXPECT_EQ(out->f32.at("out")[i], round_to(DType::kBF16, f32[i])) << i;
    rounded += out->f32.at("out")[i] != f32[i];
  }
  EXPECT_GT(rounded, f32.size() / 4);
}

TEST(BiasAddHalf, HalfBuffersSixteenByteChunks) {
  BiasAddConfig c{.cols = 1152, .rows = 2, .dtype = DType::kF16};
  for (const ParamSpec& p : BiasAdd::params(c))
    EXPECT_EQ(p.elem, ElemType::kF16) << p.name;
  EXPECT_EQ(BiasAdd::launch(c).block[0], 160u); // 144 chunks of 8 halves
  const Kernel* k = KernelRegistry::find("bias_add");
  ASSERT_NE(k, nullptr);
  auto bf = config_from_assignments(*k, {"dtype=bf16"});
  auto f32 = config_from_assignments(*k, {});
  ASSERT_TRUE(bf && f32);
  EXPECT_NE(cache_key(*k, *bf, "sm_90"), cache_key(*k, *f32, "sm_90"));
  auto ptx = k->generate(*bf, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx);
  EXPECT_EQ(count(ptx->text, ".f32 {"), 0u);
  EXPECT_EQ(count(ptx->text, "ld.global.v4.b32"), 1u); // x: out may alias it
  EXPECT_EQ(count(ptx->text, "ld.global.nc.v4.b32"), 1u);
  EXPECT_EQ(count(ptx->text, "st.global.v4.b32"), 1u);
  EXPECT_EQ(count(ptx->text, "cvt.rn.bf16x2.f32"), 4u);
  auto bad = config_from_assignments(*k, {"dtype=bf16", "cols=6"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("multiple of 4"), std::string::npos) << bad.error().message;
}

} // namespace
} // namespace ptxkit::kernels
