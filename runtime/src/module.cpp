// module.cpp: JIT-loading PTX through cuModuleLoadDataEx, looking up functions, checked launches.
//
// The load path refuses what cannot work before the driver sees it (ptx_compat.h), passes info
// and error log buffers so that a JIT failure carries the driver's own log verbatim, and quotes
// the PTX line the log names. The launch path compares the argument sizes with the layout fixed
// at lookup and the launch with the limits read at lookup: no allocation, no extra driver call.
#include "ptxkit/runtime/module.h"

#include "capture_p.h"
#include "module_p.h"
#include "ptxkit/runtime/context.h"
#include "ptxkit/verifier/verified_ptx.h"

#include <cstdint>
#include <string>
#include <utility>

namespace ptxkit::runtime {

namespace detail {
ModuleState::~ModuleState() {
  if (module != nullptr) {
    ctx->bind();
    (void)ctx->driver->module_unload(module);
  }
}
} // namespace detail

std::string JitOptions::fingerprint() const {
  return "O" + std::to_string(optimization_level) +
         ",lineinfo=" + std::to_string(generate_line_info ? 1 : 0) +
         ",debug=" + std::to_string(generate_debug_info ? 1 : 0) +
         ",maxreg=" + std::to_string(max_registers);
}

std::optional<int> ptx_line_named_by(std::string_view log) {
  // ptxas spells it "ptxas application ptx input, line 12; error   : ...".
  for (std::size_t at = log.find("line "); at != std::string_view::npos;
       at = log.find("line ", at + 1)) {
    std::size_t i = at + 5;
    int n = 0;
    bool digits = false;
    while (i < log.size() && log[i] >= '0' && log[i] <= '9' && n < 100000000) {
      n = n * 10 + (log[i] - '0');
      digits = true;
      ++i;
    }
    if (digits && (at == 0 || log[at - 1] == ' ' || log[at - 1] == ',')) return n;
  }
  return std::nullopt;
}

namespace {

std::string line_of(std::string_view text, int line) {
  std::size_t start = 0;
  for (int l = 1; l < line; ++l) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  const std::size_t end = text.find('\n', start);
  return std::string(text.substr(start, end == std::string_view::npos ? end : end - start));
}

// C strings in a log buffer: up to the first NUL (the driver NUL-terminates).
std::string from_log(const std::string& buffer) {
  const auto nul = buffer.find('\0');
  return buffer.substr(0, nul);
}

std::uint32_t read_attr(Driver& d, cu::Function f, cu::FunctionAttribute a, Expected<void>& ok,
                        const char* what) {
  int v = 0;
  if (!ok) return 0;
  ok = check(d, d.func_get_attribute(&v, a, f), std::string("cuFuncGetAttribute(") + what + ")");
  return v < 0 ? 0u : static_cast<std::uint32_t>(v);
}

std::string param_type(const verifier::VarDecl& p) {
  std::string t = ".";
  if (p.vector_width != 0) t += "v" + std::to_string(p.vector_width) + ".";
  t += isa::spelling(p.type);
  for (auto d : p.dims)
    t += "[" + (d == verifier::kUnknownDim ? std::string() : std::to_string(d)) + "]";
  return t;
}

} // namespace

KernelSignature signature_of(const verifier::Function& entry) {
  KernelSignature s;
  s.name = std::string(entry.name);
  s.params.reserve(entry.params.size());
  for (const auto& p : entry.params)
    s.params.push_back({std::string(p.name), param_type(p),
                        static_cast<std::uint32_t>(p.size_in_bytes()), p.alignment()});
  if (auto r = entry.reqntid()) s.reqntid = Dim3{(*r)[0], (*r)[1], (*r)[2]};
  if (auto m = entry.maxntid()) s.maxntid = Dim3{(*m)[0], (*m)[1], (*m)[2]};
  return s;
}

Expected<Module> load_module_text(const Context& ctx, std::string ptx, std::string name,
                                  std::vector<KernelSignature> entries, const JitOptions& jit) {
  auto header = read_ptx_header(ptx);
  if (!header) {
    Error e = std::move(header).error();
    e.message = name + ": " + e.message;
    return fail(std::move(e));
  }
  PTXKIT_RT_TRY(
      check_ptx_loadable(*header, ctx.device().driver_version, ctx.device().cc, ctx.device().name));
  PTXKIT_RT_TRY(ctx.make_current());

  std::string info(jit.log_bytes, '\0');
  std::string errors(jit.log_bytes, '\0');
  auto value = [](std::uintptr_t v) { return reinterpret_cast<void*>(v); };
  cu::JitOption options[9];
  void* values[9];
  unsigned n = 0;
  options[n] = cu::JitOption::kInfoLogBuffer, values[n++] = info.data();
  options[n] = cu::JitOption::kInfoLogBufferSizeBytes, values[n++] = value(info.size());
  options[n] = cu::JitOption::kErrorLogBuffer, values[n++] = errors.data();
  options[n] = cu::JitOption::kErrorLogBufferSizeBytes, values[n++] = value(errors.size());
  options[n] = cu::JitOption::kLogVerbose, values[n++] = value(jit.log_verbose ? 1 : 0);
  options[n] = cu::JitOption::kOptimizationLevel,
  values[n++] = value(static_cast<std::uintptr_t>(jit.optimization_level));
  if (jit.generate_line_info) options[n] = cu::JitOption::kGenerateLineInfo, values[n++] = value(1);
  if (jit.generate_debug_info)
    options[n] = cu::JitOption::kGenerateDebugInfo, values[n++] = value(1);
  if (jit.max_registers != 0)
    options[n] = cu::JitOption::kMaxRegisters, values[n++] = value(jit.max_registers);

  Driver& d = ctx.driver();
  cu::Module module = nullptr;
  const cu::Result r = d.module_load_data_ex(&module, ptx.c_str(), n, options, values);
  if (r != cu::kSuccess) {
    Error e = driver_error(d, r, "cuModuleLoadDataEx");
    e.kind = e.kind == ErrorKind::kDriver ? ErrorKind::kJit : e.kind;
    e.jit_log = from_log(errors);
    e.message = "JIT compilation of " + name + " failed: " + e.message;
    if (!e.jit_log.empty()) e.message += "\n" + e.jit_log;
    if (!e.jit_log.empty() && e.jit_log.back() != '\n') e.message += "\n";
    if (auto line = ptx_line_named_by(e.jit_log)) {
      e.ptx_line = *line;
      e.message += "PTX line " + std::to_string(*line) + ": " + line_of(ptx, *line) + "\n";
    }
    return fail(std::move(e));
  }
  auto state = std::make_shared<detail::ModuleState>();
  state->ctx = ctx.state();
  state->module = module;
  state->name = std::move(name);
  state->ptx = std::move(ptx);
  state->header = *header;
  state->info_log = from_log(info);
  state->entries = std::move(entries);
  return Module(std::move(state));
}

Expected<Module> Module::load(const Context& ctx, const verifier::VerifiedPtx& ptx,
                              const JitOptions& jit) {
  std::vector<KernelSignature> entries;
  for (const verifier::Function* f : ptx.module().entries())
    entries.push_back(signature_of(*f));
  return load_module_text(ctx, ptx.text(), ptx.name(), std::move(entries), jit);
}

const std::string& Module::ptx() const {
  return state_->ptx;
}
const std::string& Module::name() const {
  return state_->name;
}
const PtxHeader& Module::header() const {
  return state_->header;
}
const std::string& Module::info_log() const {
  return state_->info_log;
}
const std::vector<KernelSignature>& Module::entries() const {
  return state_->entries;
}

Expected<Function> Module::function(std::string_view entry) const {
  const KernelSignature* sig = nullptr;
  for (const auto& s : state_->entries)
    if (s.name == entry) sig = &s;
  if (sig == nullptr) {
    std::string known;
    for (const auto& s : state_->entries)
      known += (known.empty() ? "" : ", ") + s.name;
    return fail(ErrorKind::kBadArgument, state_->name + " has no .entry " + std::string(entry) +
                                             " (entries: " + (known.empty() ? "none" : known) +
                                             ")");
  }
  Driver& d = *state_->ctx->driver;
  auto fs = std::make_shared<detail::FunctionState>();
  fs->module = state_;
  fs->signature = *sig;
  PTXKIT_RT_TRY(check(d, d.module_get_function(&fs->function, state_->module, sig->name.c_str()),
                      "cuModuleGetFunction(" + sig->name + ")"));
  Expected<void> ok;
  const cu::Function f = fs->function;
  fs->limits.max_threads_per_block =
      read_attr(d, f, cu::FunctionAttribute::kMaxThreadsPerBlock, ok, "max threads per block");
  fs->limits.static_smem_bytes =
      read_attr(d, f, cu::FunctionAttribute::kSharedSizeBytes, ok, "shared size");
  fs->limits.num_registers = read_attr(d, f, cu::FunctionAttribute::kNumRegs, ok, "registers");
  fs->limits.local_bytes =
      read_attr(d, f, cu::FunctionAttribute::kLocalSizeBytes, ok, "local size");
  fs->max_dynamic_smem = read_attr(d, f, cu::FunctionAttribute::kMaxDynamicSharedSizeBytes, ok,
                                   "max dynamic shared size");
  if (!ok) return fail(std::move(ok).error());
  for (const auto& p : sig->params)
    fs->param_sizes.push_back(p.size);
  return Function(std::move(fs));
}

// ---- Function ----

const KernelSignature& Function::signature() const {
  return state_->signature;
}
const FunctionLimits& Function::limits() const {
  return state_->limits;
}
cu::Function Function::handle() const {
  return state_->function;
}
void Function::set_contract(LaunchContract contract) {
  contract_ = std::move(contract);
}

Expected<void> Function::launch_args(const Stream& stream, const LaunchDims& dims,
                                     std::span<const ArgRef> args) const {
  const detail::FunctionState& fs = *state_;
  const DeviceInfo& device = fs.module->ctx->info;
  Driver& d = *fs.module->ctx->driver;

  constexpr std::size_t kInline = 64;
  std::uint32_t sizes[kInline];
  void* params[kInline];
  if (args.size() > kInline)
    return fail(ErrorKind::kBadLaunch, "launch of " + fs.signature.name + ": " +
                                           std::to_string(args.size()) +
                                           " arguments; the runtime passes at most 64");
  for (std::size_t i = 0; i < args.size(); ++i) {
    sizes[i] = args[i].size;
    params[i] = const_cast<void*>(args[i].ptr); // cuLaunchKernel only reads them
  }
  PTXKIT_RT_TRY(check_launch(fs.signature, device, fs.limits, contract(), dims,
                             std::span<const std::uint32_t>(sizes, args.size())));

  // Dynamic shared memory past the default limit needs the function's opt-in, once.
  if (dims.dynamic_smem_bytes > fs.max_dynamic_smem.load(std::memory_order_acquire)) {
    std::lock_guard lock(fs.raise_mutex);
    if (dims.dynamic_smem_bytes > fs.max_dynamic_smem.load(std::memory_order_relaxed)) {
      PTXKIT_RT_TRY(
          check(d,
                d.func_set_attribute(fs.function, cu::FunctionAttribute::kMaxDynamicSharedSizeBytes,
                                     static_cast<int>(dims.dynamic_smem_bytes)),
                "cuFuncSetAttribute(max dynamic shared size)"));
      fs.max_dynamic_smem.store(dims.dynamic_smem_bytes, std::memory_order_release);
    }
  }
  const cu::Result r = d.launch_kernel(fs.function, dims.grid.x, dims.grid.y, dims.grid.z,
                                       dims.block.x, dims.block.y, dims.block.z,
                                       dims.dynamic_smem_bytes, stream.handle(), params, nullptr);
  // Captured into a graph (graph.h): the graph keeps the module loaded. Only a capture pays for
  // this; outside one the launch path stays free of allocation.
  if (r == cu::kSuccess)
    if (detail::CaptureState* c = detail::StreamAccess::capture(stream)) c->note_launch(fs.module);
  return check(d, r, "cuLaunchKernel");
}

} // namespace ptxkit::runtime
