// argmax_reference.cpp: the two argmax stages' launch contracts, inputs, references and reference
// configs, stage 1's bench case, and the order they share (argmax.h).
//
// The references scan with a plain comparison function (argmax_beats), not with the kernels'
// packed integer keys, so a mistake in the key mapping cannot hide in both.
#include "argmax.h"
#include "common/row_units.h"
#include "error_p.h"

#include <bit>
#include <cmath>
#include <limits>

namespace ptxkit::kernels {

bool argmax_beats(float a, std::uint32_t ia, float b, std::uint32_t ib) {
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an != bn) return an;         // NaN beats every number
  if (!an && a != b) return a > b; // -0.0 == +0.0 here
  return ia < ib;                  // equal (or both NaN): the lower index
}

float argmax_canonical(float v) {
  if (std::isnan(v)) return std::bit_cast<float>(0x7fffffffu);
  if (v == 0.0f) return 0.0f;
  return v;
}

namespace {

// Folds (v, i) into (best value, best index); `empty` marks that nothing was folded yet.
struct Best {
  bool empty = true;
  float value = 0.0f;
  std::uint32_t index = 0;
  void fold(float v, std::uint32_t i) {
    if (empty || argmax_beats(v, i, value, index)) {
      empty = false;
      value = v;
      index = i;
    }
  }
};

} // namespace

ArgmaxResult argmax_partial_reference(const std::vector<float>& x, std::uint32_t rows,
                                      std::uint32_t vocab, DType dtype) {
  const std::uint32_t per_unit = common::row_unit_elems(vocab, dtype);
  const std::uint32_t blocks = argmax_partial_blocks(vocab, dtype);
  ArgmaxResult out;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::uint32_t blk = 0; blk < blocks; ++blk) {
      // Block blk owns units u with (u / 256) % blocks == blk (the grid-stride loop).
      Best best;
      for (std::size_t u = std::size_t{blk} * kArgmaxThreads; u * per_unit < vocab;
           u += std::size_t{blocks} * kArgmaxThreads)
        for (std::size_t t = u; t < u + kArgmaxThreads && t * per_unit < vocab; ++t)
          for (std::uint32_t e = 0; e < per_unit; ++e) {
            auto i = static_cast<std::uint32_t>(t * per_unit + e);
            best.fold(x[r * vocab + i], i);
          }
      out.value.push_back(argmax_canonical(best.value));
      out.index.push_back(best.index);
    }
  return out;
}

ArgmaxResult argmax_final_reference(const ArgmaxResult& partials, std::uint32_t rows,
                                    std::uint32_t num_partials) {
  ArgmaxResult out;
  for (std::size_t r = 0; r < rows; ++r) {
    Best best;
    for (std::size_t p = 0; p < num_partials; ++p)
      best.fold(partials.value[r * num_partials + p], partials.index[r * num_partials + p]);
    out.value.push_back(argmax_canonical(best.value));
    out.index.push_back(best.index);
  }
  return out;
}

ArgmaxResult argmax_reference(const std::vector<float>& x, std::uint32_t rows,
                              std::uint32_t vocab) {
  ArgmaxResult out;
  for (std::size_t r = 0; r < rows; ++r) {
    Best best;
    for (std::uint32_t i = 0; i < vocab; ++i)
      best.fold(x[r * vocab + i], i);
    out.value.push_back(argmax_canonical(best.value));
    out.index.push_back(best.index);
  }
  return out;
}

// ---- argmax_partial ----

