// softmax_rows_reference.cpp: softmax_rows's geometry, launch contract, inputs, reference and
// reference configs and bench case.
//
// The reference is the plain two-pass softmax in double (max, then exponentials and their sum):
// it shares nothing with the kernel's online rescaling, so a rescale bug cannot hide in both.
#include "common/row_units.h"
#include "error_p.h"
#include "softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptxkit::kernels {

namespace {

// On chip, a thread holds at most this many 32-bit words of its row in registers: with the
// working set of a fold (two 16-byte units widened to f32) and the addresses, ptxas stays within
// the 64 registers a thread has at 1024 threads, without spilling.
constexpr std::uint32_t kMaxHeldWords = 24;

constexpr std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) {
  return (a + b - 1) / b;
}

} // namespace

SoftmaxGeometry softmax_geometry(const SoftmaxRowsConfig& c) {
  SoftmaxGeometry g;
  g.unit_elems = common::row_unit_elems(c.row_len, c.dtype);
  g.unit_bytes = g.unit_elems * static_cast<std::uint32_t>(dtype_bytes(c.dtype));
  g.units = c.row_len / g.unit_elems;
  std::uint32_t quarter = ceil_div(g.units, 4); // aim for 4 units per thread
  g.threads = std::clamp((quarter + 31) / 32 * 32, 32u, SoftmaxRows::kMaxThreads);
  g.per_thread = ceil_div(g.units, g.threads);
  if (g.per_thread <= 4) {
    g.mode = SoftmaxMode::kRegisters;
    return g;
  }
  // Past registers mode the block has 1024 threads. On chip needs cp.async (4, 8 or 16 bytes),
  // registers for what shared memory cannot hold, and a full first staged unit for every thread.
  g.mode = SoftmaxMode::kLoop;
  const std::uint64_t budget = std::uint64_t{c.smem_kib} * 1024;
  const std::uint64_t static_bytes = softmax_static_smem_bytes(g.threads);
  if (g.unit_bytes < 4 || budget <= static_bytes) return g;
  const std::uint64_t fit = (budget - static_bytes) / g.unit_bytes; // units shared memory holds
  const std::uint32_t reg_units =
      g.units > fit ? ceil_div(static_cast<std::uint32_t>(g.units - fit), g.threads) : 0;
  if (reg_units * (g.unit_bytes / 4) > kMaxHeldWords) return g;
  if (g.units < (reg_units + 1) * g.threads) return g;
  g.mode = SoftmaxMode::kOnChip;
  g.reg_units = reg_units;
  g.smem_units = g.units - reg_units * g.threads;
  g.stage_units = ceil_div(g.smem_units, g.threads);
  g.smem_bytes = g.smem_units * g.unit_bytes;
  return g;
}

std::vector<NamedConfig<SoftmaxRowsConfig>> SoftmaxRows::reference_configs() {
  return {
      {"qwen05b_vocab", "Qwen2.5 logits: vocabulary 151936, 4 rows (looped rows: 594 KiB)",
       SoftmaxRowsConfig{.row_len = 151936, .rows = 4}},
      {"llama_vocab",
       "Llama logits: vocabulary 32000, 4 rows, smem_kib=0 (looped rows, as on a GPU without the "
       "shared memory)",
       SoftmaxRowsConfig{.row_len = 32000, .rows = 4, .smem_kib = 0}},
      {"qwen15b_coder_scores",
       "Qwen2.5-Coder-1.5B attention scores: 2048 positions, 4 slots x 12 heads (rows in "
       "registers)",
       SoftmaxRowsConfig{.row_len = 2048, .rows = 48}},
      {"qwen05b_vocab_bf16",
       "Qwen2.5 logits in bf16: vocabulary 151936, 4 rows (on chip: 5 units a thread in "
       "registers, 216.75 KiB in shared memory)",
       SoftmaxRowsConfig{.row_len = 151936, .rows = 4, .dtype = DType::kBF16}},
      {"qwen15b_coder_scores_f16",
       "Qwen2.5-Coder-1.5B attention scores in f16: 2048 positions, 4 slots x 12 heads (rows in "
       "registers)",
       SoftmaxRowsConfig{.row_len = 2048, .rows = 48, .dtype = DType::kF16}},
      {"llama_vocab_on_chip",
       "Llama logits: vocabulary 32000, 4 rows (on chip: the whole row in 125 KiB of shared "
       "memory, the last staged unit partial)",
       SoftmaxRowsConfig{.row_len = 32000, .rows = 4}},
      {"scores_40k_bf16_smem46",
       "40000 attention scores in bf16, 4 rows, smem_kib=46 (on chip, no opt-in needed: 46 KiB "
       "is just short of the 47232 B that 2 units a thread in registers would stage, so the "
       "split keeps more of the row in registers; at 47 KiB it changes)",
       SoftmaxRowsConfig{.row_len = 40000, .rows = 4, .dtype = DType::kBF16, .smem_kib = 46}},
      {"ragged_on_chip_f16",
       "65540 f16 scores, 4 rows (on chip in 8-byte units of 4 halves: cp.async.ca, the last "
       "staged unit held by thread 0 only)",
       SoftmaxRowsConfig{.row_len = 65540, .rows = 4, .dtype = DType::kF16}},
  };
}

