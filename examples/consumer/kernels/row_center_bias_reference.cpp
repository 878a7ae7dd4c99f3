// row_center_bias_reference.cpp: the CPU reference, launch contract, inputs, reference configs and
// tolerance of row_center_bias.
#include "row_center_bias.h"

#include <string>

namespace consumer {

namespace {
ptxkit::Error error(std::string message) {
  return ptxkit::Error{std::move(message), {}, 0, 0};
}
} // namespace

std::vector<NamedConfig<RowCenterBiasConfig>> RowCenterBias::reference_configs() {
  return {
      {"small", "64 rows of 1000 (a partial last warp stride)", Config{.cols = 1000, .rows = 64}},
      {"hidden4k", "256 rows of 4096", Config{.cols = 4096, .rows = 256}},
  };
}

ptxkit::Expected<void> RowCenterBias::validate(const Config& c) {
  if (std::uint64_t{c.rows} * c.cols >= (std::uint64_t{1} << 32))
    return error("rows * cols = " + std::to_string(std::uint64_t{c.rows} * c.cols) +
                 " must be below 2^32");
  return {};
}

LaunchDims RowCenterBias::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = (c.rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  d.block[0] = 32 * kWarpsPerBlock;
  return d;
}

std::vector<ParamSpec> RowCenterBias::params(const Config& c) {
  const std::size_t n = std::size_t{c.rows} * c.cols;
  return {
      {.name = "x", .kind = ParamKind::kInput, .buffer = "x", .elems = n},
      {.name = "bias", .kind = ParamKind::kInput, .buffer = "bias", .elems = c.cols},
      {.name = "out", .kind = ParamKind::kOutput, .buffer = "out", .elems = n},
  };
}

HostTensors RowCenterBias::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  // An offset per row makes a missing or wrong mean visible in every element.
  t.f32["x"] = rng.uniform_vector(std::size_t{c.rows} * c.cols, 3.0f, 5.0f);
  t.f32["bias"] = rng.uniform_vector(c.cols, -1.0f, 1.0f);
  return t;
}

std::vector<float> row_center_bias_reference(const std::vector<float>& x,
                                             const std::vector<float>& bias, std::uint32_t rows,
                                             std::uint32_t cols) {
  std::vector<float> out(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (std::size_t i = 0; i < cols; ++i)
      sum += x[r * cols + i];
    const double mean = sum / cols;
    for (std::size_t i = 0; i < cols; ++i)
      out[r * cols + i] = static_cast<float>(x[r * cols + i] - mean + bias[i]);
  }
  return out;
}

ptxkit::Expected<HostTensors> RowCenterBias::reference(const Config& c, const HostTensors& in) {
  auto x = in.f32.find("x");
  auto bias = in.f32.find("bias");
  if (x == in.f32.end() || bias == in.f32.end())
    return error("row_center_bias reference: inputs 'x' and 'bias' are required");
  if (x->second.size() != std::size_t{c.rows} * c.cols || bias->second.size() != c.cols)
    return error("row_center_bias reference: x must have rows * cols and bias cols elements");
  HostTensors out;
  out.f32["out"] = row_center_bias_reference(x->second, bias->second, c.rows, c.cols);
  return out;
}

Tolerance RowCenterBias::tolerance(const Config& c, const HostTensors&) {
  // An f32 sum of cols values in [3, 5] in lane-strided order, then one subtract and one add.
  return {.abs = 2e-7 * c.cols / 32 + 1e-6,
          .rel = 1e-6,
          .why = "f32 row sum (32 lane partials, then a shuffle tree), one sub and one add"};
}

} // namespace consumer