namespace {

// The cases the half path's group search (argmax_builder.cpp) treats apart, each planted where one
// block's partial shows it (block b owns the units u with (u / 256) % blocks == b, and thread t of
// the grid units t, t + stride, ...): a thread's group is its units loaded together.
//  block 1: the group holding a new best holds it twice, in one unit (the first wins);
//  block 2: a NaN of the negative sign with a payload after a new best, another NaN later in the
//           group (the first NaN wins, reported as the canonical NaN);
//  block 3: every element negative but a -0.0 and, after it, +0.0s: the group's maximum is a zero,
//           whose two encodings are equal (the -0.0 wins, reported as +0.0);
//  block 4: the maximum in the group's last unit and last element (every step of the search goes
//           right), tied by a later thread;
//  block 5: the maximum in the middle of the group's second unit, tied later in the group;
//  the last block: the last thread meets a NaN, a second NaN in its next unit, then a greater
//           number (the first NaN wins; the next units do not beat it).
// Only where the row has the blocks (four at least); values above the inputs' [-16, 16).
void plant_cases(float* row, std::uint32_t vocab, DType dtype) {
  const std::uint32_t width = common::row_unit_elems(vocab, dtype);
  const std::uint32_t units = vocab / width;
  const std::uint32_t blocks = argmax_partial_blocks(vocab, dtype);
  if (blocks < 4) return;
  const std::uint32_t stride = blocks * kArgmaxThreads;
  const auto set = [&](std::uint32_t unit, std::uint32_t e, float v) {
    if (unit < units && e < width) row[std::size_t{unit} * width + e] = v;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float negative_nan = std::bit_cast<float>(0xffc10000u); // a payload bf16 and f16 keep
  const std::uint32_t last = width - 1;
  // block 1
  std::uint32_t u = 1 * kArgmaxThreads;
  set(u, 1, 20.0f);
  set(u, last, 20.0f);
  set(u + stride, 0, 20.0f);
  set(u + 1, 0, 20.0f);
  // block 2
  u = 2 * kArgmaxThreads;
  set(u, 0, 20.0f);
  set(u, last / 2 + 1, negative_nan);
  set(u, last, nan);
  set(u + stride, 0, nan);
  // block 3
  for (std::uint32_t v = 0; v < units; ++v)
    if (v / kArgmaxThreads % blocks == 3)
      for (std::uint32_t e = 0; e < width; ++e)
        row[std::size_t{v} * width + e] = -(std::fabs(row[std::size_t{v} * width + e]) + 0.125f);
  u = 3 * kArgmaxThreads;
  set(u, last / 2, -0.0f);
  set(u, last, 0.0f);
  set(u + stride, 0, 0.0f);
  // block 4
  u = 4 * kArgmaxThreads;
  if (blocks > 4) {
    set(u + 3 * stride, last, 24.0f);
    set(u + 1 + 3 * stride, 0, 24.0f);
  }
  // block 5
  u = 5 * kArgmaxThreads + 7;
  if (blocks > 5) {
    set(u + stride, width / 2, 24.0f);
    set(u + stride, last, 24.0f);
    set(u + 2 * stride, 0, 24.0f);
  }
  // the last block
  if (blocks > 6) {
    set(stride - 1, 0, nan);
    set(2 * stride - 1, last / 2 + 1, negative_nan);
    set(3 * stride - 1, 0, 30.0f);
  }
}

} // namespace

std::vector<NamedConfig<ArgmaxPartialConfig>> ArgmaxPartial::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5 vocabulary 151936, one row (greedy decode)",
       ArgmaxPartialConfig{.vocab = 151936, .rows = 1}},
      {"llama", "Llama vocabulary 32000, 4 rows", ArgmaxPartialConfig{.vocab = 32000, .rows = 4}},
      {"qwen05b_bf16", "Qwen2.5 vocabulary 151936, bf16 logits, one row (greedy decode)",
       ArgmaxPartialConfig{.vocab = 151936, .rows = 1, .dtype = DType::kBF16}},
      {"llama_f16", "Llama vocabulary 32000, f16 logits, 4 rows",
       ArgmaxPartialConfig{.vocab = 32000, .rows = 4, .dtype = DType::kF16}},
  };
}

std::vector<BenchCase> ArgmaxPartial::bench_cases() {
  return {{
              .name = "argmax_partial_1024x151936",
              .config = "qwen05b",
              .sets = {"rows=1024"},
              .shape = "1024 rows x 151936 (stage 1)",
              .target = BenchTarget{.min_pct_of_copy = 90},
          },
          {
              .name = "argmax_partial_1024x151936_bf16",
              .config = "qwen05b_bf16",
              .sets = {"rows=1024"},
              .shape = "1024 rows x 151936 bf16 (stage 1)",
              .target = BenchTarget{.min_pct_of_copy = 90},
          }};
}

ptxkit::Expected<void> ArgmaxPartial::validate(const Config&) {
  return {};
}

LaunchDims ArgmaxPartial::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = argmax_partial_blocks(c.vocab, c.dtype);
  d.grid[1] = c.rows;
  d.block[0] = kArgmaxThreads;
  return d;
}

std::vector<ParamSpec> ArgmaxPartial::params(const Config& c) {
  std::size_t partials = std::size_t{c.rows} * argmax_partial_blocks(c.vocab, c.dtype);
  return {
      {.name = "input",
       .kind = ParamKind::kInput,
       .buffer = "x",
       .elem = elem_type(c.dtype),
       .elems = std::size_t{c.rows} * c.vocab},
      {.name = "partial_value",
       .kind = ParamKind::kOutput,
       .buffer = "partial_value",
       .elems = partials},
      {.name = "partial_index",
       .kind = ParamKind::kOutput,
       .buffer = "partial_index",
       .elem = ElemType::kU32,
       .elems = partials},
  };
}

HostTensors ArgmaxPartial::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  // Values on a coarse grid (multiples of 1/8 in [-16, 16)) so ties are common: the lowest-index
  // rule is exercised on every run, not only by hand-built cases.
  auto& x = t.f32["x"];
  x.resize(std::size_t{c.rows} * c.vocab);
  for (auto& v : x)
    v = static_cast<float>(static_cast<std::int64_t>(rng.next_u64() % 256) - 128) / 8.0f;
  round_all(c.dtype, x); // a no-op (eighths up to 16 are bf16 and f16 values), kept for the rule
  for (std::uint32_t r = 0; r < c.rows; ++r)
    plant_cases(x.data() + std::size_t{r} * c.vocab, c.vocab, c.dtype);
  return t;
}

