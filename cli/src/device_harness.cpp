// device_harness.cpp: the generic device path shared by `ptxkit run`, `ptxkit bench` and the
// device tests (see device_harness.h for why it exists).
#include "device_harness.h"

#include <chrono>
#include <cstring>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/key.h>
#include <ptxkit/runtime/embedded.h>
#include <ptxkit/verifier/verified_ptx.h>
#include <random>
#include <utility>

namespace ptxkit::cli::device {

rt::Unexpected bad_argument(const std::string& message) {
  return rt::fail(rt::ErrorKind::kBadArgument, message);
}

rt::Expected<ptxgen::Target> target_for(const rt::ComputeCapability& cc) {
  const unsigned device_sm = static_cast<unsigned>(cc.major * 10 + cc.minor);
  const ptxgen::Target* best = nullptr;
  for (const auto& t : ptxgen::Target::all_supported())
    if (!t.arch_specific() && t.sm() <= device_sm) best = &t;
  if (best == nullptr)
    return rt::fail(rt::ErrorKind::kDeviceUnsupported,
                    "this device is compute capability " + cc.str() +
                        "; ptxkit generates PTX for sm_80 and newer only");
  return *best;
}

rt::Expected<Session> Session::open() {
  auto ctx = rt::Context::open_default(0);
  if (!ctx) return rt::fail(std::move(ctx).error());
  auto target = target_for(ctx->device().cc);
  if (!target) return rt::fail(std::move(target).error());
  auto stream = rt::Stream::create(*ctx);
  if (!stream) return rt::fail(std::move(stream).error());
  auto cache = std::make_unique<rt::KernelCache>(*ctx);
  return Session{*ctx, std::move(*stream), std::move(cache), *target};
}

std::string Session::describe() const {
  const auto& d = ctx.device();
  return d.name + ", cc " + d.cc.str() + ", driver CUDA " +
         std::to_string(d.driver_version / 1000) + "." +
         std::to_string(d.driver_version % 1000 / 10) + ", " + std::to_string(d.multiprocessors) +
         " SMs, PTX " + std::string(target.name());
}

rt::LaunchDims to_runtime(const kernels::LaunchDims& d) {
  rt::LaunchDims r;
  r.grid = {d.grid[0], d.grid[1], d.grid[2]};
  r.block = {d.block[0], d.block[1], d.block[2]};
  r.dynamic_smem_bytes = d.dynamic_smem_bytes;
  return r;
}

rt::Tolerance to_runtime(const kernels::Tolerance& t) {
  return {t.abs, t.rel};
}

rt::Expected<Prepared> prepare(Session& session, const kernels::Kernel& kernel,
                               const kernels::ConfigValues& values) {
  auto ptx = kernel.generate(values, session.target);
  if (!ptx) return bad_argument(ptx.error().to_string());
  const std::string tname(session.target.name());
  std::string key = kernels::cache_key(kernel, values, tname);
  const kernels::LaunchDims dims = kernel.launch(values);
  // Verified, loaded through the cache, the launch contract set: the path embedded PTX takes.
  auto function =
      rt::load_kernel(*session.cache, std::move(ptx->text), key, kernel.name(), to_runtime(dims));
  if (!function) return rt::fail(std::move(function).error());
  return Prepared{
      &kernel, values, std::move(key), std::move(*function), dims, kernel.params(values)};
}

namespace {

template <class T>
const std::vector<T>* find_in(const std::map<std::string, std::vector<T>>& m,
                              const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? nullptr : &it->second;
}

std::size_t host_size(const kernels::HostTensors& t, const std::string& name) {
  if (auto* v = find_in(t.f32, name)) return v->size();
  if (auto* v = find_in(t.u32, name)) return v->size();
  return 0;
}

// 32-bit words that hold `elems` elements of `e` (device buffers are word arrays).
std::size_t device_words(kernels::ElemType e, std::size_t elems) {
  return (elems * kernels::elem_bytes(e) + 3) / 4;
}

// Host floats into the device representation of `e` (words, little-endian halves). Half values
// are expected exactly representable; they are rounded to nearest even regardless.
void encode(kernels::ElemType e, const std::vector<float>& v, std::vector<std::uint32_t>& words) {
  if (e == kernels::ElemType::kF32) {
    std::memcpy(words.data(), v.data(), v.size() * sizeof(float));
    return;
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint32_t bits =
        e == kernels::ElemType::kF16 ? kernels::f16_bits(v[i]) : kernels::bf16_bits(v[i]);
    std::uint32_t& w = words[i / 2];
    w = (i % 2 == 0) ? ((w & 0xffff0000u) | bits) : ((w & 0x0000ffffu) | (bits << 16));
  }
}

std::vector<float> decode(kernels::ElemType e, const std::vector<std::uint32_t>& words,
                          std::size_t elems) {
  std::vector<float> v(elems);
  if (e == kernels::ElemType::kF32) {
    std::memcpy(v.data(), words.data(), elems * sizeof(float));
    return v;
  }
  for (std::size_t i = 0; i < elems; ++i) {
    const auto bits = static_cast<std::uint16_t>(words[i / 2] >> (16 * (i % 2)));
    v[i] = e == kernels::ElemType::kF16 ? kernels::f16_value(bits) : kernels::bf16_value(bits);
  }
  return v;
}

} // namespace

rt::Expected<void> Instance::fill(const std::string& name, Buffer& b,
                                  const kernels::HostTensors& in) {
  const std::size_t words = device_words(b.elem, b.elems);
  std::vector<std::uint32_t> host(words + guard_, kGuardWord);
  const bool have_input = host_size(in, name) > 0;
  if (have_input) {
    if (kernels::held_as_f32(b.elem)) {
      const auto* v = find_in(in.f32, name);
      if (v == nullptr)
        return bad_argument("input '" + name + "' must be " +
                            std::string(kernels::elem_type_name(b.elem)));
      encode(b.elem, *v, host);
    } else {
      const auto* v = find_in(in.u32, name);
      if (v == nullptr) return bad_argument("input '" + name + "' must be u32");
      std::memcpy(host.data(), v->data(), v->size() * sizeof(std::uint32_t));
    }
  } else if (b.output) {
    std::fill(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(words), 0xffffffffu);
  } else {
    return bad_argument("no host data for input buffer '" + name + "'");
  }
  return b.storage->upload(host);
}

rt::Expected<Instance> Instance::create(const Session& session, const Prepared& prepared,
                                        const kernels::HostTensors& inputs,
                                        const InstanceOptions& options) {
  Instance inst;
  inst.prepared_ = &prepared;
  inst.session_ = &session;
  inst.guard_ = options.guard_elems;
  // One device buffer per named host buffer, as large as the largest use of it.
  for (const auto& p : prepared.params) {
    auto& b = inst.buffers_[p.buffer];
    b.elem = p.elem;
    b.elems = std::max({b.elems, p.elems, host_size(inputs, p.buffer)});
    if (auto it = options.min_elems.find(p.buffer); it != options.min_elems.end())
      b.elems = std::max(b.elems, it->second);
    b.output = b.output || p.kind == kernels::ParamKind::kOutput;
  }
  for (auto& [name, b] : inst.buffers_) {
    auto storage = rt::DeviceBuffer<std::uint32_t>::allocate(
        session.ctx, device_words(b.elem, b.elems) + inst.guard_);
    if (!storage) return rt::fail(std::move(storage).error());
    b.storage = std::make_unique<rt::DeviceBuffer<std::uint32_t>>(std::move(*storage));
    PTXKIT_RT_TRY(inst.fill(name, b, inputs));
  }
  // Pointer arrays: element i = base + i * stride elements.
  for (const auto& p : prepared.params) {
    if (p.kind != kernels::ParamKind::kPointerArray) continue;
    const auto& base = inst.buffers_.at(p.buffer);
    std::vector<std::uint64_t> ptrs(p.count);
    for (std::size_t i = 0; i < p.count; ++i)
      ptrs[i] = base.storage->device_ptr() + i * p.stride_elems * kernels::elem_bytes(base.elem);
    auto arr = rt::DeviceBuffer<std::uint64_t>::from_host(session.ctx, ptrs);
    if (!arr) return rt::fail(std::move(arr).error());
    inst.pointer_arrays_.push_back(
        std::make_unique<rt::DeviceBuffer<std::uint64_t>>(std::move(*arr)));
  }
  auto args = inst.args();
  if (!args) return rt::fail(std::move(args).error());
  inst.args_ = std::move(*args);
  return inst;
}

rt::Expected<std::unique_ptr<rt::ArgPack>>
Instance::args(const std::map<std::string, std::size_t>& offsets,
               const std::map<std::string, rt::cu::DevicePtr>& external) const {
  auto pack = std::make_unique<rt::ArgPack>();
  std::size_t next_array = 0;
  for (const auto& p : prepared_->params) {
    if (p.kind == kernels::ParamKind::kPointerArray) {
      pack->buffer(*pointer_arrays_.at(next_array++));
      continue;
    }
    if (auto it = external.find(p.buffer); it != external.end()) {
      pack->pointer(it->second);
      continue;
    }
    const auto& b = buffers_.at(p.buffer);
    std::size_t offset = 0;
    if (auto it = offsets.find(p.buffer); it != offsets.end()) offset = it->second;
    if (offset + p.elems > b.elems)
      return bad_argument("offset " + std::to_string(offset) + " into '" + p.buffer +
                          "' leaves fewer than " + std::to_string(p.elems) + " elements");
    pack->pointer(b.storage->device_ptr() + offset * kernels::elem_bytes(b.elem));
  }
  return pack;
}

rt::cu::DevicePtr Instance::device_ptr(const std::string& name) const {
  auto it = buffers_.find(name);
  return it == buffers_.end() ? 0 : it->second.storage->device_ptr();
}

rt::Expected<void> Instance::launch(const Session& session) const {
  return prepared_->function.launch_args(session.stream, to_runtime(prepared_->dims),
                                         args_->refs());
}

rt::Expected<void> Instance::reset(const kernels::HostTensors& inputs) {
  for (auto& [name, b] : buffers_)
    PTXKIT_RT_TRY(fill(name, b, inputs));
  return {};
}

rt::Expected<kernels::HostTensors> Instance::download(const std::vector<std::string>& names) const {
  PTXKIT_RT_TRY(session_->stream.synchronize());
  kernels::HostTensors out;
  for (const auto& name : names) {
    auto it = buffers_.find(name);
    if (it == buffers_.end()) return bad_argument("no device buffer '" + name + "'");
    const Buffer& b = it->second;
    const std::size_t words = device_words(b.elem, b.elems);
    std::vector<std::uint32_t> host(words + guard_);
    PTXKIT_RT_TRY(b.storage->download(host));
    if (kernels::held_as_f32(b.elem)) {
      out.f32[name] = decode(b.elem, host, b.elems);
    } else {
      host.resize(b.elems);
      out.u32[name] = std::move(host);
    }
  }
  return out;
}

rt::Expected<kernels::HostTensors> Instance::outputs() const {
  std::vector<std::string> names;
  for (const auto& p : prepared_->params)
    if (p.kind == kernels::ParamKind::kOutput) names.push_back(p.buffer);
  auto all = download(names);
  if (!all) return all;
  // Logical sizes: the parameter's, not an enlarged buffer's.
  for (const auto& p : prepared_->params) {
    if (p.kind != kernels::ParamKind::kOutput) continue;
    if (auto it = all->f32.find(p.buffer); it != all->f32.end()) it->second.resize(p.elems);
    if (auto it = all->u32.find(p.buffer); it != all->u32.end()) it->second.resize(p.elems);
  }
  return all;
}

rt::Expected<std::vector<std::string>> Instance::changed_guards() const {
  std::vector<std::string> changed;
  if (guard_ == 0) return changed;
  PTXKIT_RT_TRY(session_->stream.synchronize());
  for (const auto& [name, b] : buffers_) {
    const std::size_t words = device_words(b.elem, b.elems);
    std::vector<std::uint32_t> host(words + guard_);
    PTXKIT_RT_TRY(b.storage->download(host));
    // The word holding an odd count of halves has a pad half: it is part of the allocation, not
    // the guard band.
    for (std::size_t i = words; i < host.size(); ++i)
      if (host[i] != kGuardWord) {
        changed.push_back(name);
        break;
      }
  }
  return changed;
}

rt::Expected<std::vector<OutputCheck>> compare_outputs(const Prepared& prepared,
                                                       const kernels::HostTensors& inputs,
                                                       const kernels::HostTensors& got) {
  auto want = prepared.kernel->reference(prepared.values, inputs);
  if (!want) return bad_argument(want.error().to_string());
  // One tolerance covers every output of a kernel.
  const rt::Tolerance tolerance = to_runtime(prepared.kernel->tolerance(prepared.values, inputs));
  std::vector<OutputCheck> checks;
  for (const auto& p : prepared.params) {
    if (p.kind != kernels::ParamKind::kOutput) continue;
    OutputCheck c;
    c.buffer = p.buffer;
    c.tolerance = tolerance;
    if (kernels::held_as_f32(p.elem)) {
      const auto* g = find_in(got.f32, p.buffer);
      const auto* w = find_in(want->f32, p.buffer);
      if (g == nullptr || w == nullptr)
        return bad_argument("output '" + p.buffer + "' missing from the device or reference");
      c.comparison = rt::compare(*g, *w, c.tolerance);
    } else {
      const auto* g = find_in(got.u32, p.buffer);
      const auto* w = find_in(want->u32, p.buffer);
      if (g == nullptr || w == nullptr)
        return bad_argument("output '" + p.buffer + "' missing from the device or reference");
      c.comparison = rt::compare(*g, *w);
    }
    checks.push_back(std::move(c));
  }
  return checks;
}

std::uint64_t fresh_seed() {
  std::random_device rd;
  const auto now = static_cast<std::uint64_t>(
      std::chrono::high_resolution_clock::now().time_since_epoch().count());
  return (std::uint64_t{rd()} << 32 ^ rd()) ^ (now * 0x9e3779b97f4a7c15ull);
}

} // namespace ptxkit::cli::device
