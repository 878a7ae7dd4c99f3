// cmd_embed.cpp: `ptxkit embed -o HEADER [--namespace NS] KERNEL[:FIELD=VALUE,...]@sm_XX[=FILE]...`
//
// Why a command: an application that launches generated kernels should not need PTX files at
// run time, nor a second copy of each kernel's launch contract. The header holds, per instance,
// the PTX text, its cache key and its launch contract as ptxkit::runtime::EmbeddedKernel values
// (runtime/embedded.h), which runtime::load_embedded() verifies and loads. With `=FILE` the text
// is that file's, and it must be exactly what the kernel generates at that config (with or
// without --loc): the header then embeds the very bytes the build verified and ptxas accepted.
// ptxkit_generate_ptx(... EMBED) calls this. Output is deterministic and written atomically.
#include "command_registry.h"
#include "diagnostics.h"
#include "kernel_args.h"
#include "output_file.h"

#include <map>
#include <memory>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/registry.h>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ptxkit::cli {
namespace {

struct EmbedArgs {
  std::vector<std::string> items;
  std::string output;
  std::string ns = "ptxkit_embedded";
};

struct Item {
  const kernels::Kernel* kernel = nullptr;
  kernels::ConfigValues values;
  ptxgen::Target target;
  std::string ptx;
  std::string symbol;
};

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string c_identifier(const std::string& s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(0, "k_");
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    parts.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// KERNEL[:FIELD=VALUE,...]@TARGET[=FILE]
ptxkit::Expected<Item> parse_item(const std::string& text) {
  const std::size_t at = text.find('@');
  if (at == std::string::npos)
    return make_error("'" + text + "' has no '@TARGET' (expected " +
                      "KERNEL[:FIELD=VALUE,...]@sm_XX[=FILE])");
  const std::string spec = text.substr(0, at);
  std::string rest = text.substr(at + 1), file;
  if (const std::size_t eq = rest.find('='); eq != std::string::npos) {
    file = rest.substr(eq + 1);
    rest = rest.substr(0, eq);
  }
  const std::size_t colon = spec.find(':');
  auto kernel = find_kernel(spec.substr(0, colon));
  if (!kernel) return ptxkit::Error(kernel.error());
  std::vector<std::string> sets;
  std::string symbol = std::string((*kernel)->name());
  if (colon != std::string::npos)
    for (const std::string& a : split(spec.substr(colon + 1), ',')) {
      if (a.empty()) continue;
      sets.push_back(a);
      symbol += "_" + a;
    }
  auto values = config_from_cli(**kernel, sets);
  if (!values) return ptxkit::Error(values.error());
  auto target = target_from_cli(rest);
  if (!target) return ptxkit::Error(target.error());
  symbol += "_" + target_name(*target);
  Item item{*kernel, std::move(*values), *target, {}, c_identifier(symbol)};
  auto plain = item.kernel->generate(item.values, item.target);
  if (!plain) return ptxkit::Error(plain.error());
  if (file.empty()) {
    item.ptx = std::move(plain->text);
    return item;
  }
  std::string error;
  if (!read_file(file, item.ptx, error)) return make_error(error);
  if (item.ptx == plain->text) return item;
  auto with_loc = item.kernel->generate(item.values, item.target, kernels::GenOptions{.loc = true});
  if (with_loc && item.ptx == with_loc->text) return item;
  return make_error("'" + file + "' is not the PTX that " + spec + " generates for " +
                    target_name(item.target) + " (stale or edited: regenerate it)");
}

// The config as `--set` assignments, every field in declaration order.
std::string config_string(const kernels::Kernel& kernel, const kernels::ConfigValues& values) {
  std::string out;
  const auto& fields = kernel.fields();
  for (std::size_t i = 0; i < fields.size(); ++i)
    out += (i ? "," : "") + fields[i].name + "=" + kernels::format_value(fields[i], values[i]);
  return out;
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string_view kind_name(kernels::ParamKind kind) {
  switch (kind) {
  case kernels::ParamKind::kInput:
    return "input";
  case kernels::ParamKind::kOutput:
    return "output";
  case kernels::ParamKind::kPointerArray:
    return "pointer_array";
  }
  return "input";
}

std::string dim3(const std::uint32_t (&d)[3]) {
  return "{" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         "}";
}

ptxkit::Expected<std::string> header(const std::vector<Item>& items, const std::string& ns) {
  std::ostringstream h;
  h << "// Generated by `" << program_name() << " embed`: do not edit.\n"
    << "// Each kernel's PTX text, cache key and launch contract; load one with\n"
    << "// ptxkit::runtime::load_embedded(cache, " << ns << "::<name>).\n"
    << "#pragma once\n\n#include <ptxkit/runtime/embedded.h>\n\nnamespace " << ns << " {\n";
  for (const Item& item : items) {
    if (item.ptx.find(")ptxkit\"") != std::string::npos)
      return make_error("the PTX of " + item.symbol + " contains the raw-string delimiter");
    const std::string target = target_name(item.target);
    const kernels::LaunchDims dims = item.kernel->launch(item.values);
    h << "\ninline constexpr ptxkit::runtime::EmbeddedParam " << item.symbol << "_params[] = {\n";
    for (const kernels::ParamSpec& p : item.kernel->params(item.values))
      h << "    {" << quoted(p.name) << ", " << quoted(kind_name(p.kind)) << ", "
        << quoted(p.buffer) << ", " << quoted(kernels::elem_type_name(p.elem)) << ", " << p.elems
        << ", " << p.count << ", " << p.stride_elems << "},\n";
    h << "};\n"
      << "inline constexpr ptxkit::runtime::EmbeddedKernel " << item.symbol << " = {\n"
      << "    .kernel = " << quoted(item.kernel->name()) << ",\n"
      << "    .config = " << quoted(config_string(*item.kernel, item.values)) << ",\n"
      << "    .target = " << quoted(target) << ",\n"
      << "    .key = " << quoted(kernels::cache_key(*item.kernel, item.values, target)) << ",\n"
      << "    .ptx = R\"ptxkit(" << item.ptx << ")ptxkit\",\n"
      << "    .grid = " << dim3(dims.grid) << ",\n"
      << "    .block = " << dim3(dims.block) << ",\n"
      << "    .dynamic_smem_bytes = " << dims.dynamic_smem_bytes << ",\n"
      << "    .params = " << item.symbol << "_params,\n};\n";
  }
  h << "\n// Every kernel of this header, in the order given.\n"
    << "inline constexpr const ptxkit::runtime::EmbeddedKernel* all[] = {";
  for (std::size_t i = 0; i < items.size(); ++i)
    h << (i ? ", " : "") << '&' << items[i].symbol;
  h << "};\n\n} // namespace " << ns << "\n";
  return h.str();
}

int run_embed(const EmbedArgs& args) {
  if (!is_identifier(args.ns))
    return usage_error("--namespace '" + args.ns + "' is not a C++ identifier");
  if (args.output.empty()) return usage_error("embed needs -o HEADER");
  std::vector<Item> items;
  std::set<std::string> symbols;
  for (const std::string& text : args.items) {
    auto item = parse_item(text);
    if (!item) return usage_error(item.error().to_string());
    if (!symbols.insert(item->symbol).second)
      return usage_error("'" + text + "' is given twice (symbol " + item->symbol + ")");
    items.push_back(std::move(*item));
  }
  auto text = header(items, args.ns);
  if (!text) return usage_error(text.error().to_string());
  std::string error;
  if (!write_file_atomically(args.output, *text, error)) return usage_error(error);
  return kExitOk;
}

const CommandRegistration reg{
    "embed", [](CLI::App& app, CommandResult& result) {
      auto args = std::make_shared<EmbedArgs>();
      auto* sub = app.add_subcommand(
          "embed", "Write a C++ header holding kernels' PTX, cache keys and launch contracts "
                   "(ptxkit::runtime::EmbeddedKernel), for loading with no file I/O");
      sub->add_option("INSTANCE", args->items,
                      "KERNEL[:FIELD=VALUE,...]@sm_XX[=FILE]: the kernel, its config and target, "
                      "and optionally the PTX file to embed (it must be what the kernel generates)")
          ->type_name("")
          ->required();
      sub->add_option("-o,--output", args->output, "The header to write (atomically)")
          ->type_name("HEADER")
          ->required();
      sub->add_option("--namespace", args->ns,
                      "C++ namespace of the header's variables (default ptxkit_embedded)")
          ->type_name("NS");
      sub->footer("Example:\n  " + std::string(program_name()) +
                  " embed -o kernels_ptx.h --namespace app \\\n"
                  "      rmsnorm:hidden=4096,eps=1e-5@sm_90 residual_add@sm_90=residual_add.ptx\n\n"
                  "Exit codes: 0 header written, 2 bad usage, unknown kernel or field, bad value "
                  "or target, a FILE\nthat is not what the kernel generates, or a header that "
                  "cannot be written.");
      sub->callback([args, &result] { result.exit_code = run_embed(*args); });
    }};

} // namespace
} // namespace ptxkit::cli