std::vector<BenchCase> SoftmaxRows::bench_cases() {
  return {
      {
          .name = "softmax_rows_1024x151936",
          .config = "qwen05b_vocab",
          .sets = {"rows=1024"},
          .shape =
              "1024 rows x 151936 (594 KiB rows exceed one SM: looped, read twice; informative)",
      },
      {
          .name = "softmax_rows_1024x151936_bf16",
          .config = "qwen05b_vocab_bf16",
          .sets = {"rows=1024"},
          .shape = "1024 rows x 151936 bf16 (each row held on chip, registers + shared memory: "
                   "read once)",
          .target = BenchTarget{.min_pct_of_copy = 90},
      }};
}

ptxkit::Expected<void> SoftmaxRows::validate(const Config&) {
  return {};
}

LaunchDims SoftmaxRows::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.rows;
  const SoftmaxGeometry g = softmax_geometry(c);
  d.block[0] = g.threads;
  d.dynamic_smem_bytes = g.smem_bytes; // the staged part of an on-chip row (0 otherwise)
  return d;
}

std::vector<ParamSpec> SoftmaxRows::params(const Config& c) {
  std::size_t n = std::size_t{c.rows} * c.row_len;
  const ElemType e = elem_type(c.dtype);
  return {
      {.name = "input", .kind = ParamKind::kInput, .buffer = "x", .elem = e, .elems = n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elem = e, .elems = n},
  };
}

HostTensors SoftmaxRows::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  // Logit-like values: a spread wide enough that the max subtraction matters.
  t.f32["x"] = rng.uniform_vector(std::size_t{c.rows} * c.row_len, -20.0f, 20.0f);
  round_all(c.dtype, t.f32["x"]);
  return t;
}

std::vector<float> softmax_reference(const std::vector<float>& x, std::uint32_t rows,
                                     std::uint32_t row_len, DType dtype) {
  std::vector<float> out(x.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t r = 0; r < rows; ++r) {
    const float* v = x.data() + r * row_len;
    double m = -std::numeric_limits<double>::infinity();
    bool poisoned = false; // NaN or +inf anywhere: the whole row is NaN (as PyTorch)
    for (std::size_t j = 0; j < row_len; ++j) {
      poisoned |= std::isnan(v[j]) || v[j] == std::numeric_limits<float>::infinity();
      m = std::max(m, double{v[j]});
    }
    double sum = 0.0;
    for (std::size_t j = 0; j < row_len; ++j)
      sum += std::exp(double{v[j]} - m);
    for (std::size_t j = 0; j < row_len; ++j) {
      // A row of only -inf has m = -inf and sum = 0/NaN: NaN, as the kernel and PyTorch.
      double y = poisoned || std::isinf(m) ? nan : std::exp(double{v[j]} - m) / sum;
      out[r * row_len + j] = round_to(dtype, y);
    }
  }
  return out;
}

ptxkit::Expected<HostTensors> SoftmaxRows::reference(const Config& c, const HostTensors& in) {
  auto x = in.f32.find("x");
  if (x == in.f32.end()) return fail("softmax_rows reference: input 'x' is required");
  if (x->second.size() != std::size_t{c.rows} * c.row_len)
    return fail(
        "softmax_rows reference: x has " + std::to_string(x->second.size()) +
        " elements; expected rows * row_len = " + std::to_string(std::size_t{c.rows} * c.row_len));
  HostTensors out;
  out.f32["out"] = softmax_reference(x->second, c.rows, c.row_len, c.dtype);
  return out;
}

} // namespace ptxkit::kernels
