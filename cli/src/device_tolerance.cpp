// device_tolerance.cpp: the per-kernel tolerance table (device_tolerance.h says why it exists).
//
// The references accumulate in double; the kernels in f32 with the hardware's approximate
// ex2/rsqrt/sin/cos where they say so. Each entry is the f32 error such a kernel can have, with a
// margin, and far below what an indexing, stride or rescale error produces (those are O(1)).
#include "device_tolerance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <variant>

namespace ptxkit::cli::device {
namespace {

struct Entry {
  double abs;
  double rel;
  std::string_view why;
};

// Exact kernels move bits (gather, scatter, argmax): no error at all.
const std::map<std::string_view, Entry>& table() {
  static const std::map<std::string_view, Entry> t = {
      {"rmsnorm", {2e-6, 2e-5, "f32 sum of squares over hidden (tree order) and rsqrt.approx"}},
      {"layernorm", {2e-6, 2e-5, "f32 mean and variance (two tree reductions), rsqrt.approx"}},
      {"fused_residual_rmsnorm",
       {2e-6, 2e-5, "as rmsnorm; `sum` is one f32 add, correctly rounded"}},
      {"qk_rmsnorm", {2e-6, 2e-5, "as rmsnorm over head_dim"}},
      {"residual_add", {0, 0, "one f32 add, correctly rounded: bit-exact with the reference"}},
      {"swiglu", {1e-6, 1e-5, "ex2.approx (2 ulp) and div.full in silu"}},
      {"embedding_gather", {0, 0, "a copy: bit-exact"}},
      {"kv_scatter", {0, 0, "a copy into the caches: bit-exact, whole caches compared"}},
      {"rope_neox",
       {0, 0,
        "(1e-5 + 1.5e-7 * max position) * sqrt(2): f32 inv_freq, sin/cos.approx after an "
        "exact mod-2pi reduction (docs/kernels.md)"}},
      {"rope_neox_batched", {0, 0, "as rope_neox"}},
      {"rope_neox_backward", {0, 0, "as rope_neox"}},
      {"softmax_rows",
       {1e-9, 2e-5, "ex2.approx per element and an f32 sum over the row (probabilities ~1e-5)"}},
      {"gemv_f32", {0, 2e-5, "abs 4e-7 * k: f32 dot products of k terms in [-1, 1]"}},
      {"q4k_gemv", {0, 2e-5, "abs 4e-7 * cols: f32 dot products of dequantized weights"}},
      {"argmax_partial", {0, 0, "a selection: values and indices bit-exact"}},
      {"argmax_final", {0, 0, "a selection: values and indices bit-exact"}},
      {"batched_incremental_attention",
       {2e-5, 1e-4, "online softmax with ex2.approx, f32 sums over up to 2048 positions"}},
      {"incremental_attention", {2e-5, 1e-4, "as batched_incremental_attention"}},
      {"flash_decode_chunk",
       {2e-5, 1e-4, "per-chunk max (scaled, log2 domain), sum and weighted V in f32"}},
      {"flash_decode_reduce", {2e-5, 1e-4, "ex2.approx rescale of each chunk, f32 sums"}},
  };
  return t;
}

double u32_field(const kernels::Kernel& kernel, const kernels::ConfigValues& values,
                 std::string_view name) {
  const int i = kernel.field_index(name);
  if (i < 0) return 0;
  if (const auto* v = std::get_if<std::uint32_t>(&values[static_cast<std::size_t>(i)]))
    return static_cast<double>(*v);
  return 0;
}

} // namespace

ptxkit::Expected<runtime::Tolerance> tolerance_for(const kernels::Kernel& kernel,
                                                   const kernels::ConfigValues& values,
                                                   const kernels::HostTensors& inputs,
                                                   const std::string& buffer) {
  (void)buffer; // every multi-output kernel shares one tolerance across its outputs
  const auto it = table().find(kernel.name());
  if (it == table().end())
    return ptxkit::Error{"no device tolerance is stated for kernel '" + std::string(kernel.name()) +
                             "' (cli/src/device_tolerance.cpp)",
                         {},
                         0,
                         0};
  runtime::Tolerance t{it->second.abs, it->second.rel};
  const std::string_view name = kernel.name();
  if (name.starts_with("rope_neox")) {
    double max_pos = 0;
    if (auto p = inputs.u32.find("positions"); p != inputs.u32.end())
      for (auto v : p->second)
        max_pos = std::max(max_pos, static_cast<double>(v));
    t.abs = (1e-5 + 1.5e-7 * max_pos) * std::sqrt(2.0);
  } else if (name == "gemv_f32") {
    t.abs = 4e-7 * u32_field(kernel, values, "k");
  } else if (name == "q4k_gemv") {
    t.abs = 4e-7 * u32_field(kernel, values, "cols");
  }
  return t;
}

std::string_view tolerance_rationale(std::string_view kernel) {
  const auto it = table().find(kernel);
  return it == table().end() ? std::string_view{} : it->second.why;
}

} // namespace ptxkit::cli::device
