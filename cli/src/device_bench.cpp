// device_bench.cpp: the cases of `ptxkit bench` and how each is timed and judged (see
// device_bench.h for why they exist and how bytes are counted).
//
// The single-kernel cases are the kernels' own (their definitions' bench_cases(), read from the
// registry), so a kernel defined outside ptxkit is timed with no edit here. What stays here is
// what no one kernel owns: the timing modes (one launch per sample; back to back over rotating
// copies), the L2 cleaner, the launch-overhead comparison and the pipelines of several kernels
// (flash-decoding chunk + reduce).
#include "device_bench.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <ostream>
#include <ptxkit/decoder/decoder.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/runtime/timing.h>
#include <set>

namespace ptxkit::cli::device {
namespace {

constexpr int kWarmup = 10;
constexpr int kIterations = 100;
constexpr std::uint64_t kSeed = 0x5eed0007;

std::string back_to_back_name(const kernels::BenchCase& c) {
  return c.name + "_back_to_back";
}

std::string warm_l2_name(const kernels::BenchCase& c) {
  return c.name + "_warm_l2";
}

// How the back-to-back launches find their data: cold (cycled copies, each last touched more
// than 2 x L2 bytes ago) or warm (one copy, launched again and again: what stays of it in the L2
// is reused, as in ggml's perf loop, which is how llama.cpp's mat-vec figures are taken).
enum class Residency { kCold, kWarm };

struct Spec {
  const kernels::Kernel* kernel = nullptr;
  kernels::ConfigValues values;
};

// Kernel `k` at reference config `tag` (or its defaults) with `sets` applied, validated.
rt::Expected<Spec> spec(const kernels::Kernel& k, const std::string& tag,
                        const std::vector<std::string>& sets) {
  Spec s{&k, k.defaults()};
  if (!tag.empty()) {
    const auto* rc = k.reference_config(tag);
    if (rc == nullptr)
      return bad_argument("bench: " + std::string(k.name()) + " has no config '" + tag + "'");
    s.values = rc->values;
  }
  for (const auto& a : sets) {
    auto r = kernels::apply_assignment(k, s.values, a);
    if (!r) return bad_argument(r.error().to_string());
  }
  auto ok = k.validate(s.values);
  if (!ok) return bad_argument(ok.error().to_string());
  return s;
}

rt::Expected<Spec> spec(const std::string& kernel, const std::string& tag,
                        const std::vector<std::string>& sets) {
  const auto* k = kernels::KernelRegistry::find(kernel);
  if (k == nullptr) return bad_argument("bench: no kernel '" + kernel + "'");
  return spec(*k, tag, sets);
}

// Each distinct buffer once, inputs read and outputs written: the fewest bytes the job moves.
double buffer_bytes(const std::vector<kernels::ParamSpec>& params) {
  std::map<std::string, double> bytes_of;
  for (const auto& p : params) {
    const double b =
        static_cast<double>(p.elems) * static_cast<double>(kernels::elem_bytes(p.elem));
    bytes_of[p.buffer] = std::max(bytes_of[p.buffer], b);
  }
  double bytes = 0;
  for (const auto& [name, b] : bytes_of)
    bytes += b;
  return bytes;
}

// Before each timed sample the L2 is made cold *and clean*: a read-only pass (gemv_f32 over a
// buffer of twice the L2, into a small y) evicts everything, including the dirty lines the
// previous sample's outputs left. A memset flush would leave the L2 full of dirty lines whose
// write-back the timed kernel then pays: ~10 us of a 64 MiB GEMV in Run 2, which no kernel in a
// model's decode step pays (the kernels before it mostly read weights).
class L2Cleaner {
public:
  static rt::Expected<std::unique_ptr<L2Cleaner>> create(Session& s) {
    constexpr std::uint32_t kCols = 4096;
    const std::uint64_t l2 = std::max<std::uint64_t>(s.ctx.device().l2_bytes, 1u << 20);
    const std::uint32_t rows = static_cast<std::uint32_t>((2 * l2 + 4 * kCols - 1) / (4 * kCols));
    auto sp = spec("gemv_f32", "", {"n=" + std::to_string(rows), "k=" + std::to_string(kCols)});
    if (!sp) return rt::fail(std::move(sp).error());
    auto c = std::unique_ptr<L2Cleaner>(new L2Cleaner);
    auto prep = prepare(s, *sp->kernel, sp->values);
    if (!prep) return rt::fail(std::move(prep).error());
    c->prep_ = std::make_unique<Prepared>(std::move(*prep));
    kernels::HostTensors zeros;
    zeros.f32["w"].assign(std::size_t{rows} * kCols, 0.0f);
    zeros.f32["x"].assign(kCols, 0.0f);
    auto inst = Instance::create(s, *c->prep_, zeros);
    if (!inst) return rt::fail(std::move(inst).error());
    c->inst_ = std::make_unique<Instance>(std::move(*inst));
    return c;
  }
  rt::Expected<void> run(const Session& s) const { return inst_->launch(s); }

private:
  L2Cleaner() = default;
  std::unique_ptr<Prepared> prep_;
  std::unique_ptr<Instance> inst_;
};

// The session's cleaner, made by run_benchmarks before the cases run (one per bench run).
std::unique_ptr<L2Cleaner>& l2_cleaner() {
  static std::unique_ptr<L2Cleaner> cleaner;
  return cleaner;
}

rt::TimingOptions sample_options(Session& s) {
  rt::TimingOptions o;
  o.warmup = kWarmup;
  o.iterations = kIterations;
  if (l2_cleaner()) {
    o.before_sample = [&s] { return l2_cleaner()->run(s); };
  } else {
    o.l2_flush_bytes = 2 * static_cast<std::size_t>(s.ctx.device().l2_bytes);
  }
  return o;
}

rt::Expected<rt::Timing> time_it(Session& s, const std::function<rt::Expected<void>()>& launch) {
  return rt::time_on_stream(s.ctx, s.stream, launch, sample_options(s));
}

void fill_rates(BenchResult& r, const rt::Timing& t, double copy_gbps) {
  r.median_us = t.median_us;
  r.min_us = t.min_us;
  r.gbps = rt::gigabytes_per_second(r.bytes, t.median_us);
  r.pct_of_copy = copy_gbps > 0 ? 100.0 * r.gbps / copy_gbps : 0;
}

void set_all_lens(kernels::HostTensors& in, const std::string& name, std::uint32_t len) {
  for (auto& v : in.u32[name])
    v = len;
}

// Compares `got` with `want` under `kernel`'s tolerance; a mismatch makes the case fail.
rt::Expected<void> check_output(const kernels::Kernel& kernel, const kernels::ConfigValues& v,
                                const kernels::HostTensors& inputs, const std::vector<float>& got,
                                const std::vector<float>& want, BenchResult& r) {
  const auto c = rt::compare(got, want, to_runtime(kernel.tolerance(v, inputs)));
  if (!c.ok())
    return rt::fail(rt::ErrorKind::kDriver,
                    r.name + ": output differs from the CPU reference: " + c.summary());
  char buf[96];
  std::snprintf(buf, sizeof buf, "output checked against the CPU reference (max abs err %.2g)",
                c.max_abs_error);
  r.note += (r.note.empty() ? "" : "; ") + std::string(buf);
  return {};
}

struct Judge {
  std::string target;
  std::function<bool(const BenchResult&)> met;
};

// No target: informative only.
Judge judge_of(const std::optional<kernels::BenchTarget>& target) {
  if (!target) return {};
  return {target->text(),
          [t = *target](const BenchResult& r) { return t.met(r.median_us, r.pct_of_copy); }};
}

void judge(BenchResult& r, const Judge& j) {
  r.target = j.target;
  if (j.met) r.met = j.met(r);
}

// Every output of `inst` against the CPU reference under the kernel's stated tolerance: a
// mismatch fails the case, agreement is noted with the largest error.
rt::Expected<void> check_all_outputs(const Prepared& prep, const kernels::HostTensors& inputs,
                                     const Instance& inst, BenchResult& r) {
  auto got = inst.outputs();
  if (!got) return rt::fail(std::move(got).error());
  auto checks = compare_outputs(prep, inputs, *got);
  if (!checks) return rt::fail(std::move(checks).error());
  for (const OutputCheck& c : *checks) {
    if (!c.comparison.ok())
      return rt::fail(rt::ErrorKind::kDriver,
                      r.name + ": output '" + c.buffer +
                          "' differs from the CPU reference: " + c.comparison.summary());
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s checked against the CPU reference (max abs err %.2g)",
                  c.buffer.c_str(), c.comparison.max_abs_error);
    r.note += (r.note.empty() ? "" : "; ") + std::string(buf);
  }
  return {};
}

// A kernel's case with its inputs: generated at the case's config, then adjusted as it says.
struct CaseSetup {
  kernels::ConfigValues values;
  kernels::HostTensors inputs;
};

rt::Expected<CaseSetup> set_up(const kernels::Kernel& kernel, const kernels::BenchCase& c) {
  auto sp = spec(kernel, c.config, c.sets);
  if (!sp) return rt::fail(std::move(sp).error());
  auto inputs = kernel.make_inputs(sp->values, kSeed);
  if (c.adjust_inputs) c.adjust_inputs(inputs);
  return CaseSetup{std::move(sp->values), std::move(inputs)};
}

BenchResult result_of(const kernels::Kernel& kernel, const kernels::BenchCase& c,
                      const rt::Timing& t, double bytes, double copy_gbps) {
  BenchResult r;
  r.name = c.name;
  r.kernels = {std::string(kernel.name())};
  r.shape = c.shape;
  r.bytes = bytes;
  fill_rates(r, t, copy_gbps);
  if (c.flops > 0) r.gflops = c.flops / (t.median_us * 1e3);
  judge(r, judge_of(c.target));
  return r;
}

// One kernel, one launch per sample; its outputs are then checked against the CPU reference.
rt::Expected<BenchResult> single(Session& s, double copy_gbps, const kernels::Kernel& kernel,
                                 const kernels::BenchCase& c) {
  auto setup = set_up(kernel, c);
  if (!setup) return rt::fail(std::move(setup).error());
  auto prep = prepare(s, kernel, setup->values);
  if (!prep) return rt::fail(std::move(prep).error());
  auto inst = Instance::create(s, *prep, setup->inputs);
  if (!inst) return rt::fail(std::move(inst).error());
  auto t = time_it(s, [&] { return inst->launch(s); });
  if (!t) return rt::fail(std::move(t).error());
  BenchResult r =
      result_of(kernel, c, *t, c.bytes > 0 ? c.bytes : buffer_bytes(prep->params), copy_gbps);
  PTXKIT_RT_TRY(check_all_outputs(*prep, setup->inputs, *inst, r));
  return r;
}

// Back-to-back launches over `copies` instances (own buffers each, same inputs), cycled in order
// so that every launch finds its data last touched more than 2 x L2 bytes of other data ago: cold
// in the L2, with no flush and no event between launches. This is a GEMV's situation in a decode
// step (launch latency overlapped by the stream, weights streamed from HBM); the time per launch
// is a sample's time over its launches.
rt::Expected<BenchResult> back_to_back(Session& s, double copy_gbps, const kernels::Kernel& kernel,
                                       const kernels::BenchCase& c, Residency residency) {
  auto setup = set_up(kernel, c);
  if (!setup) return rt::fail(std::move(setup).error());
  auto prep = prepare(s, kernel, setup->values);
  if (!prep) return rt::fail(std::move(prep).error());
  const auto& inputs = setup->inputs;
  const double bytes = c.bytes > 0 ? c.bytes : buffer_bytes(prep->params);
  const double l2 = static_cast<double>(s.ctx.device().l2_bytes);
  const int copies = residency == Residency::kWarm
                         ? 1
                         : std::clamp(static_cast<int>(std::ceil(2 * l2 / bytes)) + 1, 2, 32);
  std::vector<Instance> insts;
  for (int i = 0; i < copies; ++i) {
    auto inst = Instance::create(s, *prep, inputs);
    if (!inst) return rt::fail(std::move(inst).error());
    insts.push_back(std::move(*inst));
  }
  std::size_t next = 0;
  auto launch = [&]() -> rt::Expected<void> {
    auto r = insts[next].launch(s);
    next = (next + 1) % insts.size();
    return r;
  };
  rt::TimingOptions o;
  o.warmup = copies;
  o.iterations = 30;
  o.launches_per_sample = copies * std::max(1, (16 + copies - 1) / copies);
  auto t = rt::time_on_stream(s.ctx, s.stream, launch, o);
  if (!t) return rt::fail(std::move(t).error());
  BenchResult r = result_of(kernel, c, *t, bytes, copy_gbps);
  r.name = residency == Residency::kWarm ? warm_l2_name(c) : back_to_back_name(c);
  r.note =
      std::to_string(o.launches_per_sample) + " back-to-back launches per sample over " +
      std::to_string(copies) +
      (residency == Residency::kWarm ? " copy of the weights (warm L2)" : " copies of the weights");
  PTXKIT_RT_TRY(check_all_outputs(*prep, inputs, insts.back(), r));
  return r;
}

// Flash-decoding: chunk pass then reduce pass, every slot at full length, the KV cache in
// `kv_dtype` (f32, f16, bf16); the output is checked against the one-pass attention reference.
rt::Expected<BenchResult> flash_decode(Session& s, double copy_gbps, std::uint32_t batch,
                                       std::uint32_t seq_len, const std::string& kv_dtype) {
  const std::vector<std::string> sets = {"batch_size=" + std::to_string(batch),
                                         "max_seq_len=" + std::to_string(seq_len)};
  std::vector<std::string> chunk_sets = sets;
  chunk_sets.push_back("kv_dtype=" + kv_dtype);
  auto chunk = spec("flash_decode_chunk", "qwen15b_coder", chunk_sets);
  auto reduce = spec("flash_decode_reduce", "qwen15b_coder", sets);
  auto one_pass = spec("batched_incremental_attention", "qwen15b_coder", sets);
  if (!chunk) return rt::fail(std::move(chunk).error());
  if (!reduce) return rt::fail(std::move(reduce).error());
  if (!one_pass) return rt::fail(std::move(one_pass).error());
  auto pc = prepare(s, *chunk->kernel, chunk->values);
  if (!pc) return rt::fail(std::move(pc).error());
  auto pr = prepare(s, *reduce->kernel, reduce->values);
  if (!pr) return rt::fail(std::move(pr).error());
  auto in = chunk->kernel->make_inputs(chunk->values, kSeed);
  set_all_lens(in, "seq_lens", seq_len);
  auto ci = Instance::create(s, *pc, in);
  if (!ci) return rt::fail(std::move(ci).error());
  auto ri = Instance::create(s, *pr, reduce->kernel->make_inputs(reduce->values, kSeed));
  if (!ri) return rt::fail(std::move(ri).error());
  std::map<std::string, rt::cu::DevicePtr> shared;
  for (const char* b : {"partial_max", "partial_sum", "partial_out", "seq_lens"})
    shared[b] = ci->device_ptr(b);
  auto rargs = ri->args({}, shared);
  if (!rargs) return rt::fail(std::move(rargs).error());
  const auto rdims = to_runtime(pr->dims);
  auto launch = [&]() -> rt::Expected<void> {
    PTXKIT_RT_TRY(ci->launch(s));
    return pr->function.launch_args(s.stream, rdims, (*rargs)->refs());
  };
  PTXKIT_RT_TRY(launch());
  auto got = ri->download({"out"});
  if (!got) return rt::fail(std::move(got).error());
  auto t = time_it(s, launch);
  if (!t) return rt::fail(std::move(t).error());

  const bool half = kv_dtype != "f32";
  const double heads = 12, kv_heads = 2, dim = 128, elem_bytes = half ? 2 : 4;
  const double kv_bytes = 2.0 * elem_bytes * batch * kv_heads * seq_len * dim;
  BenchResult r;
  r.name = "flash_decode_" + std::string(half ? kv_dtype + "_" : "") + std::to_string(batch) +
           "x12_2x" + std::to_string(seq_len);
  r.kernels = {"flash_decode_chunk", "flash_decode_reduce"};
  r.shape = std::to_string(batch) + " slots x 12/2 heads x " + std::to_string(seq_len) +
            " positions x head_dim 128, " + kv_dtype + " KV (chunk 64 + reduce)";
  r.bytes = kv_bytes + 2.0 * 4 * batch * heads * dim;
  fill_rates(r, *t, copy_gbps);
  r.gflops = 4.0 * batch * heads * seq_len * dim / (t->median_us * 1e3);
  if (batch == 4 && half) {
    judge(r, judge_of(
                 kernels::BenchTarget{.max_us = 5.5, .qualifier = "(PyTorch SDPA f16: 11.9 us)"}));
  } else if (batch == 4) {
    judge(r, judge_of(
                 kernels::BenchTarget{.max_us = 20, .qualifier = "(>= 10x PyTorch SDPA 238 us)"}));
  } else {
    // Reading K and V once at the copy bandwidth (copy counts read + write bytes).
    const double floor_us = copy_gbps > 0 ? kv_bytes / (copy_gbps * 1e3) : 0;
    char buf[128];
    const double slack = half ? 1.3 : 1.5;
    std::snprintf(buf, sizeof buf, "<= %.1f x %.1f us (K and V read once at copy bandwidth)", slack,
                  floor_us);
    judge(r, {buf,
              [floor_us, slack](const BenchResult& x) { return x.median_us <= slack * floor_us; }});
  }
  auto want = one_pass->kernel->reference(one_pass->values, in);
  if (!want) return bad_argument(want.error().to_string());
  PTXKIT_RT_TRY(check_output(*reduce->kernel, reduce->values, in, got->f32.at("out"),
                             want->f32.at("out"), r));
  return r;
}

// A Qwen2.5-0.5B-shaped decoder with random weights (24 layers, hidden 896, 14/2 heads,
// intermediate 4864, vocabulary 151936, tied head), made once per bench run: the decode-step cases
// time the model's real step without needing its checkpoint.
const decoder::ModelWeights& qwen05b_random_weights() {
  static const decoder::ModelWeights w = [] {
    decoder::ModelWeights m;
    decoder::ModelConfig& c = m.config;
    c.arch = decoder::Architecture::kQwen2;
    c.hidden = 896, c.layers = 24, c.heads = 14, c.kv_heads = 2, c.head_dim = 64;
    c.intermediate = 4864, c.vocab = 151936, c.max_positions = 32768;
    c.rope_theta = 1e6, c.rms_norm_eps = 1e-6, c.tie_word_embeddings = true, c.qkv_bias = true;
    kernels::InputRng rng(kSeed);
    auto fill = [&](std::size_t n, float lo, float hi) { return rng.uniform_vector(n, lo, hi); };
    const std::size_t H = c.hidden, I = c.intermediate, q = 14 * 64, kv = 2 * 64;
    m.embed = fill(std::size_t{c.vocab} * H, -0.05f, 0.05f);
    m.final_norm = fill(H, 0.9f, 1.1f);
    m.layers.resize(c.layers);
    for (auto& l : m.layers) {
      l.input_norm = fill(H, 0.9f, 1.1f);
      l.post_attention_norm = fill(H, 0.9f, 1.1f);
      l.q = fill(q * H, -0.05f, 0.05f), l.k = fill(kv * H, -0.05f, 0.05f);
      l.v = fill(kv * H, -0.05f, 0.05f), l.o = fill(H * q, -0.05f, 0.05f);
      l.q_bias = fill(q, -0.1f, 0.1f), l.k_bias = fill(kv, -0.1f, 0.1f);
      l.v_bias = fill(kv, -0.1f, 0.1f);
      l.gate = fill(I * H, -0.05f, 0.05f), l.up = fill(I * H, -0.05f, 0.05f);
      l.down = fill(H * I, -0.05f, 0.05f);
    }
    return m;
  }();
  return w;
}

// One decode step of the whole model (every slot one token; graph replay; the per-step uploads
// of ids, positions and lengths and the download of the next ids included), timed on the host
// over 32 steps after 8 untimed ones. The bytes are the weights on the device: a step reads each
// at least once, so % of copy is the step's distance from the weight-read floor.
rt::Expected<BenchResult> decode_step(Session& s, double copy_gbps, decoder::WeightMode mode,
                                      std::uint32_t batch) {
  const auto& w = qwen05b_random_weights();
  auto dec = decoder::Decoder::create(*s.cache, s.target, w,
                                      {.weights = mode, .batch = batch, .max_seq_len = 2048});
  if (!dec) return rt::fail(std::move(dec).error());
  std::vector<std::uint32_t> tokens(batch), positions(batch);
  std::vector<double> us;
  for (std::uint32_t step = 0; step < 40; ++step) {
    for (std::uint32_t i = 0; i < batch; ++i) {
      tokens[i] = (step * 7919u + i * 104729u) % w.config.vocab;
      positions[i] = step;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto r = dec->step(s.stream, tokens, positions);
    const auto t1 = std::chrono::steady_clock::now();
    if (!r) return rt::fail(std::move(r).error());
    if (step >= 8) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  rt::Timing t;
  t.median_us = us[us.size() / 2];
  t.min_us = us.front();
  const std::string m(decoder::weight_mode_name(mode));
  BenchResult r;
  r.name = "decode_step_qwen05b_" + m + "_b" + std::to_string(batch);
  for (const auto& l : dec->plan())
    if (std::find(r.kernels.begin(), r.kernels.end(), l.kernel) == r.kernels.end())
      r.kernels.push_back(l.kernel);
  r.shape = "Qwen2.5-0.5B shape (24 layers, random weights), " + m + " weights, batch " +
            std::to_string(batch) + ", one CUDA graph per step; " +
            std::to_string(dec->plan().size()) +
            " launches; tokens/s = " + std::to_string(static_cast<int>(batch * 1e6 / t.median_us));
  r.bytes = static_cast<double>(dec->weight_bytes());
  fill_rates(r, t, copy_gbps);
  r.note = "host-timed steps (uploads, graph replay, synchronize, download of the next ids)";
  if (mode == decoder::WeightMode::kF32 && batch == 1) {
    // Within 1.5x of reading every weight once at the copy bandwidth.
    judge(r, {">= 66.7% of copy bandwidth on the weight bytes (within 1.5x of the weight-read "
              "floor)",
              [](const BenchResult& x) { return x.pct_of_copy >= 100.0 / 1.5; }});
  }
  return r;
}

// The checked launch path (cached function, Function::launch_args) against raw cuLaunchKernel on
// the same function and arguments, 10,000 launches a round, interleaved rounds, medians.
rt::Expected<LaunchOverhead> launch_overhead(Session& s) {
  auto sp = spec("residual_add", "qwen05b", {});
  if (!sp) return rt::fail(std::move(sp).error());
  auto prep = prepare(s, *sp->kernel, sp->values);
  if (!prep) return rt::fail(std::move(prep).error());
  auto inst = Instance::create(s, *prep, sp->kernel->make_inputs(sp->values, kSeed));
  if (!inst) return rt::fail(std::move(inst).error());
  auto pack = inst->args();
  if (!pack) return rt::fail(std::move(pack).error());
  std::vector<void*> raw;
  for (const auto& ref : (*pack)->refs())
    raw.push_back(const_cast<void*>(ref.ptr));
  const auto dims = to_runtime(prep->dims);
  auto& drv = s.ctx.driver();
  const auto fn = prep->function.handle();
  const auto stream = s.stream.handle();

  LaunchOverhead o;
  o.launches = 10000;
  o.rounds = 7;
  std::vector<double> raw_us, checked_us;
  bool all_ok = true;
  auto round = [&](bool checked) -> rt::Expected<double> {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < o.launches; ++i) {
      if (checked) {
        all_ok &= prep->function.launch_args(s.stream, dims, (*pack)->refs()).has_value();
      } else {
        all_ok &= drv.launch_kernel(fn, dims.grid.x, dims.grid.y, dims.grid.z, dims.block.x,
                                    dims.block.y, dims.block.z, dims.dynamic_smem_bytes, stream,
                                    raw.data(), nullptr) == rt::cu::kSuccess;
      }
    }
    PTXKIT_RT_TRY(s.stream.synchronize());
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / o.launches;
  };
  PTXKIT_RT_TRY(round(true)); // warm-up
  PTXKIT_RT_TRY(round(false));
  for (int r = 0; r < o.rounds; ++r) {
    auto a = round(false);
    if (!a) return rt::fail(std::move(a).error());
    auto b = round(true);
    if (!b) return rt::fail(std::move(b).error());
    raw_us.push_back(*a);
    checked_us.push_back(*b);
  }
  if (!all_ok) return rt::fail(rt::ErrorKind::kDriver, "launch_overhead: a launch failed");
  std::sort(raw_us.begin(), raw_us.end());
  std::sort(checked_us.begin(), checked_us.end());
  o.raw_us = raw_us[raw_us.size() / 2];
  o.checked_us = checked_us[checked_us.size() / 2];
  o.diff_pct = 100.0 * (o.checked_us / o.raw_us - 1.0);
  o.met = o.diff_pct <= 10.0;
  return o;
}

using CaseFn = std::function<rt::Expected<BenchResult>(Session&, double)>;

struct Case {
  BenchCaseInfo info;
  CaseFn run;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> c;
    auto add = [&](std::string name, std::vector<std::string> kernels, CaseFn fn) {
      c.push_back({{std::move(name), std::move(kernels)}, std::move(fn)});
    };
    // Pipelines: several kernels per sample, judged as one job.
    for (std::string t : {"f32", "f16", "bf16"}) {
      const std::string infix = t == "f32" ? "" : t + "_";
      add("flash_decode_" + infix + "4x12_2x2048", {"flash_decode_chunk", "flash_decode_reduce"},
          [t](Session& s, double g) { return flash_decode(s, g, 4, 2048, t); });
      add("flash_decode_" + infix + "64x12_2x4096", {"flash_decode_chunk", "flash_decode_reduce"},
          [t](Session& s, double g) { return flash_decode(s, g, 64, 4096, t); });
    }
    // The decoder's whole step (decoder.h) at the Qwen2.5-0.5B shape.
    for (const auto& mb :
         {std::pair{decoder::WeightMode::kF32, 1u}, std::pair{decoder::WeightMode::kF32, 4u},
          std::pair{decoder::WeightMode::kBF16, 1u}, std::pair{decoder::WeightMode::kBF16, 4u},
          std::pair{decoder::WeightMode::kQ4K, 1u}, std::pair{decoder::WeightMode::kQ4K, 4u}}) {
      const std::string m(decoder::weight_mode_name(mb.first));
      add("decode_step_qwen05b_" + m + "_b" + std::to_string(mb.second), {"decoder"},
          [mb](Session& s, double g) { return decode_step(s, g, mb.first, mb.second); });
    }
    // The kernels' own cases, in registry order, each followed by its back-to-back twins (cold,
    // then warm L2). The
    // registry's kernels and their cases live as long as the program.
    for (const kernels::Kernel* k : kernels::KernelRegistry::all()) {
      for (const kernels::BenchCase& bc : k->bench_cases()) {
        const kernels::BenchCase* p = &bc;
        add(bc.name, {std::string(k->name())},
            [k, p](Session& s, double g) { return single(s, g, *k, *p); });
        if (!bc.back_to_back) continue;
        add(back_to_back_name(bc), {std::string(k->name())},
            [k, p](Session& s, double g) { return back_to_back(s, g, *k, *p, Residency::kCold); });
        add(warm_l2_name(bc), {std::string(k->name())},
            [k, p](Session& s, double g) { return back_to_back(s, g, *k, *p, Residency::kWarm); });
      }
    }
    return c;
  }();
  return all;
}

bool selected(const BenchCaseInfo& info, const std::vector<std::string>& filter) {
  if (filter.empty()) return true;
  for (const auto& f : filter) {
    if (f == info.name) return true;
    if (std::find(info.kernels.begin(), info.kernels.end(), f) != info.kernels.end()) return true;
  }
  return false;
}

} // namespace

