// kernel_test_util.h: what the kernels' unit tests share.
#pragma once

#include <algorithm>
#include <cstddef>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::kernels::test_util {

// The PTX of library kernel `name` at its defaults with `sets` (FIELD=VALUE, as --set takes
// them) applied, for the first supported target; a test failure (and "") when the kernel is
// unknown or the config refused.
inline std::string kernel_ptx(std::string_view name, const std::vector<std::string>& sets) {
  const Kernel* k = KernelRegistry::find(name);
  EXPECT_NE(k, nullptr) << name;
  if (k == nullptr) return {};
  auto cfg = config_from_assignments(*k, sets);
  EXPECT_TRUE(cfg) << (cfg ? "" : cfg.error().message);
  if (!cfg) return {};
  auto ptx = k->generate(*cfg, ptxgen::Target::all_supported().front());
  EXPECT_TRUE(ptx) << name;
  return ptx ? ptx->text : std::string();
}

// How many times `what` occurs in `text` (overlapping occurrences count).
inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// y = W x for each of `batch` vectors (W [n, k], x [batch, k]) as a plain f32 loop over k in
// reverse: an order no kernel uses, which a sound tolerance must still accept.
inline std::vector<float> gemv_reversed_f32(const std::vector<float>& w,
                                            const std::vector<float>& x, std::size_t n,
                                            std::size_t k, std::size_t batch) {
  std::vector<float> y(batch * n);
  for (std::size_t m = 0; m < batch; ++m)
    for (std::size_t r = 0; r < n; ++r) {
      float sum = 0.0f;
      for (std::size_t j = k; j-- > 0;)
        sum += w[r * k + j] * x[m * k + j];
      y[m * n + r] = sum;
    }
  return y;
}

// The mistakes a batched kernel can make with y ([batch, n]: vector m's n values at m * n), as
// positive controls for a comparison the correct y passes: vectors a and b swapped, and vector
// `from`'s values written over vector `to`'s.
inline std::vector<float> with_vectors_swapped(std::vector<float> y, std::size_t n, std::size_t a,
                                               std::size_t b) {
  std::swap_ranges(y.begin() + static_cast<std::ptrdiff_t>(a * n),
                   y.begin() + static_cast<std::ptrdiff_t>((a + 1) * n),
                   y.begin() + static_cast<std::ptrdiff_t>(b * n));
  return y;
}
inline std::vector<float> with_vector_copied(std::vector<float> y, std::size_t n, std::size_t from,
                                             std::size_t to) {
  std::copy_n(y.begin() + static_cast<std::ptrdiff_t>(from * n), n,
              y.begin() + static_cast<std::ptrdiff_t>(to * n));
  return y;
}

} // namespace ptxkit::kernels::test_util
