// row_center_bias.h: a kernel defined outside ptxkit, exactly as a built-in one is: a reflected
// config, a definition struct (builder, launch contract, CPU reference, reference configs,
// tolerance) and one registration line (row_center_bias_builder.cpp).
//
//   out[r, i] = x[r, i] - mean_j(x[r, j]) + bias[i]
//
// One warp per row (4 rows per block of 128 threads): the lanes stride over the row summing
// x, a shfl.down tree leaves the row's sum in lane 0, shfl.idx broadcasts it to every lane (the
// step whose omission ptxkit's verifier reports: after shfl.down only lane 0 holds the sum),
// then the lanes stride again writing out. rows and cols are baked into the PTX (and therefore
// into the cache key).
#pragma once

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string_view>
#include <vector>

namespace consumer {

using namespace ptxkit::kernels;

struct RowCenterBiasConfig {
  std::uint32_t cols = 1024;
  std::uint32_t rows = 64;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("cols", c.cols,
            FieldSpec{.doc = "row length (elements)", .min = 1.0, .max = 1048576.0});
    v.field("rows", c.rows,
            FieldSpec{.doc = "rows; one warp each (the row guard compares with it)",
                      .min = 1.0,
                      .max = 16777216.0});
  }
};

struct RowCenterBias {
  using Config = RowCenterBiasConfig;
  static constexpr std::string_view kName = "row_center_bias";
  static constexpr std::string_view kSummary =
      "out[r, i] = x[r, i] - mean(x[r, :]) + bias[i]; a warp per row, shfl.down sum broadcast "
      "from lane 0";
  static constexpr std::string_view kLimits =
      "cols in [1, 2^20]; rows in [1, 2^24]; rows * cols < 2^32";
  static constexpr std::uint32_t kWarpsPerBlock = 4;

  static std::vector<NamedConfig<Config>> reference_configs();
  static ptxkit::Expected<void> validate(const Config& c);
  static ptxkit::Expected<GeneratedPtx> build(const Config& c, const ptxkit::ptxgen::Target& target,
                                              const GenOptions& options);
  static LaunchDims launch(const Config& c);
  static std::vector<ParamSpec> params(const Config& c);
  static HostTensors make_inputs(const Config& c, std::uint64_t seed);
  static ptxkit::Expected<HostTensors> reference(const Config& c, const HostTensors& in);
  static Tolerance tolerance(const Config& c, const HostTensors& in);
};

// The reference on plain vectors (double accumulation).
std::vector<float> row_center_bias_reference(const std::vector<float>& x,
                                             const std::vector<float>& bias, std::uint32_t rows,
                                             std::uint32_t cols);

} // namespace consumer