const std::vector<BenchCaseInfo>& bench_cases() {
  static const std::vector<BenchCaseInfo> infos = [] {
    std::vector<BenchCaseInfo> v;
    for (const auto& c : cases())
      v.push_back(c.info);
    v.push_back({"launch_overhead", {"residual_add"}});
    return v;
  }();
  return infos;
}

rt::Expected<BenchReport> run_benchmarks(Session& s, const std::vector<std::string>& filter,
                                         std::ostream& log) {
  BenchReport report;
  report.device = s.describe();
  constexpr std::size_t kCopyBytes = std::size_t{1} << 30;
  rt::TimingOptions copt;
  copt.warmup = kWarmup;
  copt.iterations = kIterations;
  auto copy = rt::measure_copy_bandwidth(s.ctx, s.stream, kCopyBytes, copt);
  if (!copy) return rt::fail(std::move(copy).error());
  report.copy_gbps = copy->gbps;
  // The cases' samples start from a cold, clean L2 (L2Cleaner); it is released with the run.
  auto cleaner = L2Cleaner::create(s);
  if (!cleaner) return rt::fail(std::move(cleaner).error());
  l2_cleaner() = std::move(*cleaner);
  struct Release {
    ~Release() { l2_cleaner().reset(); }
  } release;
  report.copy_bytes = kCopyBytes;
  log << "device-to-device copy of " << kCopyBytes << " B: " << copy->timing.median_us << " us, "
      << copy->gbps << " GB/s (read + written)\n";
  // First: it is short, and a run cut off by a time limit still has it.
  if (selected(bench_cases().back(), filter)) {
    auto o = launch_overhead(s);
    if (!o) return rt::fail(std::move(o).error());
    log << "launch overhead: raw " << o->raw_us << " us, checked " << o->checked_us << " us ("
        << o->diff_pct << "%)\n";
    report.overhead = *o;
  }
  for (const auto& c : cases()) {
    if (!selected(c.info, filter)) continue;
    auto r = c.run(s, report.copy_gbps);
    if (!r) {
      if (r.error().is_unavailable()) return rt::fail(std::move(r).error());
      BenchResult failed;
      failed.name = c.info.name;
      failed.kernels = c.info.kernels;
      failed.met = false;
      failed.note = "error: " + r.error().message;
      log << c.info.name << ": ERROR " << r.error().message << "\n";
      report.results.push_back(std::move(failed));
      continue;
    }
    log << r->name << ": " << r->median_us << " us, " << r->gbps << " GB/s (" << r->pct_of_copy
        << "% of copy)" << (r->met ? (*r->met ? " target met" : " target MISSED") : "") << "\n";
    report.results.push_back(std::move(*r));
  }
  return report;
}

} // namespace ptxkit::cli::device