ptxkit::Expected<HostTensors> ArgmaxPartial::reference(const Config& c, const HostTensors& in) {
  auto x = in.f32.find("x");
  if (x == in.f32.end()) return fail("argmax_partial reference: input 'x' is required");
  if (x->second.size() != std::size_t{c.rows} * c.vocab)
    return fail(
        "argmax_partial reference: x has " + std::to_string(x->second.size()) +
        " elements; expected rows * vocab = " + std::to_string(std::size_t{c.rows} * c.vocab));
  ArgmaxResult r = argmax_partial_reference(x->second, c.rows, c.vocab, c.dtype);
  HostTensors out;
  out.f32["partial_value"] = std::move(r.value);
  out.u32["partial_index"] = std::move(r.index);
  return out;
}

// ---- argmax_final ----

std::vector<NamedConfig<ArgmaxFinalConfig>> ArgmaxFinal::reference_configs() {
  return {
      {"qwen05b", "Qwen2.5 vocabulary 151936: 38 partials, one row",
       ArgmaxFinalConfig{.num_partials = argmax_partial_blocks(151936), .rows = 1}},
      {"llama", "Llama vocabulary 32000: 8 partials, 4 rows",
       ArgmaxFinalConfig{.num_partials = argmax_partial_blocks(32000), .rows = 4}},
      // The partials of argmax_partial's half configs (fewer: 8 halves per unit).
      {"qwen05b_bf16", "Qwen2.5 vocabulary 151936 in bf16: 19 partials, one row",
       ArgmaxFinalConfig{.num_partials = argmax_partial_blocks(151936, DType::kBF16), .rows = 1}},
      {"llama_f16", "Llama vocabulary 32000 in f16: 4 partials, 4 rows",
       ArgmaxFinalConfig{.num_partials = argmax_partial_blocks(32000, DType::kF16), .rows = 4}},
  };
}

ptxkit::Expected<void> ArgmaxFinal::validate(const Config&) {
  return {};
}

LaunchDims ArgmaxFinal::launch(const Config& c) {
  LaunchDims d;
  d.grid[0] = c.rows;
  d.block[0] = kArgmaxThreads;
  return d;
}

std::vector<ParamSpec> ArgmaxFinal::params(const Config& c) {
  std::size_t partials = std::size_t{c.rows} * c.num_partials;
  return {
      {.name = "partial_value",
       .kind = ParamKind::kInput,
       .buffer = "partial_value",
       .elems = partials},
      {.name = "partial_index",
       .kind = ParamKind::kInput,
       .buffer = "partial_index",
       .elem = ElemType::kU32,
       .elems = partials},
      {.name = "max_value", .kind = ParamKind::kOutput, .buffer = "max_value", .elems = c.rows},
      {.name = "index",
       .kind = ParamKind::kOutput,
       .buffer = "index",
       .elem = ElemType::kU32,
       .elems = c.rows},
  };
}

HostTensors ArgmaxFinal::make_inputs(const Config& c, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  // Partials as stage 1 writes them: coarse values (ties common), distinct increasing indices.
  auto& v = t.f32["partial_value"];
  auto& idx = t.u32["partial_index"];
  for (std::size_t r = 0; r < c.rows; ++r)
    for (std::uint32_t p = 0; p < c.num_partials; ++p) {
      v.push_back(static_cast<float>(static_cast<std::int64_t>(rng.next_u64() % 32) - 16) / 4.0f);
      idx.push_back(p * 1024 + static_cast<std::uint32_t>(rng.next_u64() % 1024));
    }
  return t;
}

ptxkit::Expected<HostTensors> ArgmaxFinal::reference(const Config& c, const HostTensors& in) {
  auto v = in.f32.find("partial_value");
  auto i = in.u32.find("partial_index");
  if (v == in.f32.end() || i == in.u32.end())
    return fail("argmax_final reference: inputs 'partial_value' (f32) and 'partial_index' (u32) "
                "are required");
  const std::size_t n = std::size_t{c.rows} * c.num_partials;
  if (v->second.size() != n || i->second.size() != n)
    return fail("argmax_final reference: partial_value has " + std::to_string(v->second.size()) +
                " and partial_index " + std::to_string(i->second.size()) +
                " elements; expected rows * num_partials = " + std::to_string(n));
  ArgmaxResult r = argmax_final_reference({v->second, i->second}, c.rows, c.num_partials);
  HostTensors out;
  out.f32["max_value"] = std::move(r.value);
  out.u32["index"] = std::move(r.index);
  return out;
}

} // namespace ptxkit::kernels
