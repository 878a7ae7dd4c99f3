// rope_neox_backward_test.cpp: rope_neox_backward's reference (forward then backward is the
// identity; the backward is the transpose of the forward) and its PTX (the inverse rotation).
#include "rope_neox_backward/rope_neox_backward.h"
#include "rope_neox_batched/rope_neox_batched.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

TEST(RopeNeoxBackwardReference, ForwardThenBackwardIsTheIdentity) {
  for (const auto& named : rope_batched_reference_configs()) {
    RopeNeoxBatchedConfig c = named.config;
    c.num_tokens = 16;
    HostTensors in = RopeNeoxBackward::make_inputs(c, 77);
    auto fwd = RopeNeoxBatched::reference(c, in);
    ASSERT_TRUE(fwd);
    HostTensors back_in = in;
    back_in.f32["x"] = fwd->f32.at("out");
    auto back = RopeNeoxBackward::reference(c, back_in);
    ASSERT_TRUE(back);
    const auto& x = in.f32["x"];
    const auto& y = back->f32.at("out");
    ASSERT_EQ(x.size(), y.size());
    double moved = 0;
    // A half config rounds twice (after the forward, after the backward): one unit roundoff of
    // |x| <= sqrt(2) each, with a margin.
    const double tol = c.dtype == DType::kF32 ? 1e-6 : 4 * unit_roundoff(c.dtype);
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(y[i], x[i], tol) << named.tag << " element " << i;
      moved = std::max(moved, double{std::abs(fwd->f32.at("out")[i] - x[i])});
    }
    EXPECT_GT(moved, 0.1) << named.tag; // the forward really moved the values
  }
}

TEST(RopeNeoxBackwardReference, BackwardIsTheTransposeOfForward) {
  // <R x, g> == <x, R^T g>: the gradient identity the backward pass relies on.
  RopeGeometry g{.head_dim = 64, .num_heads = 14, .theta = 1e6f};
  InputRng rng(9);
  std::vector<float> x = rng.uniform_vector(14 * 64, -1.0f, 1.0f);
  std::vector<float> grad = rng.uniform_vector(14 * 64, -1.0f, 1.0f);
  auto rx = rope_reference(g, x, {777}, RopeDirection::kForward);
  auto rtg = rope_reference(g, grad, {777}, RopeDirection::kInverse);
  double lhs = std::inner_product(rx.begin(), rx.end(), grad.begin(), 0.0);
  double rhs = std::inner_product(x.begin(), x.end(), rtg.begin(), 0.0);
  EXPECT_NEAR(lhs, rhs, 1e-4);
  // The forward is not its own transpose (that would make the backward a no-op copy).
  auto rg = rope_reference(g, grad, {777}, RopeDirection::kForward);
  EXPECT_GT(std::abs(std::inner_product(x.begin(), x.end(), rg.begin(), 0.0) - lhs), 1e-2);
}

TEST(RopeNeoxBackwardPtx, DiffersFromTheForwardOnlyInTheRotation) {
  const Kernel* fwd = KernelRegistry::find("rope_neox_batched");
  const Kernel* bwd = KernelRegistry::find("rope_neox_backward");
  ASSERT_NE(fwd, nullptr);
  ASSERT_NE(bwd, nullptr);
  const auto& t = ptxgen::Target::all_supported().front();
  auto a = fwd->generate(fwd->defaults(), t);
  auto b = bwd->generate(bwd->defaults(), t);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->text, b->text);
  EXPECT_NE(b->text.find(".entry rope_neox_backward("), std::string::npos);
  EXPECT_EQ(fwd->launch(fwd->defaults()).grid[1], bwd->launch(bwd->defaults()).grid[1]);
}

} // namespace
} // namespace ptxkit::kernels
